"""Verifiers in plain numpy, as an engine's test would write them: a target-only tree walk (exact
and saturated), batched and per sample, and planted bugs."""
from types import SimpleNamespace

import numpy as np

_root_cdfs = {}


def walk_tables(case):
    """Per case: each node's CDF over tokens, and its child on each token (-1: none)."""
    cdf = np.cumsum(case.probs, axis=1)
    child = np.full((case.nodes, case.vocab), -1, dtype=np.int64)
    child[case.parents[1:], case.tokens[1:]] = np.arange(1, case.nodes)
    return cdf, child


def walk_batch(case, n, rng, full_row_bonus=False):
    """n target-only walks at once: draw the next token from p at the current node, follow it
    while it is a drafted child; otherwise it is the bonus. Its exit law is the canonical one.
    full_row_bonus plants a bug: where a walk stops, the bonus is drawn again from the full row."""
    cdf, child = walk_tables(case)
    width = max(case.nodes - 1, 1)
    accepted = np.full((n, width), -1, dtype=np.int64)
    bonus = np.empty(n, dtype=np.int64)
    node = np.zeros(n, dtype=np.int64)
    active = np.arange(n)

    def draw(nodes):
        u = rng.random(nodes.size)
        tokens = np.empty(nodes.size, dtype=np.int64)
        for v in np.unique(nodes):
            at = nodes == v
            tokens[at] = np.minimum(np.searchsorted(cdf[v], u[at], side="right"), case.vocab - 1)
        return tokens

    for level in range(width + 1):
        if active.size == 0:
            break
        tokens = draw(node[active])
        nxt = child[node[active], tokens]
        stop = nxt < 0
        stopped = active[stop]
        bonus[stopped] = draw(node[stopped]) if full_row_bonus else tokens[stop]
        go = active[~stop]
        if go.size == 0:  # every walk stopped (at the deepest level, `level` is past the last column)
            break
        accepted[go, level] = tokens[~stop]
        node[go] = nxt[~stop]
        active = go
    return accepted, bonus


def walk_one(case, rng):
    """The same walk, one sample per call, on a generator seeded from tevsuite's randomness."""
    accepted, bonus = walk_batch(case, 1, np.random.default_rng(rng.bits()))
    return accepted[0][accepted[0] >= 0], bonus[0]


def uniform_bonus(case, rng):
    """A bug: accept nothing, the bonus uniform over V."""
    return [], int(rng.uniform() * case.vocab)


def root_bonus(case, rng):
    """Accept nothing, the bonus from the root's full row: exact, not saturated. The row's CDF is
    computed once per case (the case object is the same for all of its samples)."""
    cdf = _root_cdfs.get(case.id)
    if cdf is None or cdf.size != case.vocab:
        cdf = _root_cdfs[case.id] = np.cumsum(case.probs[0])
    return [], min(int(np.searchsorted(cdf, rng.uniform(), side="right")), case.vocab - 1)


def root_bonus_batch(case, n, rng):
    """root_bonus for n samples at once."""
    tokens = np.searchsorted(np.cumsum(case.probs[0]), rng.random(n), side="right")
    return np.full((n, 1), -1), np.minimum(tokens, case.vocab - 1)


def process_rows(logits, sampling, unprocessed=False):
    """An engine's own sampling-parameter processing in numpy, over (N, V) logits: temperature,
    softmax, min-p, top-k, top-p on the survivors (ties by token id), renormalize; min-p after
    top-p when order is "min_p_last"; top-p's cut on the full softmax, intersected with top-k and
    min-p, when it is "top_p_full_and_top_k"; greedy below a temperature of 1e-5. unprocessed plants
    the bug: softmax(logits), parameters ignored."""
    if unprocessed:
        sampling = dict(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, order="min_p_first")
    n, vocab = logits.shape
    rows = np.arange(n)[:, None]
    if sampling["temperature"] < 1e-5:
        probs = np.zeros_like(logits)
        probs[np.arange(n), np.argmax(logits, axis=1)] = 1.0
        return probs
    z = (logits - logits.max(axis=1, keepdims=True)) / sampling["temperature"]
    probs = np.exp(z)
    probs /= probs.sum(axis=1, keepdims=True)
    full = probs.copy()
    if 0 < sampling["top_k"] < vocab:
        kth = np.sort(logits, axis=1)[:, vocab - sampling["top_k"]][:, None]
        probs[logits < kth] = 0.0
    largest = probs.max(axis=1, keepdims=True)
    min_p_last = sampling["order"] == "min_p_last"
    if sampling["min_p"] > 0.0 and not min_p_last:
        probs[probs < sampling["min_p"] * largest] = 0.0
    if sampling["top_p"] < 1.0:
        seen = full if sampling["order"] == "top_p_full_and_top_k" else probs
        order = np.argsort(-seen, axis=1, kind="stable")
        ranked = seen[rows, order]
        before = np.cumsum(ranked, axis=1) - ranked
        drop = before >= sampling["top_p"] * ranked.sum(axis=1, keepdims=True)
        probs[np.broadcast_to(rows, order.shape)[drop], order[drop]] = 0.0
    if sampling["min_p"] > 0.0 and min_p_last:
        probs[probs < sampling["min_p"] * largest] = 0.0
    return probs / probs.sum(axis=1, keepdims=True)


def engine_walk_batch(case, n, rng, unprocessed=False):
    """walk_batch on an engine-shaped case, after processing its logits (or, the bug, not)."""
    processed = SimpleNamespace(probs=process_rows(case.logits, case.sampling, unprocessed), nodes=case.nodes, vocab=case.vocab,
                                parents=case.parents, tokens=case.tokens)
    return walk_batch(processed, n, rng)
