#!/usr/bin/env python3
"""Medusa (e2a5d20c): typical acceptance on the fast path, as medusa_generate calls it.

medusa/model/medusa_model.py:244-249: posterior_threshold=0.09, posterior_alpha=0.3,
sampling='typical', fast=True. medusa/model/utils.py:474-498 accepts a draft x where p(x) >
min(0.09, 0.3 exp(-H(p))) (H with +1e-5 inside the log), the longest accepted path winning, ties
by likelihood; utils.py:280-281 takes the next round's root token as the argmax of the accepted
node's row. No randomness: one block a case. Not exact by design, as Medusa states.

    PYTHONPATH=build/python python3 examples/gallery/findings/medusa_typical.py
"""
import sys

import numpy as np

from law import PARENTS, TOKENS, exact_tv, report

PROBS = np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3)


def medusa_round(probs, threshold=0.09, alpha=0.3):
    """(accepted tokens, next token) of one round on the shared tree (depth 1)."""
    root = probs[0]
    entropy = -(root * np.log(root + 1e-5)).sum()
    passing = [i for i in (1, 2) if root[TOKENS[i]] > min(threshold, alpha * np.exp(-entropy))]
    if not passing:
        return [], int(np.argmax(root))
    best = max(passing, key=lambda i: root[TOKENS[i]])  # one level: the likeliest accepted child
    return [int(TOKENS[best])], int(np.argmax(probs[best]))


if __name__ == "__main__":
    assert PARENTS.tolist() == [-1, 0, 0]
    sys.exit(report("Medusa typical acceptance (fast path)", exact_tv(lambda case, draws: medusa_round(PROBS), PROBS)))
