"""The pytest helpers: they pass on an exact verifier and fail with describe()'s text on a bug and
on an inconclusive run."""
import numpy as np
import pytest

import tevsuite

from tevsuite.testing import BUDGETS, assert_exact, assert_exact_and_saturated, assert_generation_exact, assert_model_exact
from numpy_verifiers import root_bonus, root_bonus_batch, walk_batch
from test_check import p_row_bonus, q_row_bonus


def test_helpers_pass_on_exact_verifiers():
    assert_exact_and_saturated(verify_batch=walk_batch)
    assert_exact(verify_batch=root_bonus_batch)
    assert_model_exact(p_row_bonus)


def test_helpers_fail_with_the_first_failing_case():
    with pytest.raises(AssertionError, match=r"required to be exact and saturated\noverall: not exact"):
        assert_exact_and_saturated(verify_batch=lambda c, n, rng: walk_batch(c, n, rng, full_row_bonus=True))
    with pytest.raises(AssertionError, match="exact, not saturated"):
        assert_exact_and_saturated(verify_batch=root_bonus_batch)
    with pytest.raises(AssertionError, match="first failing case"):
        assert_model_exact(q_row_bonus)


def test_inconclusive_fails_and_every_failure_ends_with_the_call_that_reproduces_it():
    with pytest.raises(AssertionError, match=r"inconclusive: raise samples\)\nreproduce: tevsuite\.check_tree\(verify=numpy_verifiers\.root_bonus, "
                                             rf"samples=50, seed={tevsuite.DEFAULT_SEED}\)$"):
        assert_exact(root_bonus, samples=50)


def one_token(case, n, rng):
    """A generation loop that emits a single token 1 every time: never what plain generation emits."""
    return np.ones((n, 1), dtype=np.int64)


def test_the_generation_helper_fails_with_the_report_and_a_budgets_reproducing_call():
    samples = BUDGETS["quick"]["generation"]["samples"]
    with pytest.raises(AssertionError, match=r"^the loop is required to be exact\nnot exact: request 'stops_vllm': not exact.*"
                                             rf"\nreproduce: tevsuite\.check_generation\(loop_batch=test_testing\.one_token, samples={samples}, "
                                             rf"seed={tevsuite.DEFAULT_SEED}\)$"):
        assert_generation_exact(loop_batch=one_token, budget="quick")
    with pytest.raises(AssertionError, match=r"reproduce: tevsuite\.check_generation\(loop_batch=test_testing\.one_token, samples=100, seed=3\)$"):
        assert_generation_exact(loop_batch=one_token, budget="quick", samples=100, seed=3)  # options given win over the budget's
