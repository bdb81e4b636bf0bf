"""FlashInfer's chain speculative sampling, written from its algorithm.

Engine: FlashInfer (flashinfer-ai/flashinfer), ``flashinfer/sampling.py``
``chain_speculative_sampling`` over the CUDA kernel ``ChainSpeculativeSampling`` of
``include/flashinfer/sampling.cuh``, commit fb28d724. Per row: for each draft position draw u in
(0, 1] and accept while u * q(x) < p(x); at the stop position draw once more and sample the
residual max(p - q, 0) by inverse CDF (q = 0 after a fully accepted chain: the bonus row), the
last valid token if the draw lands past the mass. Fresh draws after the stop count the tokens
that would have been accepted independently (a metric). p and q arrive processed.
"""
import torch


def chain_speculative_sampling(draft_probs, draft_token_ids, target_probs, maybe_output_accepted_token_num=None,
                               maybe_output_emitted_draft_token_num=None, deterministic=True, generator=None, seed=None, offset=None):
    """draft_probs [B, K, V]; draft_token_ids [B, K]; target_probs [B, K + 1, V]. Returns
    (output_token_ids [B, K + 1] int32 padded with -1, accepted_num [B], emitted_num [B])."""
    if seed is not None or offset is not None:
        generator = torch.Generator(device=target_probs.device).manual_seed(int(seed if seed is not None else 0) + int(offset or 0))
    draft_probs, target_probs = draft_probs.to(torch.float32), target_probs.to(torch.float32)
    draft_token_ids = draft_token_ids.to(torch.int64)
    b, k, v = draft_probs.shape
    device = target_probs.device
    rows = torch.arange(b, device=device)
    u = 1.0 - torch.rand((b, k), generator=generator, device=device)  # (0, 1]
    q_x = draft_probs.gather(2, draft_token_ids.unsqueeze(2)).squeeze(2)
    p_x = target_probs[:, :k].gather(2, draft_token_ids.unsqueeze(2)).squeeze(2)
    accepted = u * q_x < p_x
    stop = torch.where(accepted.all(1), k, (~accepted).int().argmax(1))  # [B]
    # after the stop: fresh draws, only to count the independently acceptable tokens
    fresh = 1.0 - torch.rand((b, k), generator=generator, device=device)
    after = torch.arange(k, device=device) > stop.unsqueeze(1)
    acceptable = torch.where(after, fresh * q_x < p_x, accepted)
    accepted_num = acceptable.sum(1).to(torch.int32)
    # the residual at the stop position; the bonus row where every draft was accepted
    at = stop.clamp(max=k - 1)
    residual = (target_probs[rows, stop] - torch.where((stop < k).unsqueeze(1), draft_probs[rows, at], 0.0)).clamp(min=0.0)
    cdf = residual.cumsum(1)
    x = (1.0 - torch.rand(b, generator=generator, device=device)) * cdf[:, -1]
    token = torch.searchsorted(cdf, x.unsqueeze(1)).squeeze(1)  # the first token whose cumulative mass reaches x
    last_valid = v - 1 - (residual > 0).flip(1).int().argmax(1)
    token = torch.where(token >= v, last_valid, token)
    out = torch.full((b, k + 1), -1, dtype=torch.int32, device=device)
    keep = torch.arange(k, device=device) < stop.unsqueeze(1)
    out[:, :k] = torch.where(keep, draft_token_ids, -1).to(torch.int32)
    out[rows, stop] = token.to(torch.int32)
    emitted_num = stop.to(torch.int32)
    if maybe_output_accepted_token_num is not None:
        maybe_output_accepted_token_num += accepted_num
    if maybe_output_emitted_draft_token_num is not None:
        maybe_output_emitted_draft_token_num += emitted_num
    return out, accepted_num, emitted_num


ENGINE = "FlashInfer"
ROUTINE = "chain_speculative_sampling"
SOURCE = ("flashinfer-ai/flashinfer flashinfer/sampling.py:1980-2111 chain_speculative_sampling (kernel "
          "include/flashinfer/sampling.cuh:1869-2004 ChainSpeculativeSampling)")
COMMIT = "fb28d724"
STATED = "exact by design"


def runs():
    from tevsuite import adapters
    check = lambda **o: adapters.check_chain(chain_speculative_sampling, randomness="generator", **o)  # noqa: E731
    return {"model (draft probs)": lambda b: check(**b["model"]),
            "engine model (draft probs)": lambda b: check(engine_inputs=True, **b["model"])}
