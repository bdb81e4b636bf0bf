"""Medusa's nucleus acceptance, written from its algorithm.

Engine: Medusa (FasterDecoding/Medusa), ``medusa/model/utils.py``, commit e2a5d20c:
``evaluate_posterior`` with ``sampling='nucleus'`` (lines 517-528), ``get_nucleus_posterior_mask``
(350-401) and, for the next round's root token, ``generate_candidates`` (258-307) calling
``get_nucleus_one_token`` (196-225) when ``fast`` is False (line 281 takes the argmax otherwise) (``medusa_generate`` passes its
``temperature``, ``top_p``, ``sampling`` and ``fast``, ``medusa/model/medusa_model.py:316-342``).
logits [P, D, V] along the P root-to-leaf paths, candidates [P, D]. At every (path, position) a
token is drawn independently from softmax(logits / T) cut to its top-p nucleus (the tokens up to
and including the one whose cumulative mass passes top_p; with top_p >= 1 the whole row); a
path's accepted length is its number of leading drafts equal to their draws; the longest path
wins (``torch.argmax``: the first on ties, path 0 where none is accepted). The next token is drawn
from the nucleus of the accepted node's row (``update_inference_inputs`` keeps that row,
``utils.py:586``). A node shared by several paths is drawn once per path and the best match wins:
not exact on a tree.
"""
import numpy as np
import torch

import offers


def nucleus_cut(logits, top_p):
    """Medusa's nucleus of tempered logits [R, V]: masked logits (-inf outside)."""
    if top_p >= 1:
        return logits
    probs = torch.softmax(logits, dim=-1)
    ranked, order = torch.sort(probs, descending=True)
    drop = torch.cumsum(ranked, dim=-1) > top_p
    drop[..., 1:] = drop[..., :-1].clone()
    drop[..., 0] = False
    return logits.masked_fill(drop.scatter(1, order, drop), float("-inf"))


def evaluate_posterior(logits, candidates, temperature, top_p=0.8):
    """The nucleus path: (best_candidate, accept_length)."""
    if temperature == 0:
        matches = (candidates[:, 1:] == logits[:, :-1].argmax(dim=-1)).int()
        lengths = torch.cumprod(matches, dim=1).sum(dim=1)
        return (torch.tensor(0) if lengths.max() == 0 else lengths.argmax()), lengths.max()
    p, d, v = logits.shape
    rows = nucleus_cut((logits[:, :-1] / temperature).reshape(p * (d - 1), v), top_p)
    drawn = torch.multinomial(torch.softmax(rows, dim=-1), 1).reshape(p, d - 1)
    lengths = torch.cumprod((candidates[:, 1:] == drawn).int(), dim=1).sum(dim=1)
    accept_length = lengths.max()
    return (torch.tensor(0) if accept_length == 0 else lengths.argmax()), accept_length


def medusa_nucleus_step(logits, candidates, sampling):
    """One round with sampling='nucleus', fast=False, the request's temperature and top-p: the
    acceptance, then the next token drawn from the nucleus of the accepted node's row."""
    temperature, top_p = sampling["temperature"], sampling["top_p"]
    best, length = evaluate_posterior(logits, candidates, temperature, top_p)
    row = logits[best, length][None]
    if temperature == 0:
        return best, length, row[0].argmax()
    return best, length, torch.multinomial(torch.softmax(nucleus_cut(row / temperature, top_p), dim=-1), 1)[0, 0]


def nucleus_rows(probs, temperature=1.0, top_p=1.0):
    """The rows Medusa draws from, in numpy, from a case's rows p (N, V): p^(1/T) renormalized, cut to
    the nucleus."""
    with np.errstate(divide="ignore"):
        rows = torch.tensor(np.log(np.asarray(probs, dtype=np.float64)) / temperature)
    return torch.softmax(nucleus_cut(rows, top_p), dim=-1).numpy()


def exact_law(case, rows):
    """The law (N, V) of (exit node, next token) of one round on a fixed-tree case, from the rows it
    draws from (N, V): paths are drawn independently, so P(L_i >= l) is the product of the rows'
    mass on the path's next drafts, and the first longest path wins."""
    from tevsuite import adapters
    paths = adapters.root_paths(case.parents)
    n_paths, width = paths.shape
    at_least = np.zeros((n_paths, width + 1))  # P(L_i >= l), l = 0 .. width
    for i in range(n_paths):
        at_least[i, 0] = 1.0
        for l in range(1, width):
            node, child = paths[i, l - 1], paths[i, l]
            at_least[i, l] = at_least[i, l - 1] * rows[node, case.tokens[child]] if child >= 0 else 0.0
    exactly = at_least[:, :-1] - at_least[:, 1:]
    below = 1.0 - at_least[:, 1:]  # P(L_i <= l)
    law = np.zeros_like(rows)
    law[0] += np.prod(exactly[:, 0]) * rows[0]
    for l in range(1, width):
        for i in range(n_paths):
            if paths[i, l] < 0:
                continue
            before = np.prod(1.0 - at_least[:i, l])  # earlier paths shorter than l
            after = np.prod(below[i + 1:, l])         # later paths at most l
            law[paths[i, l]] += exactly[i, l] * before * after * rows[paths[i, l]]
    return law


def exact_tv(case):
    """The exact TV of one round's law on a default fixed-tree case (temperature 1, top-p 1: the rows
    are the case's p) from the canonical law, with tevsuite's completion of a next token that is a
    drafted child."""
    rows = nucleus_rows(case.probs)
    return offers.completed_tv(case, exact_law(case, rows), case.probs)


ENGINE = "Medusa"
ROUTINE = "evaluate_posterior (nucleus acceptance)"
SOURCE = ("FasterDecoding/Medusa medusa/model/utils.py:517-528 evaluate_posterior (nucleus), :350-401 get_nucleus_posterior_mask, "
          ":258-307 generate_candidates, :196-225 get_nucleus_one_token")
COMMIT = "e2a5d20c"
STATED = "not stated (sampling='nucleus' is offered beside 'typical')"
FINDINGS = ("get_nucleus_posterior_mask (medusa/model/utils.py:350-401 at e2a5d20c) draws one token per (path, position) "
            "independently, and evaluate_posterior (:517-528) keeps the longest path whose drafts equal their draws: a node "
            "on several paths is drawn once per path and the best match wins, which favours drafted tokens; the next token "
            "is a fresh draw from the accepted node's row (:196-225), which may repeat a child that failed.")
CAUSES = {"design": ("medusa/model/utils.py:374-376 and :397-400 (one independent draw per path and position) and "
                     ":519-528 (the longest matching path wins)", "not reported", "examples/gallery/findings/medusa_nucleus.py")}


def runs():
    from tevsuite import adapters
    return {"default": lambda b: adapters.check_paths(medusa_nucleus_step, **b["tree"])}
