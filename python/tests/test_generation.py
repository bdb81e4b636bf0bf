"""check_generation from Python: the requests as a loop sees them, the target and drafter rows,
the answers' rule (the same generations in any form give the same report; bad answers are
VerifierError naming the request and the generation, never a verdict), the options, and the
vLLM-named view of a request. Exactness itself is examples/generation's (an exact loop and its
planted bugs)."""
import numpy as np
import pytest

import tevsuite
from tevsuite import VerifierError, adapters

CASES = {c.id: c for c in tevsuite.generation_cases()}
FEW = dict(samples=2_000, batch=512)


def test_the_requests_as_the_loop_sees_them():
    assert list(CASES) == ["stops_vllm", "penalties_vllm", "grammar_vllm", "penalties_hf", "penalties_llama_cpp"]
    assert [c.request.semantics for c in CASES.values()] == ["vllm", "vllm", "vllm", "hf", "llama_cpp"]
    stops = CASES["stops_vllm"].request
    assert (CASES["stops_vllm"].vocab, stops.prompt, stops.temperature, stops.eos, stops.stop, stops.min_tokens, stops.max_new_tokens) == \
        (5, [1, 2], 0.9, [4], [3], 2, 4)
    penalties = CASES["penalties_vllm"].request
    assert (penalties.repetition_penalty, penalties.frequency_penalty, penalties.presence_penalty, penalties.top_p, penalties.order) == \
        (1.5, 0.7, 0.4, 0.95, "min_p_first")
    assert penalties.logit_bias == {1: 0.8, 4: -3.0} and penalties.grammar is None
    hf = CASES["penalties_hf"].request
    assert (hf.top_k, hf.min_p, hf.order, hf.min_tokens) == (4, 0.05, "min_p_last", 1)
    assert CASES["penalties_llama_cpp"].request.penalty_last_n == 3
    with pytest.raises(AttributeError):
        stops.temperature = 1.0


def test_the_grammar_is_its_tables_read_only():
    g = CASES["grammar_vllm"].request.grammar
    assert (g.states, g.start) == (3, 0)
    assert g.allowed.dtype == np.uint8 and g.next.dtype == np.int32 and g.allowed.shape == g.next.shape == (3, 5)
    assert g.allowed[0].tolist() == [1, 1, 0, 0, 0] and g.next[1, 2] == 2  # s0 allows 0 and 1; a 2 leads s1 to s2
    with pytest.raises(ValueError, match="read-only"):
        g.allowed[0, 0] = 0


def test_target_and_drafter_rows_after_each_sequence():
    case = CASES["stops_vllm"]
    rows = case.target([[1, 2], np.array([1, 2, 3]), [1, 2, 3, 4]])
    assert rows.shape == (3, 5) and rows.dtype == np.float64
    assert np.array_equal(case.target(np.array([[1, 2, 3]])), rows[1:2])  # an integer array's rows as lists
    assert not np.array_equal(case.drafter([[1, 2]]), rows[:1])
    assert case.target([]).shape == (0, 5)
    with pytest.raises(TypeError):
        case.target([[1.0, 2.0]])  # a float token is refused, not truncated
    with pytest.raises(ValueError, match=r"sequence 1 holds token 5, outside the vocabulary \[0, 5\)"):
        case.drafter([[1], [5]])


def varied(rng):
    """A generation of one or two tokens on a path the grammar allows (s0: 0 or 1, s1: 2 or 3):
    valid on every request, not what plain generation emits."""
    return [int(rng.integers(0, 2)), int(rng.integers(2, 4))][:int(rng.integers(1, 3))]


def padded(sequences, dtype=np.int64):
    out = np.full((len(sequences), 2), -1, dtype=dtype)
    for row, s in zip(out, sequences):
        row[:len(s)] = s
    return out


def torch_form(make):
    torch = pytest.importorskip("torch", reason="torch answers need torch (Debian: python3-torch)")
    return lambda sequences: torch.tensor(make(sequences))


@pytest.mark.parametrize("form", [
    lambda s: s,
    lambda s: [np.array(x, dtype=np.uint8) for x in s],
    padded,
    lambda s: padded(s, np.int16),
    "torch",
], ids=["lists", "uint8 arrays", "padded int64", "padded int16", "padded torch"])
def test_the_same_generations_in_any_form_give_the_same_report(form):
    if form == "torch":
        form = torch_form(padded)
    lists = tevsuite.check_generation(loop_batch=lambda case, n, rng: [varied(rng) for _ in range(n)], **FEW)
    report = tevsuite.check_generation(loop_batch=lambda case, n, rng: form([varied(rng) for _ in range(n)]), **FEW)
    one_a_call = tevsuite.check_generation(lambda case, rng: varied(rng), **FEW)  # the batch's generator, in order
    assert report.verdict == tevsuite.Verdict.NOT_EXACT  # judged: a generation of one or two tokens is impossible
    for other in (lists, one_a_call):
        assert other.describe() == report.describe()
        assert [(c.impossible, c.p_value) for c in other.cases] == [(c.impossible, c.p_value) for c in report.cases]


def answering(bad_request, bad):
    """A loop that answers `varied` generations, and bad(case, n, rng) on the request named."""
    def loop_batch(case, n, rng):
        return bad(case, n, rng) if case.id == bad_request else [varied(rng) for _ in range(n)]
    return loop_batch


def with_row(g, value):
    """Valid generations with generation g's answer replaced by `value`."""
    return lambda case, n, rng: [value if i == g else varied(rng) for i in range(n)]


@pytest.mark.parametrize("request_id, bad, message", [
    ("stops_vllm", with_row(3, []), r"request 'stops_vllm', generation 3: an empty sequence \(every generation emits at least one token\)"),
    ("stops_vllm", with_row(3, np.array([])), r"generation 3: an empty sequence"),
    ("stops_vllm", with_row(0, [1.0, 2.0]), r"request 'stops_vllm', generation 0: the sequence must hold integers, got dtype float64"),
    ("stops_vllm", with_row(0, [[1, 2]]), r"generation 0: a sequence must have 1 dimension, got shape \(1, 2\)"),
    ("stops_vllm", with_row(5, [1, 5]), r"request 'stops_vllm', generation 5: token 5 at position 1 outside \[0, 5\)"),
    ("stops_vllm", with_row(5, np.array([2**32 + 1])), r"generation 5: token 4294967297 at position 0 outside"),  # not wrapped to 1
    ("stops_vllm", with_row(2, [1, 1, 1, 1, 1]), r"request 'stops_vllm', generation 2: \[1 1 1 1 1\]: 5 tokens, more than max_new_tokens 4"),
    ("grammar_vllm", with_row(1, [4]), r"request 'grammar_vllm', generation 1: \[4\]: the grammar forbids token 4 at position 0"),
    ("stops_vllm", lambda case, n, rng: [[1]] * (n - 1), r"request 'stops_vllm', generations 0\.\.511: expected 512 sequences, got 511"),
    ("stops_vllm", lambda case, n, rng: np.ones((n + 1, 2), dtype=np.int64), r"generations 0\.\.511: expected 512 sequences, got an array of shape \(513, 2\)"),
    ("stops_vllm", lambda case, n, rng: np.ones((n, 2), dtype=np.float32), r"generations 0\.\.511: the sequences must hold integers"),
    ("stops_vllm", lambda case, n, rng: np.ones((n, 2, 1), dtype=np.int64), r"generations 0\.\.511: the sequences must have 2 dimension"),
    ("stops_vllm", lambda case, n, rng: np.array([[1, 2], [3]] * (n // 2), dtype=object), r"generations 0\.\.511: the sequences must hold integers, got dtype object"),
    ("stops_vllm", lambda case, n, rng: np.where(np.arange(n)[:, None] == 6, [-1, 1], [1, -1]), r"request 'stops_vllm', generation 6: token 1 after the -1 padding"),
    ("stops_vllm", lambda case, n, rng: np.where(np.arange(n)[:, None] == 6, -1, np.ones((n, 2), dtype=np.int64)), r"generation 6: an empty sequence"),
    ("stops_vllm", lambda case, n, rng: padded([[1]] * n, np.uint32), r"generation 0: token 4294967295 outside \[0, 5\)"),  # no padding unsigned
])
def test_bad_answers_are_errors_naming_the_request_and_generation(request_id, bad, message):
    with pytest.raises(VerifierError, match=message):
        tevsuite.check_generation(loop_batch=answering(request_id, bad), **FEW)


def test_a_float_tensor_is_refused_as_a_float_array_is():
    torch = pytest.importorskip("torch", reason="torch answers need torch (Debian: python3-torch)")
    with pytest.raises(VerifierError, match=r"generations 0\.\.511: the sequences must hold integers, got dtype float32"):
        tevsuite.check_generation(loop_batch=lambda case, n, rng: torch.ones((n, 2)), **FEW)
    with pytest.raises(VerifierError, match=r"generation 0: the sequence must hold integers"):
        tevsuite.check_generation(lambda case, rng: torch.tensor([1.0]), **FEW)


def test_a_raising_loop_is_an_error_naming_the_request_and_generations():
    def crash(case, rng):
        raise RuntimeError("out of memory")
    with pytest.raises(VerifierError, match=r"request 'stops_vllm', generation 0: the loop raised RuntimeError: out of memory"):
        tevsuite.check_generation(crash, **FEW)
    with pytest.raises(VerifierError, match=r"request 'stops_vllm', generations 0\.\.511: the loop raised ValueError: sequence 0 holds token 7"):
        tevsuite.check_generation(loop_batch=lambda case, n, rng: case.target([[7]]), **FEW)


def test_a_sequence_plain_generation_never_emits_is_judged_not_exact():
    report = tevsuite.check_generation(loop_batch=lambda case, n, rng: [[4]] * n if case.id == "stops_vllm" else [[1]] * n, **FEW)
    assert report.verdict == tevsuite.Verdict.NOT_EXACT and report.verdict_text == "not exact"
    assert report.describe().startswith("not exact: request 'stops_vllm': not exact")
    assert "first impossible: generation 0 of request 'stops_vllm': [4] stops at position 0, before min_tokens 2" in report.describe()
    assert [c.impossible for c in report.cases] == [2_000] * 5 and [c.label for c in report.cases][3] == "hf request"


@pytest.mark.parametrize("options, error, message", [
    (dict(samples=0), ValueError, r"samples must lie in \[1, 4294967296\], not 0"),
    (dict(batch=0), ValueError, r"batch must lie in \[1, "),
    (dict(alpha=0.9), ValueError, r"alpha must lie in"),
    (dict(seed=-1), ValueError, r"seed must lie in"),
    (dict(loop=lambda case, rng: [1]), TypeError, r"give exactly one of loop \(per generation\) and loop_batch \(batched\)"),
    (dict(loop_batch=None), TypeError, r"give exactly one of loop"),
    (dict(semantics="sglang"), ValueError, r"^unknown semantics 'sglang': the known ones are vllm, hf, llama_cpp$"),
])
def test_options_out_of_range_are_refused_before_anything_runs(options, error, message):
    def never(case, n, rng):
        raise AssertionError("the loop was called")
    with pytest.raises(error, match=message):
        tevsuite.check_generation(**{"loop_batch": never, **options})


@pytest.mark.parametrize("semantics", ["vllm", "hf", "llama_cpp"])
def test_the_requests_of_one_semantics(semantics):
    selected = [c.id for c in tevsuite.generation_cases(semantics=semantics)]
    assert selected == [i for i, c in CASES.items() if c.request.semantics == semantics]
    called = set()

    def one_semantics(case, n, rng):  # a loop that implements this semantics alone
        assert case.request.semantics == semantics, case.id
        called.add(case.id)
        return [[0, 2, 4]] * n  # a path every request allows
    report = tevsuite.check_generation(loop_batch=one_semantics, semantics=semantics, **FEW)
    assert [c.id for c in report.cases] == selected and called == set(selected)


def test_an_unknown_semantics_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"^unknown semantics 'SGLang': the known ones are vllm, hf, llama_cpp$"):
        tevsuite.generation_cases(semantics="SGLang")


def test_a_request_under_vllm_sampling_params_names():
    stops = adapters.vllm_sampling_params(CASES["stops_vllm"])
    assert (stops.temperature, stops.top_k, stops.top_p, stops.min_p, stops.min_tokens, stops.max_tokens) == (0.9, -1, 1.0, 0.0, 2, 4)
    assert (stops.stop_token_ids, stops.eos_token_id, stops.all_stop_token_ids, stops.logit_bias, stops.ignore_eos) == ([3], 4, {3, 4}, None, False)
    penalties = adapters.vllm_sampling_params(CASES["penalties_vllm"])
    assert (penalties.repetition_penalty, penalties.frequency_penalty, penalties.presence_penalty) == (1.5, 0.7, 0.4)
    assert penalties.logit_bias == {1: 0.8, 4: -3.0} and penalties.stop_token_ids == [] and penalties.all_stop_token_ids == {4}
    assert adapters.vllm_sampling_params(CASES["penalties_hf"]).top_k == 4
