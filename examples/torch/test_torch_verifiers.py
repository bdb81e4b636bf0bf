"""The engine's torch verifiers under tevsuite's pytest helpers: the correct ones pass, each planted
bug fails with tevsuite's description. Default budgets, family alpha 1e-3, fixed seed."""
import pytest

torch = pytest.importorskip("torch", reason="the torch example needs PyTorch (Debian: python3-torch)")

from tevsuite.testing import assert_exact_and_saturated, assert_model_exact  # noqa: E402
from torch_verifiers import chain_verifier, walk_verifier  # noqa: E402


def test_chain_rejection_sampler_is_exact():
    assert_model_exact(verify_batch=chain_verifier())


def test_chain_rejection_sampler_bug_is_caught():
    with pytest.raises(AssertionError, match=r"(?s)overall: not exact.*first failing case"):
        assert_model_exact(verify_batch=chain_verifier(bug="bonus_from_p"))


def test_tree_walk_is_exact_and_saturated():
    assert_exact_and_saturated(verify_batch=walk_verifier())


def test_tree_walk_bug_is_caught():
    with pytest.raises(AssertionError, match=r"(?s)overall: not exact.*first failing case: c\d"):
        assert_exact_and_saturated(verify_batch=walk_verifier(bug="full_row_bonus"))
