"""Medusa's typical acceptance, written from its algorithm.

Engine: Medusa (FasterDecoding/Medusa), ``medusa/model/utils.py``, ``evaluate_posterior``
(``sampling='typical'``, ``fast=True``) and ``get_typical_one_token``, commit e2a5d20c. logits
[P, D, V] along the paths, candidates [P, D]. p = softmax(logits / T) at each parent; a draft is
accepted where p(x) > min(posterior_threshold, posterior_alpha * exp(-H(p))), H with +1e-5 inside
the log; the longest accepted prefix wins, ties by summed log-likelihood. The next token is drawn
from the best path's row at the accepted length, truncated by the same threshold. Not exact by
design. Padding positions (the adapter's -1; Medusa pads with token 0 on another node's row) are
never accepted here.
"""
import torch


def evaluate_posterior(logits, candidates, temperature, posterior_threshold=0.3, posterior_alpha=0.09, top_p=0.8, sampling="typical",
                       fast=True):
    """Returns (best_candidate, accept_length); the typical, fast path."""
    if temperature == 0:
        matches = (candidates[:, 1:] == logits[:, :-1].argmax(dim=-1)).int()
        lengths = torch.cumprod(matches, dim=1).sum(dim=1)
        accept_length = lengths.max()
        return (torch.tensor(0) if accept_length == 0 else lengths.argmax()), accept_length
    if sampling != "typical" or not fast:
        raise NotImplementedError("only the typical, fast path is written here")
    probs = torch.softmax(logits[:, :-1] / temperature, dim=-1)
    drafts = candidates[:, 1:]
    p_draft = probs.gather(-1, drafts.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    entropy = -(probs * torch.log(probs + 1e-5)).sum(dim=-1)
    threshold = torch.minimum(torch.full_like(entropy, posterior_threshold), torch.exp(-entropy) * posterior_alpha)
    accepted = (p_draft > threshold) & (drafts >= 0)
    lengths = torch.cumprod(accepted.int(), dim=1).sum(dim=1)
    accept_length = lengths.max()
    if accept_length == 0:
        return torch.tensor(0), accept_length
    best = torch.nonzero(lengths == accept_length)[:, 0]
    likelihood = torch.log(p_draft[best, :accept_length]).sum(dim=-1)
    return best[likelihood.argmax()], accept_length


def get_typical_one_token(logit, temperature, posterior_threshold, posterior_alpha):
    """One token from softmax(logit / T) with the tokens under the typical threshold removed."""
    logit = logit / temperature
    probs = torch.softmax(logit, dim=-1)
    entropy = -(probs * torch.log(probs + 1e-5)).sum(dim=-1)
    threshold = torch.minimum(torch.full_like(entropy, posterior_threshold), torch.exp(-entropy) * posterior_alpha)
    logit = logit.masked_fill(probs < threshold.unsqueeze(-1), float("-inf"))
    return torch.multinomial(torch.softmax(logit, dim=-1), 1)


def medusa_step(logits, candidates, temperature=1.0, posterior_threshold=0.3, posterior_alpha=0.09):
    """evaluate_posterior, then the next token from the best path's row (Medusa's defaults)."""
    best, length = evaluate_posterior(logits, candidates, temperature, posterior_threshold, posterior_alpha)
    token = get_typical_one_token(logits[best, length], temperature, posterior_threshold, posterior_alpha)
    return best, length, token[0]


ENGINE = "Medusa"
ROUTINE = "evaluate_posterior (typical acceptance)"
SOURCE = "FasterDecoding/Medusa medusa/model/utils.py evaluate_posterior, get_typical_one_token"
COMMIT = "e2a5d20c"
STATED = "not exact by design"
FINDINGS = ("typical acceptance accepts a draft whenever p(x) > min(0.3, 0.09 exp(-H(p))), with no randomness: not exact by "
            "design, as Medusa states.")


def runs():
    from tevsuite import adapters
    return {"default": lambda b: adapters.check_paths(medusa_step, **b["tree"])}
