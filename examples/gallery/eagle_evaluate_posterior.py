"""EAGLE's posterior evaluation (EAGLE-2/3 trees), written from its algorithm.

Engine: EAGLE (SafeAILab/EAGLE), ``eagle/model/utils.py``, ``evaluate_posterior(logits,
candidates, logits_processor)``, commit cb7e0841. logits [P, D, V] along the P root-to-leaf paths,
candidates [P, D] (-1 padded). Greedy (no processor): longest path whose drafts equal the target
argmax at each parent, the first on ties. Sampling: level by level, the processed target row
(temperature, top-p, top-k warpers, in that order) of the first path consistent with the accepted
prefix; its distinct children in path order are each accepted with probability p'(x), p' the
current residual (``random.random()``); a rejected child's p' is set to 0 and p' renormalized.
If a child was rejected at the level where the walk stopped, the next token comes from p';
otherwise from the processed target row of the last accepted node.
"""
import random

import torch

import offers


def evaluate_posterior(logits, candidates, logits_processor):
    """Returns (best_candidate, accept_length, sample_p): the greedy path's next-token logits, or
    the (V) distribution to sample the next token from."""
    if logits_processor is None:
        matches = (candidates[:, 1:] == logits[:, :-1].argmax(dim=-1)).int()
        lengths = torch.cumprod(matches, dim=1).sum(dim=1)
        accept_length = int(lengths.max())
        best = 0 if accept_length == 0 else int(lengths.argmax())
        return torch.tensor(best), accept_length, logits[best, accept_length]
    accepted = candidates[0, :1]
    best, depth, residual_left = 0, 1, False
    for level in range(1, candidates.shape[1]):
        if level != depth:
            break
        residual_left = False
        consistent = (candidates[:, :depth] == accepted).all(dim=1)
        row = int(torch.nonzero(consistent)[0][0])
        p = torch.softmax(logits_processor(None, logits[row, level - 1][None])[0], dim=0)
        tried = set()
        for path in torch.nonzero(consistent)[:, 0].tolist():
            token = int(candidates[path, level])
            if token == -1 or token in tried:
                continue
            tried.add(token)
            if random.random() <= float(p[token]):
                accepted = torch.cat([accepted, candidates[path, level:level + 1]])
                depth += 1
                best = path
                break
            p[token] = 0
            p = p / p.sum()
            residual_left = True
    if residual_left and depth != candidates.shape[1]:
        sample_p = p
    else:
        sample_p = torch.softmax(logits_processor(None, logits[best, depth - 1][None])[0], dim=0)
    return torch.tensor(best), depth - 1, sample_p


class _Warpers:
    """EAGLE's logits processor: temperature, then top-p, then top-k (Hugging Face's warpers, in
    the order EAGLE's prepare_logits_processor lists them)."""

    def __init__(self, temperature, top_p, top_k):
        self.temperature, self.top_p, self.top_k = temperature, top_p, top_k

    def __call__(self, input_ids, scores):
        scores = scores / self.temperature
        if self.top_p < 1.0:
            ascending, order = scores.sort(dim=-1)
            drop = ascending.softmax(dim=-1).cumsum(dim=-1) <= 1 - self.top_p
            drop[..., -1] = False
            scores = scores.masked_fill(torch.zeros_like(drop).scatter(-1, order, drop), float("-inf"))
        if self.top_k > 0:
            kth = scores.topk(min(self.top_k, scores.shape[-1]), dim=-1).values[..., -1:]
            scores = scores.masked_fill(scores < kth, float("-inf"))
        return scores


def eagle_step(logits, candidates, sampling):
    """evaluate_posterior with EAGLE's processor built from a request's parameters (greedy: no
    processor; EAGLE has no min-p)."""
    processor = None if sampling["temperature"] == 0 else _Warpers(sampling["temperature"], sampling["top_p"], sampling["top_k"])
    best, length, sample_p = evaluate_posterior(logits, candidates, processor)
    return best, length, sample_p.argmax() if processor is None else sample_p


ENGINE = "EAGLE"
ROUTINE = "evaluate_posterior (utils.py, sampling)"
SOURCE = "SafeAILab/EAGLE eagle/model/utils.py:337-415 evaluate_posterior, :38-54 prepare_logits_processor"
COMMIT = "cb7e0841"
STATED = "exact by design"
FILTERS = ("top_k", "top_p")
ORDERS = ("top_p_full_and_top_k",)
OFFERS = ("temperature, top-p and top-k, no min-p (eagle/model/utils.py:38-54 prepare_logits_processor: Hugging Face's "
          "TemperatureLogitsWarper, TopPLogitsWarper, TopKLogitsWarper, in that order): top-p on the full tempered row, "
          "then top-k, keeps what both keep (top_p_full_and_top_k).")


def engine_order(request, batch):
    """EAGLE's processor's order (offers.py); a request with min-p is not offered."""
    return offers.engine_order(request, "top_p_full_and_top_k", FILTERS, ORDERS)


def runs():
    from tevsuite import adapters
    return {"default": lambda b: adapters.check_paths(eagle_step, **b["tree"]),
            "engine": lambda b: adapters.check_paths(eagle_step, engine_inputs=True, engine_order=engine_order, **b["tree"])}
