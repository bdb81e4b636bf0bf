"""Sampling parameters as an engine applies them, for the example verifiers (standard library).

tevsuite's engine-shaped cases (format_version 3 and 4) give float32 logit rows and a request's
sampling parameters; the canonical law is that of the processed target. The order of operations
is vLLM's: logits / temperature, softmax, min-p (keep p >= min_p * max p), top-k (keep every
logit >= the k-th largest), top-p on the survivors renormalized (descending, ties by token id,
keep while the mass before a token is below top_p), renormalize. "order": "min_p_last" applies
min-p after top-p, as Hugging Face transformers does. Temperature 0 is greedy (the first argmax).

bug (for the suite's planted-bug tests):
    unprocessed-target          the parameters are ignored: softmax(logits)
    temperature-after-softmax   filters on softmax(logits), then the probabilities are divided by
                                the temperature and renormalized (which undoes nothing: a no-op)
"""
import math


def logit_row(row, vocab):
    """A dense list of V logits from a dense row or a sparse {"tokens", "logits", "fill"} one."""
    if isinstance(row, list):
        return list(row)
    out = [row.get("fill", 0.0)] * vocab
    for t, z in zip(row["tokens"], row["logits"]):
        out[t] = z
    return out


def process(logits, sampling, bug=None):
    """The distribution an engine samples from after `sampling` ({"temperature", "top_k", "top_p",
    "min_p", "order"}, each optional)."""
    temperature = sampling.get("temperature", 1.0)
    top_k = sampling.get("top_k", 0)
    top_p = sampling.get("top_p", 1.0)
    min_p = sampling.get("min_p", 0.0)
    min_p_last = sampling.get("order", "min_p_first") == "min_p_last"
    if bug == "unprocessed-target":
        temperature, top_k, top_p, min_p = 1.0, 0, 1.0, 0.0
    top = max(logits)
    if temperature == 0.0:
        probs = [0.0] * len(logits)
        probs[logits.index(top)] = 1.0
        return probs
    scale = 1.0 if bug == "temperature-after-softmax" else temperature
    probs = [math.exp((z - top) / scale) for z in logits]
    if 0 < top_k < len(logits):
        kth = sorted(logits, reverse=True)[top_k - 1]
        probs = [p if z >= kth else 0.0 for p, z in zip(probs, logits)]
    largest = max(probs)
    if min_p > 0.0 and not min_p_last:
        probs = [p if p >= min_p * largest else 0.0 for p in probs]
    if top_p < 1.0:
        total, before = sum(probs), 0.0
        for t in sorted(range(len(probs)), key=lambda t: (-probs[t], t)):
            if probs[t] == 0.0:
                break
            if before >= top_p * total:
                probs[t] = 0.0
            else:
                before += probs[t]
    if min_p > 0.0 and min_p_last:
        probs = [p if p >= min_p * largest else 0.0 for p in probs]
    if bug == "temperature-after-softmax":
        probs = [p / temperature for p in probs]
    total = sum(probs)
    return [p / total for p in probs]
