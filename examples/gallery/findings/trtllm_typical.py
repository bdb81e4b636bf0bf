#!/usr/bin/env python3
"""TensorRT-LLM (2a9abd95): typicalAcceptanceSampling draws each node's target token from a
truncated target.

cpp/tensorrt_llm/kernels/speculativeDecoding/common.cu typicalAcceptanceSampling samples each
node's token from softmax(l / T) with the tokens under min(threshold, alpha exp(-H)) removed;
acceptDraftTokensByIdsWithPaths then accepts the path whose drafts match them: the walk over the
truncated rows. Threshold 0.3 and alpha 0.09 here, temperature 1. Not exact by design.

    PYTHONPATH=build/python python3 examples/gallery/findings/trtllm_typical.py
"""
import sys

import numpy as np

from law import exact_tv, report, walk

PROBS = np.array([[0.50, 0.30, 0.17, 0.02, 0.01]] * 3)  # threshold 0.09 exp(-H) = 0.028: tokens 3 and 4 removed


def truncated_rows(probs, threshold=0.3, alpha=0.09):
    entropy = -(probs * np.log(np.maximum(probs, 1e-38))).sum(axis=1, keepdims=True)
    kept = np.where(probs < np.minimum(threshold, alpha * np.exp(-entropy)), 0.0, probs)
    return kept / kept.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    sys.exit(report("TensorRT-LLM typicalAcceptanceSampling", exact_tv(walk(truncated_rows(PROBS)), PROBS)))
