#!/usr/bin/env python3
"""llama.cpp (fe068616): examples/speculative drafts q's most probable token and verifies it as a
draw from q.

examples/speculative/speculative.cpp:552 takes the drafted token as cur_p->data[is].id of the draft
model's candidates sorted by probability: for one sequence, q's argmax. :293 accepts it when
r <= p(x) / q(x) and :306-337 replace the target's candidates by max(p - q, 0) renormalized on a
rejection, the p/q rule for a draft drawn from q. With q's argmax as the draft the emitted token
is not distributed as p. One draft on a chain (root, then its child x = 0), temperature > 0, no
truncating sampler.

    PYTHONPATH=build/python python3 examples/gallery/findings/llamacpp_argmax_drafts.py
"""
import sys

import numpy as np

import tevsuite
from law import report

P = np.array([0.50, 0.30, 0.12, 0.05, 0.03])  # the target's row at the root and at the drafted child
Q = np.array([0.60, 0.20, 0.10, 0.05, 0.05])  # the draft's row at the root: its argmax, token 0, is drafted


def example_round(draws):
    """(accepted tokens, next token) of one round with one draft, x = argmax q."""
    x = int(np.argmax(Q))
    accept = min(1.0, P[x] / Q[x])
    if int(draws.categorical([1.0 - accept, accept])) == 1:
        return [x], int(draws.categorical(P))
    residual = np.maximum(P - Q, 0.0)
    return [], int(draws.categorical(residual / residual.sum()))


def exact_tv():
    chain = tevsuite.TreeCase(np.array([-1, 0], dtype=np.int32), np.array([-1, int(np.argmax(Q))], dtype=np.int32), np.stack([P, P]))
    return tevsuite.exact_law(lambda case, draws: example_round(draws), chain).tv


if __name__ == "__main__":
    sys.exit(report("llama.cpp examples/speculative (argmax draft, p/q verification)", exact_tv()))
