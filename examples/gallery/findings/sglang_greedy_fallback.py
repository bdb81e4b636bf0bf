#!/usr/bin/env python3
"""SGLang (f1f60ea0, 29bd4e85): sampling requests verified greedily without the tree sampling kernel.

python/sglang/srt/speculative/eagle_info.py:275-296 (EagleVerifyInput.verify at f1f60ea0): where
TREE_SPEC_KERNEL_AVAILABLE is false (a build without the kernel, "likely AMD/HIP"; a warning at
:277-281) or on NPU (:283), every request of the batch takes the argmax of its logits as the
target token at each node (:284) and sgl-kernel/csrc/speculative/eagle_utils.cu:271-313
(VerifyTreeGreedy at 29bd4e85) follows the child equal to it; the token after the last accepted
node is its argmax. A sampling request gets one block, the argmax path.

    PYTHONPATH=build/python python3 examples/gallery/findings/sglang_greedy_fallback.py
"""
import sys

import numpy as np

from law import PARENTS, TOKENS, exact_tv, report

PROBS = np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3)


def greedy_round(probs):
    """(accepted tokens, next token) of VerifyTreeGreedy on the shared tree with argmax targets."""
    node, accepted = 0, []
    while True:
        target = int(np.argmax(probs[node]))
        child = [i for i in range(1, len(PARENTS)) if PARENTS[i] == node and TOKENS[i] == target]
        if not child:
            return accepted, target
        node = child[0]
        accepted.append(target)


if __name__ == "__main__":
    sys.exit(report("SGLang greedy verification of a sampling request", exact_tv(lambda case, draws: greedy_round(PROBS), PROBS)))
