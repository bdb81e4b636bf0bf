#!/usr/bin/env python3
"""Fails when AVX or AVX-512 code appears outside the row kernels' own ISA copies.

Usage: isa_purity.py [--objdump PATH] [--expect-avx512] FILE...

Disassembles each file (a static library or a program) and attributes every instruction to the
symbol it sits in. Functions whose (mangled) name holds "row_kernels_avx512" may use anything,
those holding "row_kernels_avx2" AVX/AVX2 but no AVX-512, everything else baseline x86-64 only
(no VEX or EVEX instruction, no ymm/zmm/mask register). That is what lets a binary built on an
AVX-512 machine run on an older one: the dispatcher only calls a copy the CPU supports.
--expect-avx512 also requires AVX-512 instructions inside the avx512 copy, so a parse that sees
nothing cannot pass.
"""
import argparse
import re
import subprocess
import sys

SYMBOL = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSN = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$")
AVX512_OPERAND = re.compile(r"%zmm|%k[0-7]\b|\{%k|%[xy]mm(1[6-9]|2[0-9]|3[01])\b")
BASELINE, AVX, AVX512 = 0, 1, 2
LEVEL_NAME = {BASELINE: "baseline", AVX: "AVX", AVX512: "AVX-512"}


def level(mnemonic, operands):
    if AVX512_OPERAND.search(operands) or mnemonic.startswith("k"):
        return AVX512
    if mnemonic.startswith("v") or "%ymm" in operands:
        return AVX
    return BASELINE


def allowed(symbol):
    if "row_kernels_avx512" in symbol:
        return AVX512
    if "row_kernels_avx2" in symbol:
        return AVX
    return BASELINE


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--objdump", default="objdump")
    parser.add_argument("--expect-avx512", action="store_true")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    violations = {}  # (file, symbol) -> [instruction lines]
    avx512_in_kernels = 0
    for path in args.files:
        text = subprocess.run([args.objdump, "-d", "-w", "--no-show-raw-insn", path], check=True, capture_output=True, text=True).stdout
        symbol = None
        for line in text.splitlines():
            m = SYMBOL.match(line)
            if m:
                symbol = m.group(1)
                continue
            m = INSN.match(line)
            if not m or symbol is None:
                continue
            used = level(m.group(1), m.group(2))
            if used == AVX512 and "row_kernels_avx512" in symbol:
                avx512_in_kernels += 1
            if used > allowed(symbol):
                violations.setdefault((path, symbol), []).append((used, line.strip()))
    for (path, symbol), found in violations.items():
        used, line = max(found, key=lambda f: f[0])  # the widest instruction as the example
        print(f"{path}: {symbol}: {len(found)} instructions beyond {LEVEL_NAME[allowed(symbol)]}, e.g. {LEVEL_NAME[used]}: {line}")
    if args.expect_avx512 and avx512_in_kernels == 0:
        print("no AVX-512 instruction found in the row_kernels_avx512 copy: is the disassembly parsed?")
        return 1
    print(f"{len(violations)} functions break the ISA split; {avx512_in_kernels} AVX-512 instructions inside the avx512 kernels")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
