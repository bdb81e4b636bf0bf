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


def exact_tv(case):
    """The exact TV of medusa_step's law from the canonical one on a fixed-tree case (its rows as
    the adapter passes them): the acceptance is deterministic, so the law is the typical-truncated
    next-token row at the accepted node; a next token that is a drafted child continues as the
    target does (tevsuite's completion). Cells: (exit node, next token)."""
    import numpy as np
    from tevsuite import adapters
    probs = np.asarray(case.probs)
    paths = adapters.root_paths(case.parents)
    tokens = np.where(case.tokens < 0, 0, case.tokens)
    candidates = torch.tensor(np.where(paths >= 0, tokens[np.maximum(paths, 0)], -1), dtype=torch.int64)
    with np.errstate(divide="ignore"):
        logits = torch.tensor(np.log(probs)[np.maximum(paths, 0)], dtype=torch.float32)
    best, length = evaluate_posterior(logits, candidates, 1.0)
    stop = int(paths[int(best), int(length)])
    row = torch.softmax(logits[int(best), int(length)].double(), dim=-1)
    entropy = -(row * torch.log(row + 1e-5)).sum()
    kept = torch.where(row < torch.minimum(torch.tensor(0.3, dtype=torch.float64), torch.exp(-entropy) * 0.09), 0.0, row)
    truncated = (kept / kept.sum()).numpy()
    nodes = case.nodes
    reach = np.ones(nodes)  # the target's probability of each node's path
    for i in range(1, nodes):
        reach[i] = reach[case.parents[i]] * probs[case.parents[i], case.tokens[i]]
    exits = probs.copy()  # a node's exit row: its drafted children's tokens continue
    exits[case.parents[1:], case.tokens[1:]] = 0.0
    canonical = reach[:, None] * exits
    law = np.zeros_like(canonical)
    continues = np.zeros(case.vocab, dtype=bool)
    continues[case.tokens[case.parents == stop]] = True
    law[stop] = np.where(continues, 0.0, truncated)
    for child in np.nonzero(case.parents == stop)[0]:
        below = [child]
        for i in range(child + 1, nodes):
            if case.parents[i] in below:
                below.append(i)
        for m in below:
            law[m] += truncated[case.tokens[child]] * reach[m] / reach[child] * exits[m]
    return 0.5 * float(np.abs(law - canonical).sum())


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
