"""check_batch: batches of requests verified together, one call a round. An exact walk per request
passes; a walk that reuses one uniform for every request of a round (exact per request, the
requests dependent) is caught by the tests of independence; bad answers raise VerifierError
naming the round and its requests; options out of range raise ValueError before anything runs.
One batch of 3 requests at 40,000 rounds (a conclusive "exact" needs 40,000 a request), family
alpha 1e-3, the default seed."""
import numpy as np
import pytest

import tevsuite
from tevsuite import Verdict, VerifierError

BATCH = dict(batches=1, requests=3, rounds=40_000)
_tables = {}


def walk(case, u):
    """One target-only walk driven by uniforms u (one per level): follow the drawn token while it
    is a drafted child, else it is the bonus. Returns (accepted tokens, bonus)."""
    if case.id not in _tables:
        child = {(int(p), int(t)): i for i, (p, t) in enumerate(zip(case.parents, case.tokens)) if i}
        _tables[case.id] = (np.cumsum(case.probs, axis=1), child)
    cdf, child = _tables[case.id]
    node, accepted = 0, []
    for level in range(len(u)):
        token = min(int(np.searchsorted(cdf[node], u[level], side="right")), case.vocab - 1)
        if (node, token) not in child:
            return accepted, token
        accepted.append(token)
        node = child[(node, token)]
    raise AssertionError("a walk deeper than its uniforms")


def verify_requests(requests, rng, shared=False):
    """Each request walked on its own uniforms (with `shared`, the first request's for all)."""
    depth = max(r.nodes for r in requests)
    generator = np.random.default_rng(rng.bits())
    draws = generator.random((len(requests), depth))
    accepted = np.full((len(requests), depth - 1), -1)
    bonus = np.empty(len(requests), dtype=np.int64)
    for k, r in enumerate(requests):
        tokens, bonus[k] = walk(r, draws[0] if shared else draws[k])
        accepted[k, :len(tokens)] = tokens
    return accepted, bonus


def test_independent_walks_are_exact_and_saturated_shared_uniforms_are_not_independent():
    report = tevsuite.check_batch(verify_requests=verify_requests, **BATCH)
    assert report.verdict == Verdict.EXACT_SATURATED, report.describe()
    assert [c.id for c in report.cases][:3] == ["k0/c0", "k0/c1", "k0/c2"] and len(report.cases) == 3 + 3
    shared = tevsuite.check_batch(verify_requests=lambda requests, rng: verify_requests(requests, rng, shared=True), **BATCH)
    assert shared.verdict == Verdict.NOT_EXACT, shared.describe()
    assert all(c.verdict != Verdict.NOT_EXACT for c in shared.cases[:3])  # each request alone is exact
    assert " x " in shared.first_failing().id


@pytest.mark.parametrize(
    "bad, message",
    [(lambda requests, rng: (np.full((2, 1), -1), np.zeros(2, dtype=np.int64)), r"expected 3 blocks, one per request"),
     (lambda requests, rng: (np.full((3, 1), -1), np.array([0, 0, 10**6])), r"request c2: bonus token 1000000 outside"),
     (lambda requests, rng: (np.full((3, 1), -1.0), np.zeros(3)), r"accepted must hold integers"),
     (lambda requests, rng: 1 / 0, r"the verifier raised ZeroDivisionError")],
)
def test_bad_answers_are_errors_naming_round_and_request(bad, message):
    with pytest.raises(VerifierError, match=r"^round 0 of the batch of requests c0, c1, c2.*" + message):
        tevsuite.check_batch(verify_requests=bad, requests=3, rounds=10)


@pytest.mark.parametrize(
    "option, value",
    [("requests", 0), ("requests", 65), ("batches", 0), ("rounds", 0), ("rounds", 2**32 + 1), ("alpha", 0.6), ("seed", -1), ("requests", 2.0)],
)
def test_options_outside_their_ranges_are_refused_before_anything_runs(option, value):
    def never(*args):
        raise AssertionError("the verifier ran")

    with pytest.raises(ValueError, match=rf"^{option} must lie in \[") as raised:
        tevsuite.check_batch(verify_requests=never, **{option: value})
    assert not isinstance(raised.value, VerifierError)
