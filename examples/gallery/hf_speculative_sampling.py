"""Hugging Face transformers' speculative sampling in assisted generation, written from its algorithm.

Engine: Hugging Face transformers (huggingface/transformers),
``src/transformers/generation/utils.py``, module function ``_speculative_sampling`` (called from
``GenerationMixin._assisted_decoding``), commit 1097d4b3. Batch size 1. q = softmax of the
assistant's logits, p = softmax of the target's processed logits; draft i is accepted while
r_i <= p(x_i) / q(x_i), r_i from ``torch.rand_like`` (the global generator); n = the accepted
prefix. If every candidate is accepted and the candidates already meet the stopping criteria, the
last one is dropped and no token is sampled; otherwise one token is drawn with
``torch.multinomial`` from norm(max(p_n - q_n, 0)) after a rejection, or from p_n (the bonus).
"""
import torch


def _speculative_sampling(candidate_input_ids, candidate_logits, candidate_length, new_logits, is_done_candidate):
    """candidate_input_ids [1, L + K]; candidate_logits [1, K, V]; new_logits [1, K + 1, V].
    Returns (valid_tokens [1, n + 1], n_matches)."""
    drafts = candidate_input_ids[:, -candidate_length:]
    positions = torch.arange(candidate_length, device=drafts.device)
    q = candidate_logits.softmax(dim=-1)
    p = new_logits.softmax(dim=-1)
    ratio = p[0, positions, drafts[0]] / q[0, positions, drafts[0]]
    accepted = torch.rand_like(ratio) <= ratio
    n_matches = int((torch.cumsum(~accepted, dim=0) == 0).sum())
    if is_done_candidate and n_matches == candidate_length:
        n_matches -= 1
        return drafts[:, :n_matches + 1], n_matches
    if n_matches < candidate_logits.shape[1]:
        weights = (p[:, n_matches] - q[:, n_matches]).clamp(min=0)
        weights = weights / weights.sum()
    else:
        weights = p[:, n_matches]
    token = torch.multinomial(weights, num_samples=1)
    return torch.cat([drafts[:, :n_matches], token], dim=1), n_matches


def hf_chain(draft_token_ids, draft_probs, target_probs):
    """_speculative_sampling on one request of tevsuite's padded layout: the assistant's logits
    log q (its processed distribution), the target's processed logits log p, no stopping."""
    k = draft_token_ids.shape[1]
    valid, _ = _speculative_sampling(draft_token_ids, draft_probs.log(), k, target_probs.log(), False)
    out = torch.full((1, k + 1), -1, dtype=torch.int64)
    out[:, :valid.shape[1]] = valid
    return out


ENGINE = "Hugging Face transformers"
ROUTINE = "_speculative_sampling (assisted generation)"
SOURCE = "huggingface/transformers src/transformers/generation/utils.py _speculative_sampling"
COMMIT = "1097d4b3"
STATED = "exact by design"


def runs():
    from tevsuite import adapters
    check = lambda **o: adapters.check_chain(hf_chain, randomness="global", max_batch=1, **o)  # noqa: E731
    return {"model (draft probs)": lambda b: check(**b["model"]),
            "engine model (draft probs)": lambda b: check(engine_inputs=True, **b["model"])}
