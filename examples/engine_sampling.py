"""Sampling parameters as an engine applies them, for the example verifiers (standard library).

tevsuite's engine-shaped cases (format_version 3 and 4) give float32 logit rows and a request's
sampling parameters; the canonical law is that of the processed target. The order of operations
is vLLM's: logits / temperature, softmax, min-p (keep p >= min_p * max p), top-k (keep every
logit >= the k-th largest), top-p on the survivors renormalized (descending, ties by token id,
keep while the mass before a token is below top_p), renormalize. "order": "min_p_last" applies
min-p after top-p, as Hugging Face transformers does; "top_p_full_and_top_k" takes top-p's cut on
the full tempered distribution and keeps what top-p, top-k and min-p all keep, as SGLang does. A
temperature below 1e-5 (vLLM's _SAMPLING_EPS; 0 included) is greedy (the first argmax).

bug (for the suite's planted-bug tests):
    unprocessed-target          the parameters are ignored: softmax(logits)
    temperature-after-softmax   filters on softmax(logits), then the probabilities are divided by
                                the temperature and renormalized (which undoes nothing: a no-op)
    logits-as-logprobs          the row is taken for normalized log-probabilities: top-p compares
                                the running sum of exp(z / T) with top_p unnormalized
    softmax-no-max-fp16         exp(z / T) in float16 without subtracting the row's largest logit,
                                converted with saturation (above 65504: 65504; below 2^-25: 0); a
                                row left without mass yields token 0, as an inverse-CDF sampler
                                whose cumulative sum never passes its uniform returns its first index
    order-swapped               min_p_first and min_p_last swapped
    full-and-top-k-as-vllm      top_p_full_and_top_k processed in vLLM's order (top-p on the
                                top-k survivors)
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


GREEDY_TEMPERATURE = 1e-5  # vLLM's _SAMPLING_EPS
FP16_MAX = 65504.0
FP16_SMALLEST = 2.0 ** -24  # the smallest float16 subnormal: half of it and below round to 0


def fp16_exp(x):
    """exp(x) rounded to float16's range by a saturating conversion (precision kept: only the
    range matters to the bug)."""
    if x > math.log(FP16_MAX):
        return FP16_MAX
    y = math.exp(x)
    return 0.0 if y <= FP16_SMALLEST / 2 else y


def top_p_keep(probs, top_p, total):
    """The tokens top-p keeps of probs: descending, ties by token id, while the mass before them
    is below top_p of `total`."""
    keep, before = set(), 0.0
    for t in sorted(range(len(probs)), key=lambda t: (-probs[t], t)):
        if probs[t] == 0.0 or before >= top_p * total:
            break
        keep.add(t)
        before += probs[t]
    return keep


def process(logits, sampling, bug=None):
    """The distribution an engine samples from after `sampling` ({"temperature", "top_k", "top_p",
    "min_p", "order"}, each optional)."""
    temperature = sampling.get("temperature", 1.0)
    top_k = sampling.get("top_k", 0)
    top_p = sampling.get("top_p", 1.0)
    min_p = sampling.get("min_p", 0.0)
    order = sampling.get("order", "min_p_first")
    if bug == "unprocessed-target":
        temperature, top_k, top_p, min_p = 1.0, 0, 1.0, 0.0
    if bug == "order-swapped":
        order = {"min_p_first": "min_p_last", "min_p_last": "min_p_first"}.get(order, order)
    if bug == "full-and-top-k-as-vllm" and order == "top_p_full_and_top_k":
        order = "min_p_first"
    top = max(logits)
    if temperature < GREEDY_TEMPERATURE:
        probs = [0.0] * len(logits)
        probs[logits.index(top)] = 1.0
        return probs
    scale = 1.0 if bug == "temperature-after-softmax" else temperature
    if bug == "softmax-no-max-fp16":
        probs = [fp16_exp(z / scale) for z in logits]
    elif bug == "logits-as-logprobs":
        probs = [math.exp(z / scale) for z in logits]
    else:
        probs = [math.exp((z - top) / scale) for z in logits]
    full = list(probs)
    largest = max(probs)
    if 0 < top_k < len(logits):
        kth = sorted(logits, reverse=True)[top_k - 1]
        probs = [p if z >= kth else 0.0 for p, z in zip(probs, logits)]
    if min_p > 0.0 and order != "min_p_last":
        probs = [p if p >= min_p * largest else 0.0 for p in probs]
    if top_p < 1.0:
        seen = full if order == "top_p_full_and_top_k" else probs
        keep = top_p_keep(seen, top_p, 1.0 if bug == "logits-as-logprobs" else sum(seen))
        probs = [p if t in keep else 0.0 for t, p in enumerate(probs)]
    if min_p > 0.0 and order == "min_p_last":
        probs = [p if p >= min_p * largest else 0.0 for p in probs]
    if bug == "temperature-after-softmax":
        probs = [p / temperature for p in probs]
    total = sum(probs)
    if total == 0.0 and bug == "softmax-no-max-fp16":
        return [1.0] + [0.0] * (len(probs) - 1)
    return [p / total for p in probs]
