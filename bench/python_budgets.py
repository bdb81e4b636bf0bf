#!/usr/bin/env python3
"""The TV each pytest budget (`--tevsuite-budget`, tevsuite.testing.BUDGETS) guarantees, computed
with the package: exact verifiers (the numpy walk on fixed trees, the torch chain sampler on model
cases, each on the plain and the engine-shaped cases) checked at each budget, and per check the
verdict, the stated TV (the largest detectable TV over its cases: every law that far from the
canonical one, in any direction, fails with 99 % power on every case) and the time. Not a test.

    PYTHONPATH=build/python python3 bench/python_budgets.py
"""
import os
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(root, "python", "tests"), os.path.join(root, "examples", "torch")]

import tevsuite  # noqa: E402
from tevsuite.testing import BUDGETS, properties  # noqa: E402
from numpy_verifiers import walk_batch  # noqa: E402
from torch_verifiers import chain_verifier, walk_verifier  # noqa: E402

CHECKS = [
    ("fixed trees", "tree", lambda **o: tevsuite.check_tree(verify_batch=walk_batch, **o)),
    ("fixed trees, engine-shaped", "tree", lambda **o: tevsuite.check_tree(verify_batch=walk_verifier(), engine_inputs=True, **o)),
    ("model cases", "model", lambda **o: tevsuite.check_model(verify_batch=chain_verifier(), **o)),
    ("model cases, engine-shaped", "model", lambda **o: tevsuite.check_model(verify_batch=chain_verifier(), engine_inputs=True, **o)),
]

print("| budget | cases | cases x samples | verdict | stated TV | time |")
print("|---|---|---|---|---|---|")
for budget, kinds in BUDGETS.items():
    for name, kind, check in CHECKS:
        start = time.perf_counter()
        report = check(**kinds[kind])
        seconds = time.perf_counter() - start
        stated = properties(report)["tevsuite_stated_tv"]
        print(f"| {budget} | {name} | {kinds[kind]['cases']} x {kinds[kind]['samples']:,} | {report.verdict_text} | "
              f"{'none' if stated is None else f'{stated:.4f}'} | {seconds:.2f} s |", flush=True)
