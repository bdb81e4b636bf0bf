#!/usr/bin/env python3
"""Samples per second of one verifier, the target-only tree walk, checked through the Python
package on the default cases (8 cases, 1.1 million samples, judging included): one sample per
Python call, batched numpy, batched torch; and `tevsuite conformance run` with the TEV of
examples/tev_verifier.py behind the line protocol (a different exact verifier, the protocol's own
example), its samples drawn at once with numpy and one at a time with the standard library
(--per-sample). Side by side in one run; not a test.

    PYTHONPATH=build/python python3 bench/python_throughput.py build/apps/tevsuite
"""
import os
import subprocess
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(root, "python", "tests"), os.path.join(root, "examples", "torch")]

import tevsuite  # noqa: E402
from numpy_verifiers import walk_batch, walk_tables  # noqa: E402

import numpy as np  # noqa: E402

_tables = {}


def walk_per_sample(case, rng):
    """The walk one sample per call, its tables cached per case, its draws from rng.uniform()."""
    if case.id not in _tables or _tables[case.id][0].shape != (case.nodes, case.vocab):
        _tables[case.id] = walk_tables(case)
    cdf, child = _tables[case.id]
    node, accepted = 0, []
    while True:
        token = min(int(np.searchsorted(cdf[node], rng.uniform(), side="right")), case.vocab - 1)
        nxt = child[node, token]
        if nxt < 0:
            return accepted, token
        accepted.append(token)
        node = nxt


def timed(what, run):
    start = time.perf_counter()
    report = run()
    seconds = time.perf_counter() - start
    samples = sum(c.samples for c in report.cases)
    print(f"{what:<28} {seconds:8.2f} s {samples / seconds:12.0f} samples/s   {report.verdict_text}")
    return samples


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(f"default cases; threads: {os.cpu_count()} for batched judging, 1 for per-sample calls")
    timed("per sample (Python, numpy)", lambda: tevsuite.check_tree(walk_per_sample))
    samples = timed("batched numpy", lambda: tevsuite.check_tree(verify_batch=walk_batch))
    try:
        from torch_verifiers import walk_verifier
        timed("batched torch (CPU)", lambda: tevsuite.check_tree(verify_batch=walk_verifier()))
    except ImportError:
        print("batched torch: torch is not installed")
    for name, flags in (("numpy TEV", ""), ("stdlib TEV", " --per-sample")):
        verifier = f"{sys.executable} {os.path.join(root, 'examples', 'tev_verifier.py')}{flags}"
        start = time.perf_counter()
        done = subprocess.run([sys.argv[1], "conformance", "run", "--verifier-cmd", verifier], capture_output=True, text=True)
        seconds = time.perf_counter() - start
        print(f"{'conformance run (' + name + ')':<28} {seconds:8.2f} s {samples / seconds:12.0f} samples/s   exit {done.returncode}")


if __name__ == "__main__":
    main()
