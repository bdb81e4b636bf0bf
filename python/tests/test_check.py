"""The Python package against the same verdicts as `tevsuite conformance run` and the C++ library:
numpy verifiers batched and per sample, planted bugs, model cases, reproducibility, and bad answers
as exceptions naming the case and sample. Family alpha 1e-3 (the default), fixed seeds."""
from types import SimpleNamespace

import numpy as np
import pytest

import tevsuite
from tevsuite import Verdict, VerifierError
from numpy_verifiers import engine_walk_batch, process_rows, root_bonus, uniform_bonus, walk_batch, walk_one

# The sparse case over V = 64 and 20,000 samples a case: quick, for tests whose verdict is far
# from the line; the default budgets where a verdict of "exact" must be conclusive.
SMALL = dict(samples=20_000, large_vocab=64, large_vocab_factor=1)


def test_batched_walk_is_exact_and_saturated_on_the_default_cases():
    report = tevsuite.check_tree(verify_batch=walk_batch)
    assert report.verdict == Verdict.EXACT_SATURATED, report.describe()
    assert report.verdict_text == "exact and saturated"
    assert len(report.cases) == 8 and report.first_failing() is None
    for case in report.cases:
        assert case.samples in (100_000, 400_000)
        assert 0.0 < case.p_value <= 1.0 and case.p_holm >= case.p_value
        assert case.detectable_tv is not None and case.detectable_tv <= 0.05
        assert case.exact_tv is None


def test_full_row_bonus_bug_is_caught_with_its_first_failing_case():
    report = tevsuite.check_tree(verify_batch=lambda c, n, rng: walk_batch(c, n, rng, full_row_bonus=True))
    assert report.verdict == Verdict.NOT_EXACT
    failing = report.first_failing()
    assert failing is not None and failing.verdict == Verdict.NOT_EXACT
    assert f"first failing case: {failing.id}" in report.describe()
    assert "largest cell deviations" in str(report)


def test_per_sample_verifiers_get_their_kinds_verdicts():
    assert tevsuite.check_tree(uniform_bonus, **SMALL).verdict == Verdict.NOT_EXACT
    assert tevsuite.check_tree(root_bonus, samples=50).verdict == Verdict.INCONCLUSIVE
    assert tevsuite.check_tree(walk_one, cases=2, samples=500).verdict == Verdict.INCONCLUSIVE


def test_runs_are_reproducible_and_do_not_depend_on_the_threads():
    one = tevsuite.check_tree(verify_batch=walk_batch, threads=1, batch=5000, **SMALL)
    two = tevsuite.check_tree(verify_batch=walk_batch, threads=2, batch=5000, **SMALL)
    assert [c.p_value for c in one.cases] == [c.p_value for c in two.cases]
    other_seed = tevsuite.check_tree(verify_batch=walk_batch, seed=7, batch=5000, **SMALL)
    assert [c.p_value for c in one.cases] != [c.p_value for c in other_seed.cases]


def test_case_arrays_are_read_only_numpy_in_level_order():
    seen = {}

    def record(case, n, rng):
        seen[case.id] = case
        return walk_batch(case, n, rng)

    tevsuite.check_tree(verify_batch=record, **SMALL)
    case = seen["c0"]
    assert case.parents.dtype == np.int32 and case.probs.shape == (case.nodes, case.vocab)
    assert case.parents[0] == -1 and all(case.parents[1:] < np.arange(1, case.nodes))
    assert np.allclose(case.probs.sum(axis=1), 1.0)
    with pytest.raises(ValueError):
        case.probs[0, 0] = 1.0


def p_row_bonus(case, rng):
    row = np.cumsum(case.p([]))
    return [], min(int(np.searchsorted(row, rng.uniform(), side="right")), case.vocab - 1)


def q_row_bonus(case, rng):
    row = np.cumsum(case.q([]))
    return [], min(int(np.searchsorted(row, rng.uniform(), side="right")), case.vocab - 1)


def test_model_cases_bonus_from_p_is_exact_from_q_is_not():
    exact = tevsuite.check_model(p_row_bonus)
    assert exact.verdict == Verdict.EXACT_SATURATED, exact.describe()
    assert exact.verdict_text == "exact (marginally)"
    assert tevsuite.check_model(q_row_bonus).verdict == Verdict.NOT_EXACT


def test_model_case_rows_and_hint():
    hints = []

    def look(case, rng):
        hints.append(case.drafting)
        assert case.p([0] * case.depth).shape == (case.vocab,)
        with pytest.raises(ValueError):
            case.q([case.vocab])
        return p_row_bonus(case, rng)

    tevsuite.check_model(look, samples=5, threads=1)
    assert any(h is not None and h["depth"] == 2 for h in hints)


def test_engine_inputs_processed_walk_is_exact_and_saturated_unprocessed_is_not():
    # The default budgets: "exact" must be conclusive.
    exact = tevsuite.check_tree(verify_batch=engine_walk_batch, engine_inputs=True)
    assert exact.verdict == Verdict.EXACT_SATURATED, exact.describe()
    bug = tevsuite.check_tree(verify_batch=lambda c, n, rng: engine_walk_batch(c, n, rng, unprocessed=True), engine_inputs=True)
    assert bug.verdict == Verdict.NOT_EXACT, bug.describe()
    assert all(c.verdict == Verdict.NOT_EXACT for c in bug.cases), bug.describe()


def test_engine_cases_give_logits_and_sampling_and_match_the_reference():
    seen = {}

    def look(case, n, rng):
        assert case.probs is None and case.logits.shape == (case.nodes, case.vocab)
        assert set(case.sampling) == {"temperature", "top_k", "top_p", "min_p", "order"}
        mine = process_rows(case.logits, case.sampling)
        reference = np.stack([tevsuite.process_logits(row, **case.sampling) for row in case.logits])
        seen[case.id] = float(np.abs(mine - reference).max())
        return walk_batch(SimpleNamespace(probs=reference, nodes=case.nodes, vocab=case.vocab, parents=case.parents,
                                          tokens=case.tokens), n, rng)

    tevsuite.check_tree(verify_batch=look, engine_inputs=True, samples=10, large_vocab=64, large_vocab_factor=1)
    assert len(seen) == 8 and max(seen.values()) < 1e-12, seen


def stated_orders():
    """Each engine-shaped case's id and its stated sampling, from a check of 1 sample a case."""
    stated = {}

    def look(case, n, rng):
        stated[case.id] = dict(case.sampling)
        return walk_batch(SimpleNamespace(probs=process_rows(case.logits, case.sampling), nodes=case.nodes, vocab=case.vocab,
                                          parents=case.parents, tokens=case.tokens), n, rng)

    tevsuite.check_tree(verify_batch=look, engine_inputs=True, samples=1, large_vocab=64, large_vocab_factor=1)
    return stated


def test_engine_order_leaves_out_what_the_engine_does_not_offer_and_judges_the_rest_in_its_order():
    # An engine whose sampler applies min_p_first only and takes no top_p_full_and_top_k request:
    # those are neither run nor judged; the others are judged in min_p_first, and the case the
    # verifier sees names it. 20,000 samples a case, alpha 1e-3, the default seed.
    stated = stated_orders()
    engine = lambda request, batch: None if request["order"] == "top_p_full_and_top_k" else "min_p_first"  # noqa: E731
    options = dict(engine_inputs=True, engine_order=engine, samples=20_000, large_vocab=64, large_vocab_factor=1)
    seen = {}

    def in_engine_order(case, n, rng):
        seen[case.id] = case.sampling["order"]
        return engine_walk_batch(case, n, rng)

    report = tevsuite.check_tree(verify_batch=in_engine_order, **options)
    offered = [i for i, s in stated.items() if s["order"] != "top_p_full_and_top_k"]
    assert [c.id for c in report.cases] == offered and set(seen) == set(offered), (offered, seen)
    assert set(seen.values()) == {"min_p_first"} and report.verdict != Verdict.NOT_EXACT, report.describe()
    # The same walk in each case's stated order: not exact where min_p_last's rows differ (min-p after top-p).
    stated_order = lambda case, n, rng: engine_walk_batch(SimpleNamespace(  # noqa: E731
        logits=case.logits, sampling=stated[case.id], nodes=case.nodes, vocab=case.vocab, parents=case.parents, tokens=case.tokens), n, rng)
    bug = tevsuite.check_tree(verify_batch=stated_order, **options)
    restated = [i for i in offered if stated[i]["order"] == "min_p_last"]
    assert restated and {c.id for c in bug.cases if c.verdict == Verdict.NOT_EXACT} == set(restated), bug.describe()


def test_engine_order_sees_each_request_with_its_batch():
    calls = []

    def engine(request, batch):
        calls.append((request, batch))
        return request["order"]

    blocks = lambda requests, rng: (np.full((len(requests), 1), -1), np.zeros(len(requests), dtype=np.int64))  # noqa: E731
    tevsuite.check_batch(verify_requests=blocks, rounds=1, engine_inputs=True, engine_order=engine)
    assert len(calls) == 8 and all(len(batch) == 4 and request in batch for request, batch in calls), calls


def test_engine_model_cases_give_logits_only():
    def look(case, rng):
        assert case.target_sampling is not None and case.drafter_sampling is not None
        with pytest.raises(RuntimeError):
            case.p([])
        p = tevsuite.process_logits(case.p_logits([]), **case.target_sampling)
        return [], int(np.searchsorted(np.cumsum(p), rng.uniform(), side="right"))

    report = tevsuite.check_model(look, engine_inputs=True, samples=5, threads=1)
    assert len(report.cases) == 8


def test_process_logits_orders_and_greedy():
    # p = (0.4, 0.3, 0.2, 0.1), top-k 2, top-p 0.5: vLLM's top-p on the top-k survivors (4/7, 3/7)
    # keeps one token; SGLang's on the full row (mass before 0, 0.4, 0.7) keeps two, so does top-k.
    logits = np.log([0.4, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(tevsuite.process_logits(logits, top_k=2, top_p=0.5), [1.0, 0.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(tevsuite.process_logits(logits, top_k=2, top_p=0.5, order="top_p_full_and_top_k"), [4 / 7, 3 / 7, 0.0, 0.0], atol=1e-12)
    # Below a temperature of 1e-5 the row is greedy.
    np.testing.assert_array_equal(tevsuite.process_logits(logits, temperature=5e-6), [1.0, 0.0, 0.0, 0.0])


def test_process_logits_refuses_parameters_out_of_range():
    with pytest.raises(ValueError):
        tevsuite.process_logits(np.zeros(3), top_p=0.0)
    with pytest.raises(ValueError):
        tevsuite.process_logits(np.zeros(3), order="top_p_first")


def answers(bad):
    def verify(case, n, rng):
        accepted, bonus = walk_batch(case, n, rng)
        return bad(accepted, bonus, case)
    return verify


@pytest.mark.parametrize(
    "bad, message",
    [
        (lambda a, b, c: (a[:, :, None], b), r"case c0, samples 0\.\.19999: accepted must have 2 dimension"),
        (lambda a, b, c: (a.astype(float), b), r"case c0, samples 0\.\.19999: accepted must hold integers"),
        (lambda a, b, c: (a, np.full(b.shape, np.nan)), r"bonus must hold integers"),
        (lambda a, b, c: (a[:-1], b[:-1]), r"case c0, samples 0\.\.19999: expected 20000 blocks"),
        (lambda a, b, c: (a, np.where(np.arange(b.size) == 7, c.vocab, b)), r"case c0, sample 7: bonus token \d+ outside \[0, \d+\)"),
        (lambda a, b, c: (np.where(np.arange(a.size).reshape(a.shape) == 3, -2, a), b), r"case c0, sample 0: accepted token -2 outside"),
        (lambda a, b, c: (np.hstack([np.full((b.size, 1), -1), np.full((b.size, 1), 0)]), b), r"case c0, sample 0: accepted token 0 after the -1 padding"),
        (lambda a, b, c: 42, r"case c0, samples 0\.\.19999: expected \(accepted \[n, D\], bonus \[n\]\)"),
    ],
)
def test_bad_batched_answers_are_errors_naming_case_and_sample(bad, message):
    with pytest.raises(VerifierError, match=message):
        tevsuite.check_tree(verify_batch=answers(bad), **SMALL)


def test_a_raising_verifier_is_an_error_naming_case_and_sample():
    def crash(case, rng):
        if rng.sample == 3:
            raise RuntimeError("kernel failed")
        return root_bonus(case, rng)

    with pytest.raises(VerifierError, match=r"case c0, sample 3: the verifier raised RuntimeError: kernel failed"):
        tevsuite.check_tree(crash, threads=1, **SMALL)


def test_per_sample_out_of_range_and_non_integer_answers():
    with pytest.raises(VerifierError, match=r"sample \d+: bonus token 99999 outside"):
        tevsuite.check_tree(lambda c, r: ([], 99999), **SMALL)
    with pytest.raises(VerifierError, match=r"bonus must hold integers"):
        tevsuite.check_tree(lambda c, r: ([], 0.5), **SMALL)
    with pytest.raises(TypeError, match="exactly one of verify"):
        tevsuite.check_tree()


def shifted_bonus(case, n, rng):
    """A bug the int32 boundary would hide: every bonus 2**32 too large (int64), in range once
    narrowed."""
    accepted, bonus = walk_batch(case, n, rng)
    return accepted, bonus.astype(np.int64) + 2**32


def unsigned_padding(case, n, rng):
    """uint32 rows whose padding is 0xFFFFFFFF: tokens out of range, not -1."""
    accepted, bonus = walk_batch(case, n, rng)
    return accepted.astype(np.uint32), bonus.astype(np.uint32)


class FakeTensor:
    """What the package reads of a torch tensor (detach, cpu, numpy), without torch."""

    def __init__(self, array):
        self.array = array

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.array


@pytest.mark.parametrize(
    "verify, message",
    [
        (lambda c, n, rng: tuple(map(FakeTensor, shifted_bonus(c, n, rng))), r"case c0, sample 0: bonus token 4294967(29[6-9]|30\d|31[01]) outside"),
        (shifted_bonus, r"case c0, sample 0: bonus token 4294967(29[6-9]|30\d|31[01]) outside \[0, \d+\)"),
        (unsigned_padding, r"case c0, sample \d+: accepted token 4294967295 outside \[0, \d+\)"),
    ],
    ids=["int64 tensor", "int64", "uint32"],
)
def test_batched_tokens_are_range_checked_in_their_own_dtype(verify, message):
    with pytest.raises(VerifierError, match=message):
        tevsuite.check_tree(verify_batch=verify, **SMALL)


@pytest.mark.parametrize("bonus", [2**32, 2**32 + 1, 2**70, np.uint64(2**63 + 1)])
def test_per_sample_tokens_are_range_checked_before_narrowing(bonus):
    with pytest.raises(VerifierError, match=rf"case c0, sample \d+: bonus token {int(bonus)} outside"):
        tevsuite.check_tree(lambda c, r: ([], bonus), **SMALL)
    with pytest.raises(VerifierError, match=rf"case c0, sample \d+: accepted token {int(bonus)} outside"):
        tevsuite.check_tree(lambda c, r: ([bonus], 0), **SMALL)


def test_ragged_answers_are_errors_naming_case_and_samples():
    with pytest.raises(VerifierError, match=r"case c0, samples 0\.\.19999: accepted is not an array of integers"):
        tevsuite.check_tree(verify_batch=lambda c, n, rng: ([[0]] + [[]] * (n - 1), [0] * n), **SMALL)
    with pytest.raises(VerifierError, match=r"case c0, sample \d+: accepted is not an array of integers"):
        tevsuite.check_tree(lambda c, r: ([0, [1, 2]], 0), **SMALL)


def test_model_blocks_deeper_than_d_plus_one_are_errors_naming_case_and_sample():
    def too_deep(case, rng):
        return [0] * (case.depth + 1), 0

    def too_deep_row_3(case, n, rng):
        accepted = np.full((n, case.depth + 1), -1)
        accepted[3] = 0
        return accepted, np.zeros(n, dtype=np.int64)

    with pytest.raises(VerifierError, match=r"case m0, sample \d+: 3 accepted tokens, deeper than the case's D = 2"):
        tevsuite.check_model(too_deep, samples=100)
    with pytest.raises(VerifierError, match=r"case m0, sample 3: 3 accepted tokens, deeper than the case's D = 2"):
        tevsuite.check_model(verify_batch=too_deep_row_3, samples=100)


@pytest.mark.parametrize(
    "option, value",
    [("alpha", float("nan")), ("alpha", 0.0), ("alpha", -0.1), ("alpha", 1.5), ("alpha", "0.01"), ("samples", 0), ("samples", -1),
     ("samples", 2**32 + 1), ("samples", 100.5), ("cases", 0), ("seed", -1), ("seed", 2**32), ("batch", -1), ("batch", True)],
)
def test_options_outside_their_ranges_are_refused_before_anything_runs(option, value):
    def never(*args):
        raise AssertionError("the verifier ran")

    for check in (lambda: tevsuite.check_tree(never, **{option: value}), lambda: tevsuite.check_model(verify_batch=never, **{option: value})):
        with pytest.raises(ValueError, match=rf"^{option} must lie in \[") as raised:
            check()
        assert not isinstance(raised.value, VerifierError)
