"""Medusa's typical acceptance, written from its algorithm.

Engine: Medusa (FasterDecoding/Medusa), ``medusa/model/utils.py``, ``evaluate_posterior``
(``sampling='typical'``, ``fast=True``) and ``generate_candidates``, commit e2a5d20c, with the
values ``medusa_generate`` passes (``medusa/model/medusa_model.py:244-249``): posterior_threshold
0.09, posterior_alpha 0.3. logits [P, D, V] along the paths, candidates [P, D]. p =
softmax(logits / T) at each parent; a draft is accepted where p(x) > min(posterior_threshold,
posterior_alpha * exp(-H(p))), H with +1e-5 inside the log; the longest accepted prefix wins, ties
by summed log-likelihood. On the fast path the next token is the argmax of the best path's row at
the accepted length (``generate_candidates``, ``utils.py:280-281``). Not exact by design. Padding positions (the adapter's -1; Medusa pads with token 0 on another node's row) are
never accepted here.
"""
import torch

import offers


def evaluate_posterior(logits, candidates, temperature, posterior_threshold=0.3, posterior_alpha=0.09, top_p=0.8, sampling="typical",
                       fast=True):
    """Returns (best_candidate, accept_length); the typical, fast path. The keyword defaults are the
    function's own (utils.py:436-437); its callers pass theirs."""
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


def medusa_step(logits, candidates, temperature=1.0, posterior_threshold=0.09, posterior_alpha=0.3):
    """One round as medusa_generate runs it (its defaults, which every caller keeps: threshold 0.09,
    alpha 0.3, fast=True): evaluate_posterior, then the next token as generate_candidates takes
    it on the fast path, the argmax of the accepted node's row."""
    best, length = evaluate_posterior(logits, candidates, temperature, posterior_threshold, posterior_alpha, fast=True)
    return best, length, logits[best, length].argmax()


def exact_tv(case):
    """The exact TV of medusa_step's law from the canonical one on a fixed-tree case (its rows as
    the adapter passes them): acceptance and next token are deterministic, so the law is one
    block, the accepted node and its row's argmax; a next token that is a drafted child continues
    as the target does (tevsuite's completion). Cells: (exit node, next token)."""
    import numpy as np
    from tevsuite import adapters
    probs = np.asarray(case.probs)
    paths = adapters.root_paths(case.parents)
    tokens = np.where(case.tokens < 0, 0, case.tokens)
    candidates = torch.tensor(np.where(paths >= 0, tokens[np.maximum(paths, 0)], -1), dtype=torch.int64)
    with np.errstate(divide="ignore"):
        logits = torch.tensor(np.log(probs)[np.maximum(paths, 0)], dtype=torch.float32)
    best, length, token = medusa_step(logits, candidates)
    law = np.zeros_like(probs)
    law[int(paths[int(best), int(length)]), int(token)] = 1.0
    return offers.completed_tv(case, law, probs)


ENGINE = "Medusa"
ROUTINE = "evaluate_posterior (typical acceptance)"
SOURCE = ("FasterDecoding/Medusa medusa/model/utils.py:436-530 evaluate_posterior, :258-307 generate_candidates; "
          "medusa/model/medusa_model.py:235-249 medusa_generate")
COMMIT = "e2a5d20c"
STATED = "not exact by design"
FINDINGS = ("as medusa_generate calls it (medusa/model/medusa_model.py:244-249 at e2a5d20c: posterior_threshold=0.09, "
            "posterior_alpha=0.3, sampling='typical', fast=True; evaluate_posterior's own keyword defaults, 0.3 and 0.09, are "
            "never used by its callers), typical acceptance accepts a draft whenever p(x) > min(0.09, 0.3 exp(-H(p))) "
            "(medusa/model/utils.py:474-498), and on the fast path the next round's root token is the argmax of the accepted "
            "node's row (utils.py:280-281): no randomness at all, one block per tree and rows; not exact by design, as Medusa "
            "states.")

CAUSES = {"design": ("medusa/model/utils.py:474-498 (typical acceptance, fast path) and :280-281 (the argmax next token)",
                     "not exact by design, as Medusa states", "examples/gallery/findings/medusa_typical.py")}


def runs():
    from tevsuite import adapters
    return {"default": lambda b: adapters.check_paths(medusa_step, **b["tree"])}
