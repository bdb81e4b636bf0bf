#!/usr/bin/env python3
"""vLLM V1 (0097a7bb): RejectionSampler.forward verifies against rows without min-p.

vllm/v1/sample/rejection_sampler.py compute_probs applies temperature, top-k and top-p to the
verified rows, not min-p (tracked: vLLM issue #42744, PR #42802); vLLM's own sampler applies
min-p first (min_p_first). Target-only verification (no draft probs: n-gram, EAGLE, MTP) is
exact against the rows it is given, so its law is the walk over them.

    PYTHONPATH=build/python python3 examples/gallery/findings/vllm_min_p.py
"""
import sys

import numpy as np

import tevsuite
from law import exact_tv, report, softmax, walk

LOGITS = np.log(np.array([[0.50, 0.30, 0.12, 0.05, 0.03]] * 3))  # (3, V): every node's row
SAMPLING = dict(temperature=1.0, min_p=0.1)  # keeps p >= 0.05: drops token 4 (0.03)


def verified_rows(logits, temperature):
    """compute_probs on these rows: logits / temperature, softmax (top-k and top-p off)."""
    return softmax(logits / temperature)


if __name__ == "__main__":
    reference = np.stack([tevsuite.process_logits(row, **SAMPLING, order="min_p_first") for row in LOGITS])
    sys.exit(report("vLLM compute_probs without min-p", exact_tv(walk(verified_rows(LOGITS, SAMPLING["temperature"])), reference)))
