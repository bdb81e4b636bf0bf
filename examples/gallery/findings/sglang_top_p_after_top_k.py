#!/usr/bin/env python3
"""SGLang (EagleVerifyInput.verify at 0007d13b): top-p after top-k's renormalization.

The verify path (python/sglang/srt/speculative/eagle_info.py:307-319 at f1f60ea0; 0007d13b is not
in the copy read) takes top_k_renorm_prob, then top_p_renorm_prob: top-p's cut on the top-k
survivors renormalized. SGLang's sampler in a batch without a min-p request
(python/sglang/srt/layers/sampler.py, top_k_top_p_sampling_from_probs) takes top-p's cut on the
full row, jointly with top-k (top_p_full_and_top_k). With top-k 2 and top-p 0.7 on p = (0.6, 0.25,
0.1, 0.05, 0): the sampler keeps tokens 0 and 1 (0.706, 0.294); the verify path renormalizes to
(0.706, 0.294) and its top-p then keeps token 0 alone. Not reported upstream.

    PYTHONPATH=build/python python3 examples/gallery/findings/sglang_top_p_after_top_k.py
"""
import sys

import numpy as np

import tevsuite
from law import exact_tv, report, softmax, walk
from sglang_min_p import top_p_renorm

with np.errstate(divide="ignore"):
    LOGITS = np.log(np.array([[0.60, 0.25, 0.10, 0.05, 0.0]] * 3))
SAMPLING = dict(temperature=1.0, top_k=2, top_p=0.7)


def top_k_renorm(probs, top_k):
    """Keeps each row's probabilities at least its k-th largest, renormalized."""
    kth = -np.sort(-probs, axis=1)[:, top_k - 1:top_k]
    kept = np.where(probs >= kth, probs, 0.0)
    return kept / kept.sum(axis=1, keepdims=True)


def verified_rows(logits, temperature, top_k, top_p):
    return top_p_renorm(top_k_renorm(softmax(logits / temperature), top_k), top_p)


if __name__ == "__main__":
    reference = np.stack([tevsuite.process_logits(row, **SAMPLING, order="top_p_full_and_top_k") for row in LOGITS])
    rows = verified_rows(LOGITS, SAMPLING["temperature"], SAMPLING["top_k"], SAMPLING["top_p"])
    sys.exit(report("SGLang verify path, top-p after top-k", exact_tv(walk(rows), reference)))
