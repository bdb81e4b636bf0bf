#!/usr/bin/env python3
"""vLLM V1 (3fb487a5): TreeRejectionSampler accepts a draft iff it is its parent's argmax.

vllm/v1/sample/tree_rejection_sampler.py:224-233 (rejection_sample) compares each draft with the
argmax of its parent's processed row, whatever the request's temperature (a TODO at :226-227 says
probabilistic acceptance is not implemented); the longest accepted path wins (:159-165) and the
bonus is drawn by the main sampler from the last accepted node's row (:181-188). For a sampling
request the argmax child is accepted surely. Exact for greedy requests only.

    PYTHONPATH=build/python python3 examples/gallery/findings/vllm_tree_argmax.py
"""
import sys

import numpy as np

from law import PARENTS, TOKENS, exact_tv, report

PROBS = np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3)  # the root's argmax, token 0, is a drafted child


def vllm_tree_round(probs, draws):
    """(accepted tokens, bonus) of one round on the shared tree (depth 1)."""
    top = int(np.argmax(probs[0]))
    child = [i for i in (1, 2) if PARENTS[i] == 0 and TOKENS[i] == top]
    if not child:
        return [], int(draws.categorical(probs[0]))
    return [top], int(draws.categorical(probs[child[0]]))


if __name__ == "__main__":
    sys.exit(report("vLLM TreeRejectionSampler (argmax matching)", exact_tv(lambda case, draws: vllm_tree_round(PROBS, draws), PROBS)))
