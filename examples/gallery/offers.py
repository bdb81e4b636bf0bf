"""What an engine's own sampler offers a request, in tevsuite's terms, and the law a routine
samples when it is exact against the rows it verifies with.

A request offers itself to an engine when the engine takes every filter the request switches on
and applies the request's filter order (docs/protocol.md's three), or an order that processes the
request's rows alike. A routine's ``engine_order(request, batch)`` (the option of
``tevsuite.check_tree`` and ``check_batch``) returns the order its engine's sampler applies to an
offered request, which may depend on the requests verified with it, and None otherwise.
"""
import numpy as np

from tevsuite import GREEDY_TEMPERATURE, TreeCase, exact_law, process_logits

FILTERS = dict(top_k=0, top_p=1.0, min_p=0.0)  # each filter's value when off


def used(request):
    """The filters a request switches on; none for a greedy one (no filter moves the argmax)."""
    if request["temperature"] < GREEDY_TEMPERATURE:
        return set()
    return {name for name, off in FILTERS.items() if request[name] != off}


def same_rows(request, a, b):
    """Whether orders a and b process the request's rows alike: they differ only where top-p meets
    top-k or min-p, and min_p_first and min_p_last only where top-p meets min-p."""
    filters = used(request)
    if a == b or "top_p" not in filters or filters == {"top_p"}:
        return True
    return {a, b} == {"min_p_first", "min_p_last"} and "min_p" not in filters


def not_offered(request, filters, orders):
    """Why an engine taking `filters` in one of `orders` does not offer the request; None where it
    does."""
    missing = sorted(used(request) - set(filters))
    if missing:
        return f"{' and '.join(m.replace('_', '-') for m in missing)} not taken"
    if not any(same_rows(request, request["order"], o) for o in orders):
        return f"order {request['order']} not applied"
    return None


def engine_order(request, order, filters, orders):
    """`order`, the engine's for this request, where the engine offers it; None otherwise."""
    return None if not_offered(request, filters, orders) else order


def reference_rows(case, order):
    """A case's logit rows processed by tevsuite's reference in `order`: (N, V)."""
    return np.stack([process_logits(row, **dict(case.sampling, order=order)) for row in case.logits])


def walk(rows):
    """The drawing form of a routine that is exact against `rows` (N, V): from the root, the token
    after each node drawn from its row, a drafted child's continuing the walk."""

    def verify(case, draws):
        node, accepted = 0, []
        children = {(int(case.parents[i]), int(case.tokens[i])): i for i in range(1, case.nodes)}
        while True:
            token = int(draws.next_token(node, rows[node]))
            if (node, token) not in children:
                return accepted, token
            node = children[(node, token)]
            accepted.append(token)

    return verify


def walk_tv(case, routine_rows, reference):
    """The exact TV of the law a routine exact against routine_rows (N, V) samples on a case's tree,
    from the canonical law of the reference rows (N, V): tevsuite's exact-law enumeration of the
    walk."""
    own = TreeCase(np.asarray(case.parents), np.asarray(case.tokens), np.asarray(reference, dtype=np.float64))
    return exact_law(walk(np.asarray(routine_rows, dtype=np.float64)), own).tv


def inverse_cdf(weights, u):
    """The token a uniform u in [0, 1) picks by inverse CDF from weights (not necessarily normalized):
    the draw of a categorical, as the engines' CPU samplers make it."""
    cdf = np.cumsum(weights)
    return int(min(np.searchsorted(cdf, u * cdf[-1], side="right"), len(weights) - 1))


def completed_tv(case, law, reference):
    """The exact TV from the canonical law of the reference rows (N, V) of a routine's law of one round
    given as the mass of each (exit node, next token) (N, V): a next token that is a drafted child
    of its exit node continues as the reference does below that child (tevsuite's completion)."""
    reference = np.asarray(reference, dtype=np.float64)
    parents, tokens, nodes = np.asarray(case.parents), np.asarray(case.tokens), len(case.parents)
    reach = np.ones(nodes)  # the reference's probability of each node's path
    for i in range(1, nodes):
        reach[i] = reach[parents[i]] * reference[parents[i], tokens[i]]
    exits = reference.copy()  # a node's exit row: its drafted children's tokens continue
    exits[parents[1:], tokens[1:]] = 0.0
    canonical = reach[:, None] * exits
    drafted = np.zeros(reference.shape, dtype=bool)
    drafted[parents[1:], tokens[1:]] = True
    completed = np.where(drafted, 0.0, law)
    for child in range(1, nodes):
        mass = law[parents[child], tokens[child]]
        if mass == 0:
            continue
        if reach[child] == 0:  # a drafted child of no reference mass: off the canonical law
            completed[parents[child], tokens[child]] += mass
            continue
        below = [child]
        for m in range(child + 1, nodes):
            if parents[m] in below:
                below.append(m)
        for m in below:
            completed[m] += mass * reach[m] / reach[child] * exits[m]
    return 0.5 * float(np.abs(completed - canonical).sum())
