"""The engine's torch verifiers under tevsuite's pytest plugin: the correct ones pass, each planted
bug fails with tevsuite's description. The budget and seed are the command line's
(--tevsuite-budget, --tevsuite-seed; by default the default budgets and seed), family alpha 1e-3."""
import pytest

torch = pytest.importorskip("torch", reason="the torch example needs PyTorch (Debian: python3-torch)")

from torch_verifiers import ORDERS, apply_sampling_params, chain_verifier, walk_verifier  # noqa: E402


def test_chain_rejection_sampler_is_exact(tevsuite_check):
    tevsuite_check.assert_model_exact(verify_batch=chain_verifier())


def test_chain_rejection_sampler_bug_is_caught(tevsuite_check):
    with pytest.raises(AssertionError, match=r"(?s)overall: not exact.*first failing case"):
        tevsuite_check.assert_model_exact(verify_batch=chain_verifier(bug="bonus_from_p"))


def test_tree_walk_is_exact_and_saturated(tevsuite_check):
    tevsuite_check.assert_exact_and_saturated(verify_batch=walk_verifier())


def test_tree_walk_bug_is_caught(tevsuite_check):
    with pytest.raises(AssertionError, match=r"(?s)overall: not exact.*first failing case: c\d"):
        tevsuite_check.assert_exact_and_saturated(verify_batch=walk_verifier(bug="full_row_bonus"))


# --- engine-shaped cases: logits and each request's sampling parameters ---

def test_batched_processing_matches_tevsuite_reference_per_request():
    # One call over rows of different requests, each with its own parameters, against tevsuite's
    # reference row by row.
    import numpy as np
    import tevsuite
    requests = [dict(temperature=0.7, top_k=0, top_p=1.0, min_p=0.0, order="min_p_first"),
                dict(temperature=1.0, top_k=3, top_p=1.0, min_p=0.0, order="min_p_first"),
                dict(temperature=1.3, top_k=0, top_p=0.6, min_p=0.0, order="min_p_first"),
                dict(temperature=1.0, top_k=0, top_p=0.8, min_p=0.2, order="min_p_first"),
                dict(temperature=1.0, top_k=0, top_p=0.8, min_p=0.2, order="min_p_last"),
                dict(temperature=1.0, top_k=3, top_p=0.6, min_p=0.05, order="top_p_full_and_top_k"),
                dict(temperature=0.0, top_k=5, top_p=0.9, min_p=0.1, order="min_p_first"),
                dict(temperature=5e-6, top_k=0, top_p=1.0, min_p=0.0, order="min_p_first")]
    # float32 values, as an engine holds them (tevsuite reads logits as float32)
    logits = np.random.default_rng(20261203).normal(0.0, 2.0, size=(len(requests), 32)).astype(np.float32).astype(np.float64)
    column = {name: torch.tensor([r[name] for r in requests], dtype=torch.float64) for name in ("temperature", "top_p", "min_p")}
    mine = apply_sampling_params(torch.tensor(logits), column["temperature"], torch.tensor([r["top_k"] for r in requests]), column["top_p"],
                                 column["min_p"], torch.tensor([ORDERS.index(r["order"]) for r in requests]))
    reference = np.stack([tevsuite.process_logits(row, **r) for row, r in zip(logits, requests)])
    assert np.abs(mine.numpy() - reference).max() < 1e-12


def test_tree_walk_on_engine_inputs_is_exact_and_saturated(tevsuite_check):
    tevsuite_check.assert_exact_and_saturated(verify_batch=walk_verifier(), engine_inputs=True)


def test_tree_walk_temperature_after_softmax_is_caught(tevsuite_check):
    with pytest.raises(AssertionError, match=r"(?s)overall: not exact.*first failing case: e\d"):
        tevsuite_check.assert_exact_and_saturated(verify_batch=walk_verifier(bug="temperature_after_softmax"), engine_inputs=True)


def test_chain_on_engine_inputs_is_exact(tevsuite_check):
    tevsuite_check.assert_model_exact(verify_batch=chain_verifier(), engine_inputs=True)


def test_chain_raw_q_ratio_is_caught(tevsuite_check):
    with pytest.raises(AssertionError, match=r"(?s)overall: not exact.*first failing case"):
        tevsuite_check.assert_model_exact(verify_batch=chain_verifier(bug="raw_q_ratio"), engine_inputs=True)
