#!/usr/bin/env python3
"""Medusa (e2a5d20c): nucleus acceptance draws each (path, position) independently.

medusa/model/utils.py:397-400 (get_nucleus_posterior_mask; :374-376 with top_p >= 1) draws one
token per (path, position) from the nucleus of its row, independently, and :519-528
(evaluate_posterior, sampling='nucleus') keeps the first longest path whose drafts equal their
draws; with fast=False the next token is a fresh draw from the accepted node's row (:196-225).
On the shared tree the root is drawn once for each of its two paths, so a draft is accepted
whenever either draw names it: drafted tokens are favoured. Top-p 1 here (the whole row), so the
nucleus cut plays no part.

    PYTHONPATH=build/python python3 examples/gallery/findings/medusa_nucleus.py
"""
import sys

import numpy as np

from law import TOKENS, exact_tv, report

PROBS = np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3)


def nucleus_round(probs, draws):
    """(accepted tokens, next token) of one round: paths root -> node 1 and root -> node 2."""
    lengths = [int(int(draws.categorical(probs[0])) == TOKENS[node]) for node in (1, 2)]
    if max(lengths) == 0:
        return [], int(draws.categorical(probs[0]))
    node = (1, 2)[int(np.argmax(lengths))]
    return [int(TOKENS[node])], int(draws.categorical(probs[node]))


if __name__ == "__main__":
    sys.exit(report("Medusa nucleus acceptance (independent draws per path)", exact_tv(lambda case, draws: nucleus_round(PROBS, draws), PROBS)))
