"""vLLM V1's rejection sampler on target logits: its top-k / top-p path, written from its algorithm.

Engine: vLLM (vllm-project/vllm), ``vllm/v1/sample/rejection_sampler.py``,
``RejectionSampler.forward`` and ``compute_probs`` (with ``apply_top_k_top_p`` of
``vllm/v1/sample/ops/topk_topp_sampler.py``), commit 0097a7bb. The target logits of the draft
positions [T, V] are divided by each request's temperature (greedy rows, temperature -1, by 1),
masked below the k-th largest logit (top-k), masked where the ascending cumulative softmax is at
most 1 - top_p (top-p, the largest token always kept), softmaxed, and passed to
``rejection_sample``. Min-p is not applied to the verified rows; the bonus token comes from the
main sampler, which applies every parameter.
"""
from types import SimpleNamespace

import torch

from vllm_rejection_sample import GREEDY_TEMPERATURE, rejection_sample, vllm_metadata


def apply_top_k_top_p(logits, k, p):
    """logits [T, V]; k [T] int (V: off) or None; p [T] or None. Masked logits are -inf."""
    if k is None and p is None:
        return logits
    ascending, order = logits.sort(dim=-1)
    if k is not None:
        kth = ascending.gather(1, (ascending.shape[1] - k.to(torch.int64)).unsqueeze(1))
        ascending = ascending.masked_fill(ascending < kth, float("-inf"))
    if p is not None:
        mass_up_to = ascending.softmax(dim=-1).cumsum(dim=-1)
        drop = mass_up_to <= 1 - p.unsqueeze(1)
        drop[:, -1] = False
        ascending = ascending.masked_fill(drop, float("-inf"))
    return torch.empty_like(logits).scatter_(1, order, ascending)


def compute_probs(logits, cu_num_draft_tokens, sampling_metadata):
    """Each draft position's target distribution [T, V] from its logits [T, V]."""
    if sampling_metadata.all_greedy:
        return logits
    counts = torch.diff(cu_num_draft_tokens.to(torch.int64), prepend=cu_num_draft_tokens.new_zeros(1).to(torch.int64))
    per_token = lambda x: torch.repeat_interleave(x, counts)  # noqa: E731
    temperature = per_token(sampling_metadata.temperature)
    temperature = torch.where(temperature == GREEDY_TEMPERATURE, torch.ones_like(temperature), temperature)
    logits = logits / temperature.unsqueeze(-1)
    top_k = None if sampling_metadata.top_k is None else per_token(sampling_metadata.top_k)
    top_p = None if sampling_metadata.top_p is None else per_token(sampling_metadata.top_p)
    return apply_top_k_top_p(logits, top_k, top_p).softmax(dim=-1)


class RejectionSampler:
    def forward(self, metadata, draft_probs, target_logits, bonus_token_ids, sampling_metadata):
        """metadata: draft_token_ids [T], num_draft_tokens, cu_num_draft_tokens [B], max_spec_len;
        draft_probs [T, V] or None; target_logits [T, V]; bonus_token_ids [B, 1]."""
        target_probs = compute_probs(target_logits.to(torch.float32), metadata.cu_num_draft_tokens, sampling_metadata)
        return rejection_sample(metadata.draft_token_ids, metadata.num_draft_tokens, metadata.max_spec_len, metadata.cu_num_draft_tokens,
                                draft_probs, target_probs, bonus_token_ids, sampling_metadata)


def vllm_forward(draft_token_ids, num_draft_tokens, max_spec_len, cu_num_draft_tokens, draft_probs, target_logits, bonus_token_ids,
                 sampling_metadata):
    """RejectionSampler.forward on tevsuite's flattened layout with logits."""
    metadata = SimpleNamespace(draft_token_ids=draft_token_ids, num_draft_tokens=num_draft_tokens, max_spec_len=max_spec_len,
                               cu_num_draft_tokens=cu_num_draft_tokens)
    return RejectionSampler().forward(metadata, draft_probs, target_logits, bonus_token_ids,
                                      vllm_metadata(sampling_metadata, target_logits.shape[-1]))


ENGINE = "vLLM"
ROUTINE = "RejectionSampler.forward (V1, top-k/top-p)"
SOURCE = "vllm-project/vllm vllm/v1/sample/rejection_sampler.py RejectionSampler.forward, compute_probs"
COMMIT = "0097a7bb"
STATED = "exact by design (min-p not applied to verified rows)"
FINDINGS = ("compute_probs applies temperature, top-k and top-p to the verified rows, not min-p; the bonus token comes from the "
            "main sampler, which applies min-p: a request with min-p is verified against a target it is not sampled from. The "
            "cases in SGLang's order (top_p_full_and_top_k) ask for an order vLLM does not offer: those failures are a "
            "difference of parameter semantics, not of verification.")


def runs():
    from tevsuite import adapters
    check = lambda **o: adapters.check_chain(vllm_forward, layout="flat", target="logits", randomness="global", **o)  # noqa: E731
    return {"engine (target-only)": lambda b: check(draft_probs=False, engine_inputs=True, **b["tree"]),
            "engine model (draft probs)": lambda b: check(engine_inputs=True, **b["model"]),
            "engine batch (target-only)": lambda b: check(draft_probs=False, batch_of_requests=True, engine_inputs=True, **b["batch"])}
