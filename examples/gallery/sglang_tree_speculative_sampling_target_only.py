"""SGLang's target-only tree speculative sampling, written from its algorithm.

Engine: SGLang (sgl-project/sglang). Kernel: ``sgl-kernel/csrc/speculative/speculative_sampling.cuh``
``TreeSpeculativeSamplingTargetOnly`` (lines 39-162: the walk 72-97, the final sampling 100-160; Python wrapper ``tree_speculative_sampling_target_only`` in
``sgl-kernel/python/sgl_kernel/speculative.py``), commit b227f632. Caller:
``python/sglang/srt/speculative/eagle_info.py`` ``EagleVerifyInput.verify``, commit 0007d13b (not
in the copy read; its lines below are those of f1f60ea0): target probs = softmax(logits /
temperature) (lines 304-306), then top-k renormalization (307-312), then top-p renormalization
where a request's top-p < 1 (313-319); min-p is not applied there; greedy requests arrive as
top-k 1 (SGLang's sampling parameters normalize temperature 0 so).

Per request, level by level from the root: the parent's coin u (one per node), the parent's
target row; walk its children in sibling order summing p(child); accept the first child with
u <= sum / threshold_acc or p(child) >= threshold_single; a rejected child's p is copied into the
(zero-filled) draft_probs scratch row of the parent. Where no child is accepted, or the tree ends,
the final token is drawn by inverse CDF with the final coin from max(p - scratch, 0) of the last
accepted node. Outputs: predicts[flat id of a node] = the token after it, accept_index [B, L] the
accepted nodes' flat ids from the root, accept_token_num [B].
"""
import numpy as np
import torch

import offers
from tevsuite import GREEDY_TEMPERATURE


def tree_speculative_sampling_target_only(predicts, accept_index, accept_token_num, candidates, retrive_index, retrive_next_token,
                                          retrive_next_sibling, uniform_samples, uniform_samples_for_final_sampling, target_probs,
                                          draft_probs, threshold_single=1.0, threshold_acc=1.0, deterministic=True):
    """candidates, retrive_index, retrive_next_token, retrive_next_sibling [B, N]; uniform_samples
    [B, N]; uniform_samples_for_final_sampling [B]; target_probs, draft_probs [B, N, V]. Writes
    predicts [B * N], accept_index [B, L], accept_token_num [B]."""
    b, n = candidates.shape
    device = candidates.device
    rows = torch.arange(b, device=device)
    threshold_acc = max(threshold_acc, 1e-9)
    steps = accept_index.shape[1]
    parent = torch.zeros(b, dtype=torch.int64, device=device)  # local index of the last accepted node
    accept_index[:, 0] = retrive_index[:, 0].to(accept_index.dtype)
    count = torch.zeros(b, dtype=torch.int64, device=device)
    walking = torch.ones(b, dtype=torch.bool, device=device)
    for _ in range(1, steps):
        child = torch.where(walking, retrive_next_token[rows, parent], -1)
        coin = uniform_samples[rows, parent]
        total = torch.zeros(b, dtype=torch.float32, device=device)
        accepted_child = torch.full((b,), -1, dtype=torch.int64, device=device)
        while bool((child >= 0).any()):
            live = child >= 0
            at = child.clamp(min=0)
            token = candidates[rows, at]
            p_child = target_probs[rows, parent, token]
            total = total + torch.where(live, p_child, 0.0)
            take = live & ((coin <= total / threshold_acc) | (p_child >= threshold_single))
            accepted_child = torch.where(take, at, accepted_child)
            rejected = live & ~take
            draft_probs[rows[rejected], parent[rejected], token[rejected]] = target_probs[rows[rejected], parent[rejected], token[rejected]]
            child = torch.where(rejected, retrive_next_sibling[rows, at], -1)
        moved = accepted_child >= 0
        moved_rows = rows[moved]
        predicts[retrive_index[moved_rows, parent[moved]]] = candidates[moved_rows, accepted_child[moved]].to(predicts.dtype)
        count = count + moved.long()
        accept_index[moved_rows, count[moved]] = retrive_index[moved_rows, accepted_child[moved]].to(accept_index.dtype)
        parent = torch.where(moved, accepted_child, parent)
        walking = moved
        if not bool(walking.any()):
            break
    accept_token_num.copy_(count.to(accept_token_num.dtype))
    residual = (target_probs[rows, parent] - draft_probs[rows, parent]).clamp(min=0.0)
    cdf = residual.cumsum(dim=1)
    x = uniform_samples_for_final_sampling * cdf[:, -1]
    token = (cdf <= x.unsqueeze(1)).sum(dim=1)  # the first token whose cumulative mass passes x
    last_valid = residual.shape[1] - 1 - (residual > 0).flip(1).int().argmax(1)
    token = torch.where(token >= residual.shape[1], last_valid, token)
    predicts[retrive_index[rows, parent]] = token.to(predicts.dtype)


def top_k_renorm_prob(probs, top_k):
    """Keeps each row's probabilities >= its k-th largest, renormalized; top_k [R]."""
    k = top_k.clamp(max=probs.shape[1]).to(torch.int64)
    kth = probs.sort(dim=1, descending=True).values.gather(1, (k - 1).unsqueeze(1))
    kept = torch.where(probs >= kth, probs, 0.0)
    return kept / kept.sum(dim=1, keepdim=True)


def top_p_renorm_prob(probs, top_p):
    """Keeps each row's largest probabilities up to mass top_p (and ties of the last), renormalized."""
    ranked = probs.sort(dim=1, descending=True).values
    before = ranked.cumsum(dim=1) - ranked
    smallest_kept = torch.where(before < top_p.unsqueeze(1), ranked, float("inf")).min(dim=1, keepdim=True).values
    kept = torch.where(probs >= smallest_kept, probs, 0.0)
    return kept / kept.sum(dim=1, keepdim=True)


def verify_target_probs(logits, temperatures, top_ks, top_ps):
    """EagleVerifyInput.verify's target distribution: logits [B, N, V], per request temperatures
    [B, 1], top_ks [B], top_ps [B]."""
    b, n, v = logits.shape
    per_node = lambda x: torch.repeat_interleave(x, n, dim=0)  # noqa: E731
    probs = torch.softmax(logits.reshape(b * n, v) / per_node(temperatures), dim=-1)
    probs = top_k_renorm_prob(probs, per_node(top_ks))
    if not bool(torch.all(top_ps == 1.0)):
        probs = top_p_renorm_prob(probs, per_node(top_ps))
    return probs.reshape(b, n, v)


def sglang_verify(predicts, accept_index, accept_token_num, candidates, retrive_index, retrive_next_token, retrive_next_sibling,
                  uniform_samples, uniform_samples_for_final_sampling, target_logits, draft_probs, sampling_metadata):
    """The caller's processing then the kernel, on tevsuite's tree layout with logits: greedy
    requests as SGLang normalizes them (temperature 1, top-k 1), top-k off as 2**30."""
    s = sampling_metadata
    greedy = s.temperature == 0
    temperatures = torch.where(greedy, 1.0, s.temperature).unsqueeze(1)
    top_ks = torch.where(greedy, 1, torch.where(s.top_k == 0, 1 << 30, s.top_k))
    target_probs = verify_target_probs(target_logits, temperatures, top_ks, s.top_p)
    tree_speculative_sampling_target_only(predicts, accept_index, accept_token_num, candidates, retrive_index, retrive_next_token,
                                          retrive_next_sibling, uniform_samples, uniform_samples_for_final_sampling, target_probs, draft_probs)


def target_rows(case):
    """The rows the verify path samples a case with (its logits and parameters): (N, V)."""
    s = case.sampling
    greedy = s["temperature"] < GREEDY_TEMPERATURE
    logits = torch.tensor(np.asarray(case.logits)[None], dtype=torch.float64)
    rows = verify_target_probs(logits, torch.tensor([[1.0 if greedy else s["temperature"]]], dtype=torch.float64),
                               torch.tensor([1 if greedy else (s["top_k"] or 1 << 30)]),
                               torch.tensor([s["top_p"]], dtype=torch.float64))
    return rows[0].numpy()


ENGINE = "SGLang"
ROUTINE = "tree_speculative_sampling_target_only (+ EagleVerifyInput.verify's processing)"
SOURCE = ("sgl-project/sglang sgl-kernel/csrc/speculative/speculative_sampling.cuh:39-162 TreeSpeculativeSamplingTargetOnly; "
          "python/sglang/srt/speculative/eagle_info.py:299-320 EagleVerifyInput.verify (lines of f1f60ea0; the cited 0007d13b "
          "is not in the copy read)")
COMMIT = "b227f632"
STATED = "exact by design (thresholds 1, zeroed scratch)"
FILTERS = ("top_k", "top_p", "min_p")
ORDERS = ("top_p_full_and_top_k", "min_p_last")
OFFERS = ("temperature, top-k, top-p and min-p. SGLang's sampler on its default FlashInfer backend "
          "(python/sglang/srt/layers/sampler.py, Sampler.forward) takes top-p on the full row jointly with top-k "
          "(top_p_full_and_top_k) while no request of the batch has min-p > 0; with one (sampling_info.need_min_p_sampling, "
          "a greedy request's min-p included: greedy is top-k 1, its min-p kept) it applies top_k_renorm_prob, "
          "top_p_renorm_prob, then min-p to every request of the batch (min_p_last). A request is judged in the order its "
          "batch puts the sampler in.")
# the causes of not-exact requests: (upstream place, tracking, reproducer)
CAUSES = {
    "top_p_full_and_top_k": ("python/sglang/srt/speculative/eagle_info.py:307-319 EagleVerifyInput.verify (lines of f1f60ea0; "
                             "0007d13b not in the copy read): top_k_renorm_prob then top_p_renorm_prob, top-p on the top-k "
                             "survivors renormalized, where SGLang's sampler in a batch without min-p takes top-p on the full "
                             "row", "not reported",
                             "examples/gallery/findings/sglang_top_p_after_top_k.py"),
    "min_p": ("python/sglang/srt/speculative/eagle_info.py:299-320 EagleVerifyInput.verify (lines of f1f60ea0; 0007d13b not in "
              "the copy read): softmax, top-k and top-p renormalization, no min-p on the verified rows, where SGLang's "
              "sampler applies it", "SGLang PR #36173 (min-p is not applied in speculative decoding)",
              "examples/gallery/findings/sglang_min_p.py"),
}
FINDINGS = ("the verify path (python/sglang/srt/speculative/eagle_info.py:299-320, EagleVerifyInput.verify, lines of f1f60ea0) applies temperature, top-k and top-p to the target rows, "
            "top-p after top-k's renormalization, and no min-p. Against SGLang's own sampler: a request with min-p is "
            "verified against rows without it, and in a batch without min-p a request with top-k and top-p is verified "
            "against another cut than the sampler's (top-p on the full row).")


def engine_order(request, batch):
    """SGLang's sampler's order for a request verified with `batch` (offers.py)."""
    order = "min_p_last" if any(r["min_p"] > 0 for r in batch) else "top_p_full_and_top_k"
    return offers.engine_order(request, order, FILTERS, ORDERS)


def sampler_mode(batch, ids):
    """Which order SGLang's sampler is in for a batch (its requests' sampling dicts and ids), and why."""
    with_min_p = [i for r, i in zip(batch, ids) if r["min_p"] > 0]
    if with_min_p:
        return f"min-p requested ({', '.join(with_min_p)}): top-k, top-p, then min-p (min_p_last) for every request"
    return "no min-p: top-p on the full row with top-k (top_p_full_and_top_k)"


def cause(request, order):
    """The key of CAUSES that explains a not-exact request judged in `order`."""
    return "min_p" if "min_p" in offers.used(request) else order


def runs():
    from tevsuite import adapters
    probs = lambda **o: adapters.check_tree_sampler(tree_speculative_sampling_target_only, **o)  # noqa: E731
    logits = lambda **o: adapters.check_tree_sampler(sglang_verify, target="logits", engine_inputs=True,  # noqa: E731
                                                     engine_order=engine_order, **o)
    return {"default": lambda b: probs(**b["tree"]),
            "engine": lambda b: logits(**b["tree"]),
            "batch": lambda b: probs(batch_of_requests=True, **b["batch"]),
            "engine batch": lambda b: logits(batch_of_requests=True, **b["batch"])}
