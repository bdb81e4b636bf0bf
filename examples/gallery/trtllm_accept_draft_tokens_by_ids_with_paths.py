"""TensorRT-LLM's tree acceptance by ids and paths (Medusa / EAGLE in its C++ runtime), written
from its algorithm, with two producers of the per-node target tokens.

Engine: TensorRT-LLM (NVIDIA/TensorRT-LLM),
``cpp/tensorrt_llm/kernels/speculativeDecoding/common.cu``: ``acceptDraftTokensByIdsWithPaths``
(the kernel, lines 120-251) and ``typicalAcceptanceSampling`` (346-457, with
``maskLogitsBasedOnEntropyKernel``, 272-317), commit 2a9abd95. One target token per tree node is produced
first; then for every path, walk from the root while the draft token at the child equals the
target token at its parent (and is not the end id); the longest path wins (the first on ties);
its target tokens are the output, the last one the token after the accepted path.
``typicalAcceptanceSampling`` produces the target tokens by sampling softmax(l / T) with the
tokens under min(threshold, alpha * exp(-H)) removed: not exact by design. One plain sample per
node from the processed target (the runtime's non-typical producer) makes the acceptance
target-only: exact.
"""
import numpy as np
import torch


def accept_draft_tokens_by_ids_with_paths(draft_ids, target_ids, paths, end_ids):
    """draft_ids [B, N - 1] (node i's token at i - 1), target_ids [B, N], paths [B, P, L] node ids
    (-1 padded), end_ids [B]. Returns (output_ids [B, L], accepted_lengths [B], best_path_ids [B]):
    accepted_lengths counts the output tokens, the accepted drafts and the token after them."""
    b, p, l = paths.shape
    rows = torch.arange(b, device=paths.device)[:, None, None]
    node = paths.clamp(min=0)
    draft_at = torch.cat([torch.full_like(draft_ids[:, :1], -1), draft_ids], dim=1)  # node 0 (the root) has no draft
    drafted = draft_at[rows, node[:, :, 1:]]                                        # [B, P, L - 1]
    target_at_parent = target_ids[rows, node[:, :, :-1]]
    match = (paths[:, :, 1:] >= 0) & (drafted == target_at_parent) & (drafted != end_ids[:, None, None])
    lengths = torch.cumprod(match.int(), dim=2).sum(dim=2)                          # [B, P]
    best = lengths.argmax(dim=1)                                                     # the first longest
    accepted = lengths.gather(1, best[:, None]).squeeze(1)
    best_nodes = node[torch.arange(b), best]                                         # [B, L]
    output_ids = target_ids.gather(1, best_nodes)
    output_ids = torch.where(torch.arange(l, device=paths.device) <= accepted[:, None], output_ids, -1)
    return output_ids, (accepted + 1).to(torch.int32), best.to(torch.int32)


def typical_acceptance_sampling(logits, temperature, posterior_threshold, posterior_alpha, generator=None):
    """typicalAcceptanceSampling's target tokens: logits [R, V] -> [R], one per node (greedy below
    temperature 1e-6)."""
    if temperature < 1e-6:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / temperature, dim=-1)
    entropy = -(probs * torch.log(probs.clamp(min=1e-38))).sum(dim=-1, keepdim=True)
    threshold = torch.minimum(torch.full_like(entropy, posterior_threshold), posterior_alpha * torch.exp(-entropy))
    kept = (logits / temperature).masked_fill(probs < threshold, float("-inf"))
    return torch.multinomial(torch.softmax(kept, dim=-1), 1, generator=generator).squeeze(-1)


def _tree_layout_outputs(candidates, retrive_index, target_ids, paths, predicts, accept_index, accept_token_num):
    """The acceptance's outputs in the flattened tree layout: accepted node ids and the target
    token after each (the runtime writes output ids; the adapter reads the SGLang layout)."""
    b, n = candidates.shape
    output_ids, accepted_lengths, best = accept_draft_tokens_by_ids_with_paths(
        candidates[:, 1:], target_ids, paths, torch.full((b,), -1, dtype=torch.int64, device=candidates.device))
    rows = torch.arange(b, device=candidates.device)
    nodes = paths[rows, best.long()].clamp(min=0)
    count = accepted_lengths.long() - 1
    keep = torch.arange(paths.shape[2], device=candidates.device) <= count[:, None]
    accept_index[:, :paths.shape[2]] = torch.where(keep, retrive_index.gather(1, nodes), -1).to(accept_index.dtype)
    accept_token_num.copy_(count.to(accept_token_num.dtype))
    predicts[retrive_index.reshape(-1)] = target_ids.reshape(-1).to(predicts.dtype)


def trtllm_sampled_paths(candidates, retrive_index, paths, target_probs, generator, predicts, accept_index, accept_token_num):
    """One plain sample per node from the processed target, then acceptance by ids and paths."""
    b, n, v = target_probs.shape
    target_ids = torch.multinomial(target_probs.reshape(b * n, v), 1, generator=generator).reshape(b, n)
    _tree_layout_outputs(candidates, retrive_index, target_ids, paths, predicts, accept_index, accept_token_num)


def trtllm_typical_paths(candidates, retrive_index, paths, target_logits, generator, predicts, accept_index, accept_token_num):
    """typicalAcceptanceSampling's target tokens (temperature 1, Medusa's threshold 0.3 and alpha
    0.09), then acceptance by ids and paths."""
    b, n, v = target_logits.shape
    target_ids = typical_acceptance_sampling(target_logits.reshape(b * n, v), 1.0, 0.3, 0.09, generator).reshape(b, n)
    _tree_layout_outputs(candidates, retrive_index, target_ids, paths, predicts, accept_index, accept_token_num)


ENGINE = "TensorRT-LLM"
ROUTINE = "acceptDraftTokensByIdsWithPaths"
SOURCE = ("NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/speculativeDecoding/common.cu:120-251 acceptDraftTokensByIdsWithPaths, "
          ":346-457 typicalAcceptanceSampling")
COMMIT = "2a9abd95"
STATED = "exact with one sample per node; not exact with typicalAcceptanceSampling"
FINDINGS = ("typicalAcceptanceSampling samples each node's target token from p truncated below min(threshold, alpha exp(-H)): "
            "the truncated target, not the target; not exact by design.")

CAUSES = {"design": ("cpp/tensorrt_llm/kernels/speculativeDecoding/common.cu:346-457 at 2a9abd95 (typicalAcceptanceSampling: softmax "
                     "with entropy, the mask, softmax again, one sample per node at top-p 1) and :312-316 "
                     "(maskLogitsBasedOnEntropyKernel: logits with p < min(threshold, alpha exp(-H)) set to -FLT_MAX)",
                     "not exact by design", "examples/gallery/findings/trtllm_typical.py")}


def target_rows(case):
    """The rows typicalAcceptanceSampling draws a case's target tokens from (its probs as the adapter's
    logits, log p; temperature 1, threshold 0.3, alpha 0.09): (N, V). Acceptance by ids is a walk
    over them: one token per node, the accepted path the one whose drafts match."""
    p = torch.tensor(np.asarray(case.probs), dtype=torch.float64)
    entropy = -(p * torch.log(p.clamp(min=1e-38))).sum(dim=-1, keepdim=True)
    kept = torch.where(p < torch.minimum(torch.full_like(entropy, 0.3), 0.09 * torch.exp(-entropy)), 0.0, p)
    return (kept / kept.sum(dim=-1, keepdim=True)).numpy()


def runs():
    from tevsuite import adapters
    return {"default (one sample per node)": lambda b: adapters.check_tree_sampler(trtllm_sampled_paths, randomness="generator", **b["tree"]),
            "batch (one sample per node)": lambda b: adapters.check_tree_sampler(trtllm_sampled_paths, randomness="generator",
                                                                                 batch_of_requests=True, **b["batch"]),
            "default (typicalAcceptanceSampling)": lambda b: adapters.check_tree_sampler(trtllm_typical_paths, target="logits",
                                                                                        randomness="generator", **b["tree"])}
