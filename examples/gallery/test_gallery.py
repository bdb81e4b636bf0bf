"""Each gallery routine on hand-made inputs, against values its upstream's tests or documentation
state (derived below from what they document, not read off the routine), and the reproducers of
examples/gallery/findings against the routines they restate in numpy."""
import os
import random
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import offers  # noqa: E402
import tevsuite  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FINDINGS = os.path.join(HERE, "findings")
sys.path.insert(0, FINDINGS)

import eagle_batched_evaluate_posterior as eagle_batched  # noqa: E402
import eagle_evaluate_posterior as eagle  # noqa: E402
import flashinfer_chain_speculative_sampling as flashinfer  # noqa: E402
import hf_speculative_sampling as hf  # noqa: E402
import llamacpp_sample_and_accept_n as llamacpp  # noqa: E402
import llamacpp_speculative_example as llamacpp_example  # noqa: E402
import medusa_evaluate_posterior as medusa  # noqa: E402
import medusa_nucleus_posterior as medusa_nucleus  # noqa: E402
import sglang_tree_speculative_sampling_target_only as sglang  # noqa: E402
import sglang_verify_tree_greedy as sglang_greedy  # noqa: E402
import trtllm_accept_draft_tokens_by_ids_with_paths as trtllm  # noqa: E402
import vllm_rejection_sample as vllm  # noqa: E402
import vllm_rejection_sampler_forward as vllm_forward  # noqa: E402
import vllm_tree_rejection_sampler as vllm_tree  # noqa: E402

V = 6


def one_hot(tokens, vocab=V):
    """Rows [len(tokens), vocab] with all mass on each token."""
    rows = torch.zeros(len(tokens), vocab)
    rows[torch.arange(len(tokens)), torch.tensor(tokens)] = 1.0
    return rows


def greedy_metadata(batch):
    return SimpleNamespace(all_greedy=True, all_random=False, temperature=torch.full((batch,), float(vllm.GREEDY_TEMPERATURE)),
                           generators={}, top_k=None, top_p=None)


@pytest.mark.parametrize("target, expected", [([1, 2, 3], [1, 2, 3, 4]),             # every draft matches: the bonus follows
                                              ([1, 5, 3], [1, 5, -1, -1])])          # a mismatch: the target's token, then stop
def test_vllm_greedy_rows_follow_upstream_perfect_match_and_early_mismatch(target, expected):
    # vLLM's tests/v1/sample/test_rejection_sampler.py: drafts [1, 2, 3] and bonus 4.
    out = vllm.rejection_sample(torch.tensor([1, 2, 3]), [3], 3, torch.tensor([3]), None, one_hot(target), torch.tensor([[4]]),
                                greedy_metadata(1))
    assert out.tolist() == [expected]


def test_vllm_random_rows_accept_a_draft_the_target_holds_surely():
    # p(x) / q(x) >= u for p(x) = q(x) = 1: accepted whatever the uniform; then the bonus.
    metadata = SimpleNamespace(all_greedy=False, all_random=True, temperature=torch.ones(1), generators={}, top_k=None, top_p=None)
    out = vllm.rejection_sample(torch.tensor([2, 3]), [2], 2, torch.tensor([2]), one_hot([2, 3]), one_hot([2, 3]), torch.tensor([[5]]),
                                metadata)
    assert out.tolist() == [[2, 3, 5]]


def test_vllm_compute_probs_applies_top_k_and_top_p_not_min_p():
    # compute_probs: logits / T, top-k, top-p; a min-p request's rows keep their tail (the finding).
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.12, 0.05, 0.03]]))
    metadata = SimpleNamespace(all_greedy=False, temperature=torch.ones(1), top_k=torch.tensor([2]), top_p=None)
    assert torch.allclose(vllm_forward.compute_probs(logits, torch.tensor([1]), metadata), torch.tensor([[0.625, 0.375, 0, 0, 0]]))


def test_flashinfer_accepts_every_draft_when_draft_and_target_agree():
    # FlashInfer's documented contract: with q = p every draft is accepted (u q(x) < p(x) for u < 1),
    # then the bonus from the last target row.
    q = one_hot([1, 4]).unsqueeze(0)
    p = one_hot([1, 4, 2]).unsqueeze(0)
    out, accepted, emitted = flashinfer.chain_speculative_sampling(q, torch.tensor([[1, 4]]), p, generator=torch.Generator().manual_seed(0))
    assert out.tolist() == [[1, 4, 2]] and accepted.tolist() == [2] and emitted.tolist() == [2]


def test_hf_speculative_sampling_matches_upstream_test():
    # transformers' tests/generation/test_utils.py test_speculative_sampling: candidates 1, 4, 5 with
    # the assistant sure of each; the target sure of 1, 4 and then 8: two matches, then 8 drawn from
    # max(p - q, 0), which holds token 8 alone.
    candidate_input_ids = torch.tensor([[8, 0, 3, 9, 8, 1, 4, 5]])
    candidate_logits = torch.full((1, 3, 10), -float("inf"))
    candidate_logits[0, [0, 1, 2], [1, 4, 5]] = 10.0
    new_logits = torch.full((1, 4, 10), -float("inf"))
    new_logits[0, [0, 1, 2, 3], [1, 4, 8, 8]] = 10.0
    valid, n_matches = hf._speculative_sampling(candidate_input_ids, candidate_logits, 3, new_logits, False)
    assert n_matches == 2 and valid.tolist() == [[1, 4, 8]]


def test_llamacpp_stops_after_the_first_sample_that_differs_from_the_draft():
    # common_sampler_sample_and_accept_n's contract: the samples up to and including the first
    # that differs; greedy rows make the samples the argmaxes.
    sampler = llamacpp.CommonSampler(seed=0, temperature=0.0)
    rows = np.log(one_hot([3, 1, 2]).numpy() + 1e-9)
    assert llamacpp.common_sampler_sample_and_accept_n(sampler, llamacpp.Context(rows), [0, 1, 2], [3, 4]) == [3, 1]
    sampler = llamacpp.CommonSampler(seed=0, temperature=0.0)
    assert llamacpp.common_sampler_sample_and_accept_n(sampler, llamacpp.Context(rows), [0, 1, 2], [3, 1]) == [3, 1, 2]


def one_draft_pair(p_row, q_row):
    """A model case of depth 1 with the same target row after every prefix: id, depth, vocab, p, q."""
    return SimpleNamespace(id="pair", depth=1, vocab=len(p_row), p=lambda prefix: np.asarray(p_row), q=lambda prefix: np.asarray(q_row))


def test_llamacpp_example_drafts_the_argmax_of_q():
    # examples/speculative/speculative.cpp:552: the drafted token is cur_p->data[0], the draft's
    # most probable candidate. With q = p every draft is accepted (r <= p / q = 1), so the first
    # emitted token is always p's argmax: TV 1 - 0.5 from p.
    p = [0.50, 0.30, 0.12, 0.05, 0.03]
    case = one_draft_pair(p, p)
    assert llamacpp_example.SingleSequence().chain(case)[0] == [0]
    accepted, bonus = llamacpp_example.SingleSequence()(case, SimpleNamespace(uniform=lambda: 0.999))
    assert accepted == [0] and 0 <= bonus < 5
    assert llamacpp_example.exact_tv(case) == pytest.approx(0.5)


def test_llamacpp_example_exact_tv_of_one_rejection():
    # q = (0.6, 0.2, 0.1, 0.05, 0.05), p = (0.5, 0.3, 0.12, 0.05, 0.03): the draft 0 is kept with
    # 0.5 / 0.6 = 5/6; else the residual (0, 0.1, 0.02, 0, 0) / 0.12 gives 1 with 5/36 and 2 with
    # 1/36. First-token TV from p: (1/3 + 0.1611 + 0.0922 + 0.05 + 0.03) / 2 = 1/3; the bonus after
    # an accepted draft is p's own continuation.
    case = one_draft_pair([0.50, 0.30, 0.12, 0.05, 0.03], [0.60, 0.20, 0.10, 0.05, 0.05])
    assert llamacpp_example.exact_tv(case) == pytest.approx(1 / 3)
    routine, target = llamacpp_example.exact_laws(case)
    assert routine.sum() == pytest.approx(1.0) and target.sum() == pytest.approx(1.0)


def paths_inputs():
    """Two root-to-leaf paths, root -> 2 -> 3 and root -> 4: candidates [P, D] and the rows along them."""
    candidates = torch.tensor([[0, 2, 3], [0, 4, -1]])
    return candidates


def test_medusa_uses_its_callers_values_and_takes_the_argmax_next_token():
    # medusa_generate's values (medusa_model.py:244-249): threshold 0.09, alpha 0.3, fast=True.
    # Root row (0.05, 0.05, 0.6, 0.1, 0.1, 0.1): H = 1.297, threshold min(0.09, 0.3 exp(-H) = 0.082):
    # drafts 2 (0.6) and 4 (0.1) pass. At node 2 the row (0.01, 0.01, 0.01, 0.07, 0.01, 0.89):
    # H = 0.474, threshold min(0.09, 0.187) = 0.09, so draft 3 (0.07) fails; under the keyword
    # defaults (0.3, 0.09) its threshold is 0.056 and it would pass. Both paths accept one draft,
    # the likelier (0.6) wins; the next token is node 2's argmax, 5.
    root = torch.tensor([0.05, 0.05, 0.6, 0.1, 0.1, 0.1])
    at_2 = torch.tensor([0.01, 0.01, 0.01, 0.07, 0.01, 0.89])
    logits = torch.log(torch.stack([torch.stack([root, at_2, at_2])] * 2))
    best, length, token = medusa.medusa_step(logits, paths_inputs())
    assert (int(best), int(length), int(token)) == (0, 1, 5)
    assert int(medusa.evaluate_posterior(logits, paths_inputs(), 1.0)[1]) == 2  # the keyword defaults


def test_medusa_exact_tv_is_that_of_its_one_block():
    # On a root with drafted children 0 and 1, and p = (0.5, 0.3, 0.12, 0.05, 0.03) everywhere,
    # medusa_step accepts 0 (p 0.5 passes, the likelier) and says 0 after it: TV 1 - 0.5 * 0.5.
    probs = np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3)
    case = SimpleNamespace(probs=probs, parents=np.array([-1, 0, 0]), tokens=np.array([-1, 0, 1]), nodes=3, vocab=5)
    assert medusa.exact_tv(case) == pytest.approx(0.75)


def test_eagle_greedy_takes_the_longest_matching_path():
    # evaluate_posterior without a processor: the longest path whose drafts equal the target argmax.
    root = one_hot([4]).squeeze(0)
    logits = torch.log(torch.stack([torch.stack([one_hot([2])[0], one_hot([3])[0], root]), torch.stack([root, root, root])]) + 1e-9)
    best, length, _ = eagle.evaluate_posterior(logits, paths_inputs(), None)
    assert (int(best), length) == (0, 2)


def test_eagle_batched_stores_each_draws_conditional_probability():
    # EAGLEModel.sample: q(x_r) / (1 - the earlier draws' mass), 0 where that is 0 / 0 (a token of
    # zero mass, drawn once the others are): q = (0.5, 0.3, 0.2, 0) drawn in id order.
    uniforms = iter([0.1, 0.1, 0.1])
    tokens, stored = eagle_batched.draw_without_replacement([0.5, 0.3, 0.2, 0.0], 4, lambda: next(uniforms))
    assert tokens == [0, 1, 2, 3] and stored == pytest.approx([0.5, 0.6, 1.0, 0.0])


def test_eagle_batched_tree_is_the_tree_structure_in_retrieve_order():
    # generate_tree_buffers at depth 2: nodes by (length, choice), paths in the order of their node
    # ids, each node's earlier siblings the draws its rejection zeroes.
    parents, ranks, paths, siblings = eagle_batched.tree_buffers(2)
    assert parents[1:5] == [0] * 4 and ranks[5:8] == [0, 1, 2]
    assert paths == [[0, 1, 5], [0, 1, 6], [0, 1, 7], [0, 2, 8], [0, 2, 9], [0, 3, 10], [0, 3, 11], [0, 4, 12]]
    assert siblings[7] == [5, 6] and siblings[4] == [1, 2, 3] and siblings[1] == []


@pytest.mark.parametrize("target, expected", [([0.0, 0.0, 1.0], (1, 1)),   # the residual holds the second child surely
                                              ([1.0, 0.0, 0.0], (0, 0))])  # both children rejected: the residual, the root's p
def test_eagle_batched_rejects_into_the_residual_without_replacement(target, expected):
    # Recursive rejection sampling without replacement, one request, children 1 and 2 drawn from
    # q = (0, 0.5, 0.5): child 1 (stored 0.5) is rejected where p(1) = 0, p' = norm(max(p - q, 0));
    # child 2 (stored 0.5 / (1 - 0.5) = 1) against q'' = q without child 1, norm(0, 0, 1).
    with np.errstate(divide="ignore"):
        root = torch.tensor(np.log(target))
    after = torch.log(torch.tensor([0.2, 0.3, 0.5], dtype=torch.float64))
    logits = torch.stack([torch.stack([root, after]), torch.stack([root, after])])[None]
    candidates = torch.tensor([[[0, 1], [0, 2]]])
    cart = torch.tensor([[[1.0, 0.5], [1.0, 1.0]]])
    op = [[torch.tensor([[0.0, 0.5, 0.5]])]]
    random.seed(0)
    best, length, sample_p = eagle_batched.evaluate_posterior(logits, candidates, lambda ids, scores: scores, cart, op, [[-1, 0], [-1, 0]],
                                                              torch.tensor([[0, 1, 2]]), [[[], []], [[], torch.tensor([1])]], [False])
    assert (best[0], length[0]) == expected
    assert np.allclose(sample_p[0].numpy(), [0.2, 0.3, 0.5] if expected[1] else target)


def test_sglang_accepts_drafts_the_target_holds_surely_and_samples_after_them():
    # At thresholds 1 a child is accepted when u <= p(child): p = 1 accepts it; the final token
    # comes from the last accepted node's row.
    parents, tokens = np.array([-1, 0, 1]), np.array([-1, 2, 3])
    candidates, first, sibling = (torch.tensor(a)[None] for a in tevsuite.adapters.tree_layout(parents, tokens))
    target = one_hot([2, 3, 5]).unsqueeze(0)
    predicts, accept_index, count = torch.full((3,), -1), torch.full((1, 3), -1), torch.zeros(1, dtype=torch.int64)
    sglang.tree_speculative_sampling_target_only(predicts, accept_index, count, candidates, torch.arange(3)[None], first, sibling,
                                                 torch.rand(1, 3), torch.rand(1), target, torch.zeros_like(target))
    assert count.tolist() == [2] and accept_index.tolist() == [[0, 1, 2]] and predicts.tolist() == [2, 3, 5]


def test_trtllm_accepts_the_longest_path_whose_drafts_match_the_targets():
    # acceptDraftTokensByIdsWithPaths: node 1 (token 2) matches the root's target 2, node 2 (token
    # 3) does not match node 1's target 5: accepted length 2 (one draft and the token after it).
    paths = torch.tensor([[[0, 1, 2]]])
    output, lengths, best = trtllm.accept_draft_tokens_by_ids_with_paths(torch.tensor([[2, 3]]), torch.tensor([[2, 5, 1]]), paths,
                                                                          torch.tensor([-1]))
    assert output.tolist() == [[2, 5, -1]] and lengths.tolist() == [2] and best.tolist() == [0]


def two_level_tree():
    """A root with children 2 (node 1) and 3 (node 2), node 1 with child 4 (node 3): the flattened
    layout [1, N] (candidates, first child, next sibling) and the root-to-leaf paths [1, P, L]."""
    parents, tokens = np.array([-1, 0, 0, 1]), np.array([-1, 2, 3, 4])
    candidates, first, sibling = (torch.tensor(a)[None] for a in tevsuite.adapters.tree_layout(parents, tokens))
    return parents, tokens, candidates, first, sibling, torch.tensor(tevsuite.adapters.root_paths(parents))[None]


def test_vllm_tree_accepts_the_argmax_path_and_draws_the_bonus_there():
    # rejection_sample (tree_rejection_sampler.py:224-233): a draft is accepted iff it is its
    # parent's argmax; the bonus comes from the last accepted node's row (:181-188). The root's
    # argmax is 3 (node 2, a leaf), though 2 (node 1) leads to a deeper path: node 2 is taken, and
    # the bonus is drawn from node 2's row, one-hot at 5.
    _, _, candidates, _, _, paths = two_level_tree()
    probs = torch.tensor([[0, 0, 0.3, 0.7, 0, 0], [0, 0, 0, 0, 1.0, 0], [0, 0, 0, 0, 0, 1.0], [1.0, 0, 0, 0, 0, 0]])[None]
    nodes, bonus = vllm_tree.tree_rejection_sample(candidates, paths, probs, torch.Generator().manual_seed(0))
    assert nodes.tolist()[0][:2] == [0, 2] and bonus.tolist() == [5]


def test_vllm_tree_is_exact_for_one_hot_rows_and_not_for_sampling_rows():
    # Greedy requests (one-hot rows) are exact; a sampling request's argmax child is taken surely:
    # on a root whose argmax child has p 0.5 and whose other child has p 0.3, below which p is
    # again (0.5, 0.3, 0.12, 0.05, 0.03), the law moves 0.5 of mass: TV 0.5 (law.py's tree).
    parents, tokens = np.array([-1, 0, 0], dtype=np.int32), np.array([-1, 0, 1], dtype=np.int32)
    one_hot_rows = np.eye(5)[[0, 3, 4]]
    assert vllm_tree.exact_tv(tevsuite.TreeCase(parents, tokens, one_hot_rows)) == pytest.approx(0.0, abs=1e-12)
    rows = np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3)
    assert vllm_tree.exact_tv(tevsuite.TreeCase(parents, tokens, rows)) == pytest.approx(0.5)


def test_sglang_verify_tree_greedy_follows_the_sibling_equal_to_the_target():
    # VerifyTreeGreedy (eagle_utils.cu:271-313): the root's children in sibling order; the one
    # equal to the root's target token (3, node 2) is accepted; node 2 has no child, so the token
    # after it is its own target, 5.
    _, _, candidates, first, sibling, _ = two_level_tree()
    target = torch.tensor([[3, 4, 5, 0]])
    predicts, accept_index, count = torch.full((4,), -1), torch.full((1, 3), -1), torch.zeros(1, dtype=torch.int64)
    sglang_greedy.verify_tree_greedy(predicts, accept_index, count, candidates, torch.arange(4)[None], first, sibling, target)
    assert count.tolist() == [1] and accept_index.tolist() == [[0, 2, -1]] and predicts[[0, 2]].tolist() == [3, 5]


def test_medusa_nucleus_law_counts_each_path_once():
    # get_nucleus_posterior_mask draws every (path, position) independently (utils.py:397-400):
    # on law.py's tree with p = (0.5, 0.3, 0.12, 0.05, 0.03) everywhere, path 0 (token 0) is
    # accepted with 0.5, else path 1 (token 1) with 0.5 * 0.3, else none (0.35, a root draw after).
    # The root's draw after none names token 0 or 1 with 0.35 * 0.8, completed below those
    # children; against the canonical law (0.5, 0.3 and 0.2 at the root) TV is
    # (0.175 + 0.045 + 0.13) / 2 = 0.175.
    probs = np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3)
    case = SimpleNamespace(probs=probs, parents=np.array([-1, 0, 0]), tokens=np.array([-1, 0, 1]), nodes=3, vocab=5)
    law = medusa_nucleus.exact_law(case, probs)
    assert law.sum(axis=1) == pytest.approx([0.35, 0.5, 0.15])
    assert medusa_nucleus.exact_tv(case) == pytest.approx(0.175)


def test_medusa_nucleus_cut_keeps_the_token_that_crosses_top_p():
    # get_nucleus_one_token (utils.py:213-224): sorted cumulative mass > top_p, shifted by one:
    # with p = (0.5, 0.3, 0.12, 0.08) and top-p 0.7, tokens 0 and 1 are kept (0.5 < 0.7 <= 0.8).
    rows = medusa_nucleus.nucleus_rows(np.array([[0.5, 0.3, 0.12, 0.08]]), top_p=0.7)
    assert np.allclose(rows, [[0.625, 0.375, 0, 0]])


@pytest.mark.parametrize("module, order", [(sglang, "top_p_full_and_top_k"), (sglang, "min_p_last"), (vllm_forward, "min_p_first")])
def test_target_rows_are_the_routines_own_processing(module, order):
    # target_rows (the exact TV's rows) against the routine's call: SGLang's verify_target_probs,
    # vLLM's compute_probs, on logits with a shift and a scale, top-k 2 and top-p 0.8.
    logits = 20 + 1.3 * np.log(np.array([[0.5, 0.2, 0.15, 0.1, 0.05]] * 2))
    case = SimpleNamespace(logits=logits, sampling=dict(temperature=1.3, top_k=2, top_p=0.8, min_p=0.0, order=order))
    rows = module.target_rows(case)
    assert np.allclose(rows, [[5 / 7, 2 / 7, 0, 0, 0]] * 2)


def test_engine_orders_follow_each_engines_sampler():
    greedy_with_min_p = dict(temperature=0.0, top_k=3, top_p=0.5, min_p=0.1, order="min_p_first")
    joint = dict(temperature=1.5, top_k=3, top_p=0.7, min_p=0.0, order="top_p_full_and_top_k")
    # SGLang: a min-p request in the batch (a greedy one's counts) moves every request to min_p_last.
    assert sglang.engine_order(joint, [joint]) == "top_p_full_and_top_k"
    assert sglang.engine_order(joint, [joint, greedy_with_min_p]) == "min_p_last"
    # vLLM: min_p_first only, and no min-p (a min-p request gets no drafts); a greedy request's
    # min-p moves nothing. EAGLE: no min-p, top-p on the full row.
    assert vllm_forward.engine_order(joint, [joint]) is None and vllm_forward.engine_order(greedy_with_min_p, []) == "min_p_first"
    assert vllm_forward.engine_order(dict(joint, top_p=1.0, min_p=0.05), []) is None
    assert eagle.engine_order(joint, [joint]) == "top_p_full_and_top_k"
    assert eagle.engine_order(dict(joint, min_p=0.05), []) is None


@pytest.mark.parametrize("script", sorted(f for f in os.listdir(FINDINGS) if f.endswith(".py") and f != "law.py"))
def test_each_finding_reproduces(script):
    run = subprocess.run([sys.executable, os.path.join(FINDINGS, script)], capture_output=True, text=True)
    assert run.returncode == 0 and "reproduced" in run.stdout, run.stdout + run.stderr


def test_reproducers_restate_the_routines():
    # The numpy restatements in findings/ against the gallery's torch routines on their inputs.
    import sglang_min_p
    import sglang_top_p_after_top_k
    import trtllm_typical
    logits = sglang_top_p_after_top_k.LOGITS
    case = SimpleNamespace(logits=logits, sampling=dict(sglang_top_p_after_top_k.SAMPLING, min_p=0.0, order="top_p_full_and_top_k"))
    assert np.allclose(sglang_top_p_after_top_k.verified_rows(logits, 1.0, 2, 0.7), sglang.target_rows(case))
    case = SimpleNamespace(logits=sglang_min_p.LOGITS, sampling=dict(sglang_min_p.SAMPLING, top_k=0, order="min_p_last"))
    assert np.allclose(sglang_min_p.verified_rows(sglang_min_p.LOGITS, 1.0, 0.95), sglang.target_rows(case))
    assert np.allclose(trtllm_typical.truncated_rows(trtllm_typical.PROBS), trtllm.target_rows(SimpleNamespace(probs=trtllm_typical.PROBS)))
    assert offers.used(dict(temperature=1.0, top_k=0, top_p=1.0, min_p=0.1, order="min_p_first")) == {"min_p"}
    import llamacpp_argmax_drafts
    import medusa_nucleus as medusa_nucleus_finding
    import sglang_greedy_fallback
    import vllm_tree_argmax
    from law import PARENTS, TOKENS
    for finding in (vllm_tree_argmax, sglang_greedy_fallback, medusa_nucleus_finding):
        assert np.allclose(finding.PROBS, [[0.50, 0.30, 0.12, 0.05, 0.03]] * 3)
    shared = SimpleNamespace(probs=vllm_tree_argmax.PROBS, parents=PARENTS, tokens=TOKENS, nodes=3, vocab=5)
    tree_case = tevsuite.TreeCase(PARENTS, TOKENS, vllm_tree_argmax.PROBS)
    from law import exact_tv as finding_tv
    rows = shared.probs
    assert finding_tv(lambda c, d: vllm_tree_argmax.vllm_tree_round(rows, d), rows) == pytest.approx(vllm_tree.exact_tv(tree_case))
    assert finding_tv(lambda c, d: sglang_greedy_fallback.greedy_round(rows), rows) == pytest.approx(
        offers.walk_tv(shared, sglang_greedy.target_rows(shared), rows))
    assert finding_tv(lambda c, d: medusa_nucleus_finding.nucleus_round(rows, d), rows) == pytest.approx(medusa_nucleus.exact_tv(shared))
    pair = one_draft_pair(llamacpp_argmax_drafts.P, llamacpp_argmax_drafts.Q)
    assert llamacpp_argmax_drafts.exact_tv() == pytest.approx(llamacpp_example.exact_tv(pair))
