"""The pytest helpers: they pass on an exact verifier and fail with describe()'s text on a bug and
on an inconclusive run."""
import pytest

import tevsuite

from tevsuite.testing import assert_exact, assert_exact_and_saturated, assert_model_exact
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
