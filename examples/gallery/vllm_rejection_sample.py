"""vLLM V1's chain rejection sampler, written from its algorithm.

Engine: vLLM (vllm-project/vllm), ``vllm/v1/sample/rejection_sampler.py``, function
``rejection_sample`` (lines 121-218, with its Triton kernels ``rejection_greedy_sample_kernel``,
``rejection_random_sample_kernel`` and ``sample_recovered_tokens_kernel``), commit 0097a7bb.
Requests are flattened: draft_token_ids [T], cu_num_draft_tokens [B] (inclusive sums); the bonus
tokens [B, 1] come from vLLM's main sampler. Greedy rows (temperature -1 at this commit) write the
target argmax and stop after the first mismatch; random rows accept a draft x iff q(x) > 0 and
p(x) / q(x) >= u (q(x) = 1 without draft probs: n-gram, EAGLE, MTP), float32 uniforms from the
global generator (or a request's own); the recovered token at each position is argmax(residual /
E), E ~ Exp(1) one row per request, residual max(p - q, 0), or p with the draft removed.
"""
from types import SimpleNamespace

import torch

PLACEHOLDER_TOKEN_ID = -1
GREEDY_TEMPERATURE = -1


def _chains(draft_token_ids, num_draft_tokens, cu_num_draft_tokens, max_spec_len):
    """Flat index [B, max_spec_len] of each request's positions (clamped) and their validity."""
    device = draft_token_ids.device
    num = torch.tensor(num_draft_tokens, device=device)
    starts = cu_num_draft_tokens.to(torch.int64) - num
    column = torch.arange(max_spec_len, device=device)
    valid = column < num[:, None]
    index = (starts[:, None] + column).clamp(max=max(draft_token_ids.shape[0] - 1, 0))
    return index, valid, num


def _write(output, rows, draft, accept, replacement, bonus, valid, num):
    """Writes rows' outputs: drafts up to the first rejection, the replacement token there, or the
    bonus after a fully accepted chain. draft, accept, replacement [B, L]."""
    b, width = draft.shape
    rejected = ~accept & valid
    first = torch.where(rejected.any(1), rejected.int().argmax(1), num)  # [B]
    column = torch.arange(width, device=draft.device)
    keep = column < first[:, None]
    out = torch.full((b, width + 1), PLACEHOLDER_TOKEN_ID, dtype=torch.int32, device=draft.device)
    out[:, :width] = torch.where(keep, draft, PLACEHOLDER_TOKEN_ID).to(torch.int32)
    at = first.clamp(max=width - 1)
    last = torch.where(first < num, replacement.gather(1, at[:, None]).squeeze(1), bonus.squeeze(1))
    out[torch.arange(b, device=draft.device), first] = last.to(torch.int32)
    output[rows] = out[rows]


def rejection_sample(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens, draft_probs, target_probs, bonus_token_ids,
                     sampling_metadata):
    """draft_token_ids [T]; num_draft_tokens list of B; cu_num_draft_tokens [B]; draft_probs [T, V]
    or None; target_probs [T, V]; bonus_token_ids [B, 1]. Returns output_token_ids
    [B, max_spec_len + 1] int32, PLACEHOLDER_TOKEN_ID after each row's last token."""
    batch_size = len(num_draft_tokens)
    device = target_probs.device
    output = torch.full((batch_size, max_spec_len + 1), PLACEHOLDER_TOKEN_ID, dtype=torch.int32, device=device)
    index, valid, num = _chains(draft_token_ids, num_draft_tokens, cu_num_draft_tokens, max_spec_len)
    draft = draft_token_ids[index]
    if sampling_metadata.all_greedy:
        is_greedy = torch.ones(batch_size, dtype=torch.bool, device=device)
    else:
        is_greedy = sampling_metadata.temperature == GREEDY_TEMPERATURE
    if not sampling_metadata.all_random:
        argmax = target_probs.argmax(dim=-1)[index]
        _write(output, is_greedy, draft, draft == argmax, argmax, bonus_token_ids, valid, num)
        if sampling_metadata.all_greedy:
            return output

    uniform = torch.rand(draft_token_ids.shape[0], dtype=torch.float32, device=device)
    exponential = torch.empty((batch_size, target_probs.shape[-1]), dtype=torch.float32, device=device).exponential_()
    starts = cu_num_draft_tokens.to(torch.int64) - num
    for i, generator in sampling_metadata.generators.items():
        if num_draft_tokens[i] > 0:
            uniform[starts[i]:starts[i] + num_draft_tokens[i]].uniform_(generator=generator)
            exponential[i].exponential_(generator=generator)

    flat = torch.arange(draft_token_ids.shape[0], device=device)
    p_draft = target_probs[flat, draft_token_ids]
    if draft_probs is None:
        q_draft = torch.ones_like(p_draft)
        residual = target_probs.clone()
        residual[flat, draft_token_ids] = 0.0
    else:
        q_draft = draft_probs[flat, draft_token_ids]
        residual = (target_probs - draft_probs).clamp(min=0.0)
    accept = (q_draft > 0) & (p_draft / q_draft >= uniform)
    request = torch.repeat_interleave(torch.arange(batch_size, device=device), num)
    recovered = (residual / exponential[request]).argmax(dim=-1)
    _write(output, ~is_greedy, draft, accept[index], recovered[index], bonus_token_ids, valid, num)
    return output


def vllm_flat(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens, draft_probs, target_probs, bonus_token_ids,
              sampling_metadata):
    """rejection_sample on tevsuite's flattened layout: greedy marked as vLLM marks it at this
    commit (temperature -1 where the request's is 0)."""
    metadata = vllm_metadata(sampling_metadata, target_probs.shape[-1])
    return rejection_sample(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens, draft_probs, target_probs, bonus_token_ids,
                            metadata)


def vllm_metadata(sampling, vocab):
    """tevsuite's per-request parameters as vLLM's SamplingMetadata fields: greedy temperature -1,
    top-k off as V, top-k and top-p None where no request uses them."""
    temperature = torch.where(sampling.temperature == 0, torch.full_like(sampling.temperature, GREEDY_TEMPERATURE), sampling.temperature)
    top_k = torch.where(sampling.top_k == 0, torch.full_like(sampling.top_k, vocab), sampling.top_k)
    return SimpleNamespace(temperature=temperature, all_greedy=sampling.all_greedy, all_random=sampling.all_random, generators={},
                           top_k=top_k if bool((top_k < vocab).any()) else None,
                           top_p=sampling.top_p if bool((sampling.top_p < 1).any()) else None)


ENGINE = "vLLM"
ROUTINE = "rejection_sample (V1)"
SOURCE = "vllm-project/vllm vllm/v1/sample/rejection_sampler.py:121-218 rejection_sample"
COMMIT = "0097a7bb"
STATED = "exact by design"


def runs():
    from tevsuite import adapters
    check = lambda **o: adapters.check_chain(vllm_flat, layout="flat", randomness="global", **o)  # noqa: E731
    return {"model (draft probs)": lambda b: check(**b["model"]),
            "default (target-only)": lambda b: check(draft_probs=False, **b["tree"]),
            "batch (target-only)": lambda b: check(draft_probs=False, batch_of_requests=True, **b["batch"])}
