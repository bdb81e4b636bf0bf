"""vLLM V1's rejection sampler on target logits: its top-k / top-p path, written from its algorithm.

Engine: vLLM (vllm-project/vllm), ``vllm/v1/sample/rejection_sampler.py``,
``RejectionSampler.forward`` (lines 47-103) and ``compute_probs`` (221-280), with
``apply_top_k_top_p`` of ``vllm/v1/sample/ops/topk_topp_sampler.py``, commit 0097a7bb. The target
logits of the draft positions [T, V] are divided by each request's temperature (greedy rows,
temperature -1, by 1; lines 249-257), masked below the k-th largest logit (top-k), masked where the
ascending cumulative softmax is at most 1 - top_p (top-p, the largest token always kept; lines
259-277), softmaxed (279), and passed to ``rejection_sample``. Min-p is not applied there, and no
request with min-p reaches it: vLLM's V1 model runner proposes no draft tokens for a request with
min-p (``is_spec_decode_supported`` in ``vllm/v1/spec_decode/utils.py``, "Spec decode doesn't
support min_p sampling", introduced by vLLM PR #13933), so such a request is sampled by the main
sampler alone, with no error or warning in the code read. Later versions refuse it instead (a 400 from
``SamplingParams._validate_spec_decode``, described in vLLM issue #42744).
"""
from types import SimpleNamespace

import numpy as np
import torch

import offers
from tevsuite import GREEDY_TEMPERATURE
from vllm_rejection_sample import GREEDY_TEMPERATURE as GREEDY_TEMPERATURE_VLLM, rejection_sample, vllm_metadata


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
    temperature = torch.where(temperature == GREEDY_TEMPERATURE_VLLM, torch.ones_like(temperature), temperature)
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


def target_rows(case):
    """The rows compute_probs verifies a case with (its logits and parameters, one request): (N, V)."""
    s = case.sampling
    greedy = s["temperature"] < GREEDY_TEMPERATURE
    logits = torch.tensor(np.asarray(case.logits), dtype=torch.float64)
    n, v = logits.shape
    metadata = SimpleNamespace(all_greedy=False, temperature=torch.tensor([GREEDY_TEMPERATURE_VLLM if greedy else s["temperature"]],
                                                                          dtype=torch.float64),
                               top_k=torch.tensor([s["top_k"] or v]), top_p=torch.tensor([s["top_p"]], dtype=torch.float64))
    rows = compute_probs(logits, torch.tensor([n]), metadata).numpy()
    return np.where(greedy, np.eye(v)[np.argmax(case.logits, axis=1)], rows)  # greedy rows are verified by the argmax


ENGINE = "vLLM"
ROUTINE = "RejectionSampler.forward (V1, top-k/top-p)"
SOURCE = ("vllm-project/vllm vllm/v1/sample/rejection_sampler.py:47-103 RejectionSampler.forward, :221-280 compute_probs; "
          "vllm/v1/spec_decode/utils.py is_spec_decode_supported (no drafts for min-p requests)")
COMMIT = "0097a7bb"
STATED = "exact by design (requests with min-p are not speculated)"
FILTERS = ("top_k", "top_p")
ORDERS = ("min_p_first",)
OFFERS = ("temperature, top-k and top-p, top-p on the top-k survivors as vLLM's sampler takes them (min_p_first; "
          "vllm/v1/sample/rejection_sampler.py:249-277 at 0097a7bb, vllm/v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p). Min-p is "
          "not offered to the verifier: at 0097a7bb the model runner proposes no draft tokens for a request with min-p "
          "(vllm/v1/spec_decode/utils.py is_spec_decode_supported: \"Spec decode doesn't support min_p sampling\"; lines 5-8 "
          "of that file in the versions of that period read, the file at 0097a7bb itself not in the copy read), so vLLM "
          "samples it without speculation, with no error or warning in the code read; later versions refuse it (HTTP 400, "
          "SamplingParams._validate_spec_decode, per vLLM issue #42744). A request stated in top_p_full_and_top_k or "
          "min_p_last, where that changes its rows, is not offered.")
NOT_RUN = ("engine-shaped model cases: tevsuite's model check takes no engine_order, and one of them (min-p) is a request "
           "vLLM does not speculate; the model cases without min-p are rejection_sample's rows (its model run).")


def engine_order(request, batch):
    """vLLM's sampler's order, the same for every batch (offers.py)."""
    return offers.engine_order(request, "min_p_first", FILTERS, ORDERS)


def runs():
    from tevsuite import adapters
    check = lambda **o: adapters.check_chain(vllm_forward, layout="flat", target="logits", randomness="global", **o)  # noqa: E731
    engine = dict(engine_inputs=True, engine_order=engine_order)
    return {"engine (target-only)": lambda b: check(draft_probs=False, **engine, **b["tree"]),
            "engine batch (target-only)": lambda b: check(draft_probs=False, batch_of_requests=True, **engine, **b["batch"])}
