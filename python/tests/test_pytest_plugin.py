"""The pytest plugin, run as a user runs it (a pytest of its own on a test file): the budgets and
the seed reach the checks, a failure ends with the call that reproduces it, and every check's
verdict, smallest Holm p and stated TV are the test's JUnit properties."""
import subprocess
import sys
import xml.etree.ElementTree as ET

import tevsuite
from tevsuite.testing import BUDGETS

USER_TESTS = '''
import numpy as np

def root_bonus(case, n, rng):  # exact, not saturated
    cdf = np.cumsum(case.probs[0])
    return np.full((n, 1), -1), np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), case.vocab - 1)

def uniform_bonus(case, n, rng):  # the bug: the bonus uniform over the vocabulary
    return np.full((n, 1), -1), rng.integers(0, case.vocab, n)

def test_options(tevsuite_options):
    print("OPTIONS", tevsuite_options.tree, tevsuite_options.model, tevsuite_options.generation)

def test_exact(tevsuite_check):
    tevsuite_check.assert_exact(verify_batch=root_bonus)

def test_bug(tevsuite_check):
    tevsuite_check.assert_exact(verify_batch=uniform_bonus)
'''


def run(tmp_path, *options):
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    junit = tmp_path / "junit.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "tevsuite.pytest_plugin", "-p", "no:cacheprovider", "-s", f"--junitxml={junit}",
                           *options, str(tmp_path / "test_user.py")], capture_output=True, text=True, cwd=tmp_path)
    return done, junit


def test_quick_budget_seed_reproduction_and_properties(tmp_path):
    done, junit = run(tmp_path, "--tevsuite-budget", "quick", "--tevsuite-seed", "7")
    assert done.returncode == 1, done.stdout + done.stderr  # test_bug fails, the others pass
    assert "2 passed" in done.stdout and "1 failed" in done.stdout, done.stdout
    assert f"tevsuite {tevsuite.__version__}: budget quick, seed 7" in done.stdout
    assert "OPTIONS {'cases': 4, 'samples': 40000, 'seed': 7} {'cases': 4, 'samples': 40000, 'seed': 7} {'samples': 40000, 'seed': 7}" in done.stdout
    failure = ET.parse(junit).find(".//testcase[@name='test_bug']/failure").attrib["message"]
    assert failure.endswith("\nreproduce: tevsuite.check_tree(verify_batch=test_user.uniform_bonus, cases=4, samples=40000, seed=7)"), failure
    properties = {p.attrib["name"]: p.attrib["value"] for p in ET.parse(junit).findall(".//testcase[@name='test_exact']/properties/property")}
    assert properties["tevsuite_verdict"] == "exact, not saturated"
    assert 0 < float(properties["tevsuite_smallest_p"]) <= 1 and 0 < float(properties["tevsuite_stated_tv"]) <= 0.05
    assert properties["tevsuite_call"].endswith("cases=4, samples=40000, seed=7)")


def test_a_budget_outside_the_choices_is_a_usage_error(tmp_path):
    done, _ = run(tmp_path, "--tevsuite-budget", "fast")
    assert done.returncode == 4 and "invalid choice: 'fast'" in done.stderr, done.stderr


def test_the_default_budget_is_the_checks_defaults():
    for check, kind in ((tevsuite.check_tree, "tree"), (tevsuite.check_model, "model")):
        assert {k: check.__kwdefaults__[k] for k in ("cases", "samples")} == BUDGETS["default"][kind]
    assert {"samples": tevsuite.check_generation.__kwdefaults__["samples"]} == BUDGETS["default"]["generation"]
