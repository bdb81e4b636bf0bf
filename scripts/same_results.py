#!/usr/bin/env python3
"""Exit 0 when two tevsuite JSON results are equal apart from wall-clock fields ("seconds").

usage: same_results.py [--added-ok] A.json B.json

--added-ok: object keys that only B has are allowed (B = A with fields added, every field of A
unchanged); they are listed.
"""
import json
import re
import sys


def without_timings(x):
    if isinstance(x, dict):
        return {k: without_timings(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [without_timings(v) for v in x]
    return x


def first_difference(a, b, path="$", added=None):
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a and added is not None:
                added.add(f"{path}.{k}")
                continue
            if k not in a or k not in b:
                return f"{path}.{k}"
            d = first_difference(a[k], b[k], f"{path}.{k}", added)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path} (length)"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]", added)
            if d:
                return d
        return None
    return None if a == b else path


def main():
    args = sys.argv[1:]
    added = set() if args[:1] == ["--added-ok"] else None
    if added is not None:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    a, b = (without_timings(json.load(open(p))) for p in args)
    where = first_difference(a, b, added=added)
    if where:
        sys.exit(f"results differ at {where}")
    if added:
        # Array elements repeat their keys: list each added key once, indices folded.
        folded = sorted({re.sub(r"\[\d+\]", "[]", k) for k in added})
        print("identical apart from timings; fields added in B: " + ", ".join(folded))
    else:
        print("identical apart from timings")


if __name__ == "__main__":
    main()
