#!/usr/bin/env python3
"""SGLang (EagleVerifyInput.verify at 0007d13b): the verify path applies no min-p.

python/sglang/srt/speculative/eagle_info.py EagleVerifyInput.verify (lines 299-320 at f1f60ea0;
0007d13b is not in the copy read) turns the target logits into softmax(logits / T) (304-306),
then top_k_renorm_prob (307-312), then top_p_renorm_prob (313-319), and hands them to
tree_speculative_sampling_target_only (exact against them at thresholds 1). SGLang's sampler, in
a batch with a min-p request, applies top-k, top-p, then min-p (min_p_last). Tracking: SGLang PR
#36173 says min-p is not applied in speculative decoding.

    PYTHONPATH=build/python python3 examples/gallery/findings/sglang_min_p.py
"""
import sys

import numpy as np

import tevsuite
from law import exact_tv, report, softmax, walk

LOGITS = np.log(np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3))
SAMPLING = dict(temperature=1.0, top_p=0.95, min_p=0.15)  # top-p keeps tokens 0-3, min-p then drops token 3 (0.05 / 0.5 < 0.15)


def top_p_renorm(probs, top_p):
    """Keeps each row's largest probabilities while the mass before them is below top_p, renormalized."""
    order = np.argsort(-probs, axis=1, kind="stable")
    ranked = np.take_along_axis(probs, order, axis=1)
    keep = np.zeros_like(probs, dtype=bool)
    np.put_along_axis(keep, order, np.cumsum(ranked, axis=1) - ranked < top_p, axis=1)
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum(axis=1, keepdims=True)


def verified_rows(logits, temperature, top_p):
    """The verify path's rows: softmax(logits / T), top-p renormalized (top-k off), no min-p."""
    return top_p_renorm(softmax(logits / temperature), top_p)


if __name__ == "__main__":
    reference = np.stack([tevsuite.process_logits(row, **SAMPLING, order="min_p_last") for row in LOGITS])
    rows = verified_rows(LOGITS, SAMPLING["temperature"], SAMPLING["top_p"])
    sys.exit(report("SGLang verify path without min-p", exact_tv(walk(rows), reference)))
