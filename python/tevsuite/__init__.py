"""tevsuite in Python engines' own tests.

The conformance check of ``tevsuite conformance run`` with the verifier under test called in
process: the same cases (``tevsuite conformance emit``'s generators), the same judges and the same
verdict policy as the command line and the C++ library, with verifiers written in Python, numpy
or torch, one sample per call or a whole batch of samples at once.

    import tevsuite
    report = tevsuite.check_tree(verify_batch=my_batched_verifier)
    assert report.verdict == tevsuite.Verdict.EXACT_SATURATED, report.describe()

A verifier sees a case (``TreeCase``: ``parents``, ``tokens`` and (N, V) ``probs`` as numpy
arrays; ``ModelCase``: ``p(prefix)`` and ``q(prefix)``) and the randomness tevsuite hands it:

* per sample, ``verify(case, rng) -> (accepted, bonus)``, where ``rng`` has ``uniform()`` (a float
  in [0, 1)), ``bits()`` (64 random bits, e.g. to seed a generator of one's own) and ``sample``;
  called from one thread (the GIL would serialize more, at a cost: measured 6x slower on two);
* batched, ``verify_batch(case, n, rng) -> (accepted, bonus)``: ``accepted`` an (n, D) integer
  array of the accepted tokens from the root, padded with -1, ``bonus`` an (n,) integer array, and
  ``rng`` a ``numpy.random.Generator`` seeded from tevsuite's verifier stream for that batch.

With ``engine_inputs=True`` the cases are engine-shaped (``tevsuite conformance emit
--engine-inputs``): a ``TreeCase`` gives ``logits`` and ``sampling`` (a dict of ``temperature``,
``top_k``, ``top_p``, ``min_p`` and ``order``) instead of ``probs``; a ``ModelCase`` gives
``p_logits(prefix)``, ``q_logits(prefix)``, ``target_sampling`` and ``drafter_sampling``. The
verifier must process the rows as an engine does; it is judged against the processed target.
``process_logits(logits, **sampling)`` is tevsuite's reference processing.

Runs are reproducible: the same seed gives the same verdicts and p-values. Bad answers (wrong
shapes, ragged lists, non-integer arrays, tokens out of range, a model-case block of more than D
accepted tokens, a raising callable) raise ``VerifierError`` naming the case and sample; they
never become a verdict. Tokens are range-checked in the dtype the verifier gave them, before they
are narrowed to int32, and -1 pads only in a signed dtype (an unsigned 0xFFFFFFFF is out of range).
Lists, numpy arrays and torch tensors are read alike: integer dtypes only (a float is refused,
whole or not), and an answer without elements is empty in any dtype (``np.array(path)`` and
``torch.tensor(path)`` of an empty path are float).
Options outside their ranges (``tevsuite conformance``'s: ``cases`` and ``batches`` 1 to 100,000,
``samples`` and ``rounds`` 1 to 2**32, ``requests`` 1 to 64, ``alpha`` in [1e-12, 0.5]; a 32-bit
``seed``, ``batch`` >= 0) raise ``ValueError`` before anything runs.

Batches of requests verified together, as an engine's kernel verifies them:
``check_batch(verify_requests=f)`` with ``f(requests, rng) -> (accepted, bonus)``, one row per
request. ``tevsuite.adapters`` calls engines' own samplers in their own tensor layouts.

An engine's whole generation loop (drafting, verification, stops, penalties, min_tokens, a
grammar's state): ``check_generation(loop_batch=f)`` with ``f(case, n, rng) -> sequences``, ``n``
generations of ``case.request`` on ``case.target`` and ``case.drafter`` (``generation_cases()``),
judged against plain generation's exact law.
"""
import numbers

import numpy as np

from ._tevsuite import (
    __version__,
    CaseResult,
    ModelCase,
    Report,
    TreeCase,
    Draws,
    ExactLaw,
    GenerationCase,
    GenerationGrammar,
    GenerationRequest,
    Verdict,
    _check_generation,
    _check_model,
    _check_batch,
    _check_model_batched,
    _check_tree,
    _check_tree_batched,
    _exact_law,
    generation_cases,
    kDefaultAlpha,
    kDefaultSeed,
    kGreedyTemperature,
    kMaxAlpha,
    kMaxCases,
    kMaxRequests,
    kMaxSamples,
    kMinAlpha,
    process_logits,
)

__all__ = [
    "__version__", "CaseResult", "ModelCase", "Report", "TreeCase", "Verdict", "VerifierError",
    "check_tree", "check_model", "check_batch", "exact_law", "process_logits", "DEFAULT_ALPHA", "DEFAULT_SEED", "GREEDY_TEMPERATURE", "Draws", "ExactLaw",
    "GenerationCase", "GenerationGrammar", "GenerationRequest", "check_generation", "generation_cases",
]

DEFAULT_ALPHA = kDefaultAlpha  # family-wise level of a whole check
DEFAULT_SEED = kDefaultSeed
GREEDY_TEMPERATURE = kGreedyTemperature  # below it a temperature is greedy, as vLLM's _SAMPLING_EPS


class VerifierError(ValueError):
    """The verifier (or generation loop) under test answered something that is not a block (a
    sequence), or raised."""


def _where(case, first, n, whole="case {}", part="sample"):
    parts = f"{part} {first}" if n == 1 else f"{part}s {first}..{first + n - 1}"
    return f"{whole.format(case.id)}, {parts}"


# A generation's place, worded as the library words the answers it refuses.
_GENERATIONS = ("request '{}'", "generation")


def _integers(array):
    """Whether an array holds integers alone: an integer dtype, or Python ints too large for one
    (numpy holds those as objects)."""
    if array.dtype == object:
        return all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in array.flat)
    return array.dtype != np.bool_ and np.issubdtype(array.dtype, np.integer)


def _integer_array(value, name):
    """Integers of an answer (a number, a list, a numpy array or a torch tensor on any device) as a
    numpy array in their own dtype: they are narrowed to int32 only once checked, so that no value
    wraps into range. The adapters read engines' integer outputs with it too."""
    try:
        array = np.asarray(_to_numpy(value))
    except Exception as e:  # ragged rows, tensors numpy cannot hold: the answer's fault, whatever it raised
        raise VerifierError(f"{name} is not an array of integers: {e}") from e
    if array.size == 0:  # no tokens, in any dtype (np.array([]) is float64): no value to misread
        return array.astype(np.int32)
    if not _integers(array):
        raise VerifierError(f"{name} must hold integers, got dtype {array.dtype}")
    return array


def _as_tokens(value, name, shape_rank, where):
    """One part of an answer as an integer array of rank shape_rank in the verifier's own dtype."""
    array = _integer_array(value, f"{where}: {name}")
    if array.ndim != shape_rank:
        raise VerifierError(f"{where}: {name} must have {shape_rank} dimension(s), got shape {array.shape}")
    return array


def _token_rows(rows, vocab, where_row, name, padded):
    """Rows of tokens (n, D) in the answer's dtype as int32 once checked: tokens in [0, V), compared
    before narrowing; with `padded`, -1 pads a row after its last token and nowhere else (in a
    signed dtype: an unsigned 0xFFFFFFFF is a token out of range). where_row(i) names row i."""
    lowest = -1 if padded and rows.dtype.kind != "u" else 0
    bad = np.argwhere((rows < lowest) | (rows >= vocab))
    if bad.size:
        raise VerifierError(f"{where_row(bad[0][0])}: {name} {rows[tuple(bad[0])]} outside [0, {vocab})")
    rows = np.ascontiguousarray(rows, dtype=np.int32)
    if padded and rows.shape[1] > 1:
        bad = np.argwhere((rows[:, 1:] >= 0) & (rows[:, :-1] < 0))
        if bad.size:
            raise VerifierError(f"{where_row(bad[0][0])}: {name} {rows[bad[0][0], bad[0][1] + 1]} after the -1 padding")
    return rows


def _checked(accepted, bonus, case, where_row, padded):
    """Rows of blocks, accepted (n, D) and bonus (n,) in the verifier's dtypes, as int32 arrays once
    checked (_token_rows); on a model case at most D accepted tokens a row. where_row(i) names row
    i's sample."""
    bad = np.nonzero((bonus < 0) | (bonus >= case.vocab))[0]
    if bad.size:
        raise VerifierError(f"{where_row(bad[0])}: bonus token {bonus[bad[0]]} outside [0, {case.vocab})")
    accepted = _token_rows(accepted, case.vocab, where_row, "accepted token", padded)
    bonus = np.ascontiguousarray(bonus, dtype=np.int32)
    if isinstance(case, ModelCase):
        lengths = np.count_nonzero(accepted >= 0, axis=1)
        rows = np.nonzero(lengths > case.depth)[0]
        if rows.size:
            raise VerifierError(f"{where_row(rows[0])}: {lengths[rows[0]]} accepted tokens, deeper than the case's D = {case.depth} "
                                "allows (a block is at most D + 1 tokens)")
    return accepted, bonus


def _to_numpy(value):
    # torch tensors (on any device) without importing torch here
    if hasattr(value, "detach") and hasattr(value, "cpu"):
        return value.detach().cpu().numpy()
    return value


def _call(verify, where, *args, who="the verifier"):
    try:
        return verify(*args)
    except Exception as e:  # the engine's own failure, named by case and sample
        raise VerifierError(f"{where}: {who} raised {type(e).__name__}: {e}") from e


def _blocks(answer, where, rank, expected):
    """A verifier's answer as integer arrays in its own dtypes: accepted of rank `rank` + 1 (1: one
    block; 2: a batch) and bonus of rank `rank`."""
    try:
        accepted, bonus = answer
    except (TypeError, ValueError):
        raise VerifierError(f"{where}: expected {expected}, got {type(answer).__name__}") from None
    return _as_tokens(accepted, "accepted", rank + 1, where), _as_tokens(bonus, "bonus", rank, where)


def _one_block(verify, case, where, randomness):
    accepted, bonus = _blocks(_call(verify, where, case, randomness), where, 0, "(accepted, bonus)")
    accepted, bonus = _checked(accepted.reshape(1, -1), bonus.reshape(1), case, lambda row: where, padded=False)
    return accepted[0], int(bonus[0])


def _per_sample(verify):
    def call(case, rng):
        return _one_block(verify, case, _where(case, rng.sample, 1), rng)
    return call


def _batched(verify_batch):
    def call(case, first, n, seed):
        where = _where(case, first, n)
        answer = _call(verify_batch, where, case, n, np.random.default_rng(seed))
        accepted, bonus = _blocks(answer, where, 1, "(accepted [n, D], bonus [n])")
        if accepted.shape[0] != n or bonus.shape[0] != n:
            raise VerifierError(f"{where}: expected {n} blocks, got accepted of shape {accepted.shape} and bonus of shape {bonus.shape}")
        return _checked(accepted, bonus, case, lambda row: _where(case, first + int(row), 1), padded=True)
    return call


def _one_of(verify, verify_batch, names=("verify (per sample)", "verify_batch (batched)")):
    if (verify is None) == (verify_batch is None):
        raise TypeError(f"give exactly one of {names[0]} and {names[1]}")


# The options' ranges: the library's (``tevsuite conformance``'s), and where it has none the C
# type's (a 32-bit seed, a 64-bit batch size), checked here before any of them is converted.
_RANGES = dict(cases=(1, kMaxCases), batches=(1, kMaxCases), requests=(1, kMaxRequests), samples=(1, kMaxSamples), rounds=(1, kMaxSamples), alpha=(kMinAlpha, kMaxAlpha), seed=(0, 2**32 - 1), batch=(0, 2**64 - 1))


def _check_options(ranges=_RANGES, **options):
    for name, value in options.items():
        low, high = ranges[name]
        kind = numbers.Real if isinstance(low, float) else numbers.Integral
        if isinstance(value, bool) or not isinstance(value, kind) or not low <= value <= high:  # NaN fails the comparison
            raise ValueError(f"{name} must lie in [{low}, {high}], not {value!r}")


def check_tree(verify=None, *, verify_batch=None, cases=8, samples=100_000, large_vocab=50_000, large_vocab_factor=4,
               alpha=DEFAULT_ALPHA, seed=DEFAULT_SEED, threads=0, batch=0, engine_inputs=False, engine_order=None):
    """Checks a fixed-tree verifier on ``tevsuite conformance emit``'s cases; returns a Report.

    ``batch``: samples per ``verify_batch`` call (0: all samples of a case in one call). A run is
    reproducible for a given seed and batch; it does not depend on ``threads`` (the threads that
    complete and judge a batch's blocks; a per-sample verifier is called from one thread).
    ``engine_order(request, batch) -> order or None``: an engine's own sampler as the reference of
    engine-shaped cases. It gets a case's sampling dict and the list of the dicts verified with
    it (the case alone here; a batch's requests in ``check_batch``) and returns the order that
    engine's sampler applies (the case is judged against its rows processed so), or None where the
    engine offers no such request (the case is left out, neither run nor judged).
    """
    _one_of(verify, verify_batch)
    _check_options(cases=cases, samples=samples, alpha=alpha, seed=seed, batch=batch)
    options = dict(cases=cases, samples=samples, large_vocab=large_vocab, large_vocab_factor=large_vocab_factor, alpha=alpha,
                   seed=seed, threads=threads, engine_inputs=engine_inputs, engine_order=engine_order)
    if verify is not None:
        return _check_tree(_per_sample(verify), **{**options, "threads": 1})
    return _check_tree_batched(_batched(verify_batch), batch=batch, **options)


def check_model(verify=None, *, verify_batch=None, cases=8, samples=40_000, alpha=DEFAULT_ALPHA, seed=DEFAULT_SEED, threads=0, batch=0,
                engine_inputs=False):
    """Checks a verifier that drafts its own tree from q on the model cases (exactness is
    marginal, over the drafts); returns a Report whose verdict reads "exact (marginally)"."""
    _one_of(verify, verify_batch)
    _check_options(cases=cases, samples=samples, alpha=alpha, seed=seed, batch=batch)
    options = dict(cases=cases, samples=samples, alpha=alpha, seed=seed, threads=threads, engine_inputs=engine_inputs)
    if verify is not None:
        return _check_model(_per_sample(verify), **{**options, "threads": 1})
    return _check_model_batched(_batched(verify_batch), batch=batch, **options)


def exact_law(verify, case):
    """A drawing verifier's exact law on one case, by enumeration; returns an ``ExactLaw``: ``tv``
    from the canonical law (blocks off the tree, outside the vocabulary or of zero target
    probability count in it), ``mean_length`` (E[L]) against ``ceiling`` (1 + C_p), and
    ``completion_probability`` (the bonus is a drafted child's token: 0 when saturated).

    ``verify(case, draws) -> (accepted, bonus)`` draws only through ``draws.categorical(weights)``
    (i with probability weights[i] / sum(weights)) and ``draws.next_token(node, weights)`` (the
    token after ``node``; one that is not a drafted child of ``node`` is the bonus, and the verifier
    returns at once), and must be a deterministic function of those draws. ``case`` is a
    ``TreeCase``: one a check handed over, or ``TreeCase(parents, tokens, probs)`` of one's own.
    A malformed case or an enumeration over its branch budget raises ``ValueError``; a bad answer
    or a raising verifier ``VerifierError``.
    """
    return _exact_law(lambda c, draws: _one_block(verify, c, f"case {c.id}", draws), case)


def _request_batch(verify_requests):
    def call(requests, rng):
        where = f"round {rng.sample} of the batch of requests {', '.join(r.id for r in requests)}"
        answer = _call(verify_requests, where, requests, rng)
        accepted, bonus = _blocks(answer, where, 1, "(accepted [requests, D], bonus [requests])")
        if accepted.shape[0] != len(requests) or bonus.shape[0] != len(requests):
            raise VerifierError(f"{where}: expected {len(requests)} blocks, one per request, got accepted of shape {accepted.shape} "
                                f"and bonus of shape {bonus.shape}")
        # one vocabulary a batch: the first request's bounds every row
        return _checked(accepted, bonus, requests[0], lambda row: f"{where}: request {requests[int(row)].id}", padded=True)
    return call


def check_batch(*, verify_requests, batches=2, requests=4, rounds=100_000, alpha=DEFAULT_ALPHA, seed=DEFAULT_SEED, engine_inputs=False,
                engine_order=None):
    """Checks a verifier that verifies a batch of requests together, as an engine's kernel does
    (``tevsuite conformance emit --batch``'s cases); returns a Report.

    ``verify_requests(requests, rng) -> (accepted, bonus)`` is called once per round with the
    batch's requests (a list of ``TreeCase``, different trees and, with ``engine_inputs``,
    different sampling parameters; one vocabulary a batch) and that round's randomness (as
    ``verify``'s: ``uniform()``, ``bits()``, ``sample`` the round); row k of ``accepted`` (requests,
    D), padded with -1, and of ``bonus`` (requests,) is request k's block. Each request is judged as
    a case (id "batch/request"), and every two requests of a batch are tested for independence
    within a round. ``requests`` 1 to 64 per batch; ``batches`` and ``rounds`` in the ranges of
    ``cases`` and ``samples``. ``engine_order``: as ``check_tree``'s, called with each request and
    its batch's requests (an engine whose sampler's order depends on the batch says so); a batch
    left without requests is left out.
    """
    _check_options(batches=batches, requests=requests, rounds=rounds, alpha=alpha, seed=seed)
    return _check_batch(_request_batch(verify_requests), batches=batches, requests=requests, rounds=rounds, alpha=alpha, seed=seed,
                        engine_inputs=engine_inputs, engine_order=engine_order)


def _sequence(answer, where, vocab):
    """One generation's emitted tokens as int32, once checked in the loop's own dtype: one
    dimension, at least one token (a generation emits until its stop), every token in [0, V)."""
    tokens = _integer_array(answer, f"{where}: the sequence")
    if tokens.ndim != 1:
        raise VerifierError(f"{where}: a sequence must have 1 dimension, got shape {tokens.shape}")
    if tokens.size == 0:
        raise VerifierError(f"{where}: an empty sequence (every generation emits at least one token)")
    bad = np.nonzero((tokens < 0) | (tokens >= vocab))[0]
    if bad.size:
        raise VerifierError(f"{where}: token {tokens[bad[0]]} at position {bad[0]} outside [0, {vocab})")
    return tokens.astype(np.int32)


def _flat(sequences):
    """Checked sequences as the library reads them: their tokens one after the other, and their lengths."""
    return np.concatenate(sequences), np.array([s.size for s in sequences], dtype=np.int32)


def _per_generation(loop):
    def call(case, first, n, seed):
        rng = np.random.default_rng(seed)  # one generator for the batch's generations, in order
        where = [_where(case, first + g, 1, *_GENERATIONS) for g in range(n)]
        return _flat([_sequence(_call(loop, where[g], case, rng, who="the loop"), where[g], case.vocab) for g in range(n)])
    return call


def _batched_generations(loop_batch):
    def call(case, first, n, seed):
        where = _where(case, first, n, *_GENERATIONS)
        answer = _call(loop_batch, where, case, n, np.random.default_rng(seed), who="the loop")
        if isinstance(answer, (list, tuple)):  # one sequence a generation, each its own length
            if len(answer) != n:
                raise VerifierError(f"{where}: expected {n} sequences, got {len(answer)}")
            return _flat([_sequence(s, _where(case, first + g, 1, *_GENERATIONS), case.vocab) for g, s in enumerate(answer)])
        rows = _as_tokens(answer, "the sequences", 2, where)
        if rows.shape[0] != n:
            raise VerifierError(f"{where}: expected {n} sequences, got an array of shape {rows.shape}")
        rows = _token_rows(rows, case.vocab, lambda row: _where(case, first + int(row), 1, *_GENERATIONS), "token", padded=True)
        lengths = np.count_nonzero(rows >= 0, axis=1).astype(np.int32)
        empty = np.nonzero(lengths == 0)[0]
        if empty.size:
            raise VerifierError(f"{_where(case, first + int(empty[0]), 1, *_GENERATIONS)}: an empty sequence (every generation "
                                "emits at least one token)")
        return rows[rows >= 0], lengths
    return call


def check_generation(loop=None, *, loop_batch=None, samples=40_000, batch=4096, alpha=DEFAULT_ALPHA, seed=DEFAULT_SEED,
                     semantics=None):
    """Checks an engine's own speculative generation loop on ``generation_cases()``' requests:
    their emitted sequences are judged against plain generation's exact law under the same request
    (the identity test and tests of independence over consecutive generations); returns a Report
    whose verdict reads "exact", "not exact" or "inconclusive".

    ``loop(case, rng) -> sequence`` runs one generation; ``loop_batch(case, n, rng) -> sequences``
    runs ``n``: a list of ``n`` sequences, or an (n, L) integer array padded with -1 after each
    row's last token. A sequence holds the generated tokens up to and including the first EOS or
    stop id, or ``max_new_tokens`` of them. ``case`` is a ``GenerationCase``: ``request`` (the
    parameters), ``target(sequences)`` and ``drafter(sequences)`` (raw logits after each prompt ‖
    generated ‖ drafted sequence). ``rng`` is a ``numpy.random.Generator`` seeded with 64 bits of
    tevsuite's stream, keyed by the seed, the request and the batch (``batch`` generations a
    call; a per-generation loop shares its batch's generator, in order).

    Answers follow the other checks' rule (integer dtypes only, ranges checked before narrowing);
    an empty sequence, a token after the -1 padding, a token outside [0, V), more than
    ``max_new_tokens`` tokens, a token the grammar forbids, the wrong number of sequences or a
    raising loop raise ``VerifierError`` naming the request and the generation. A sequence plain
    generation never emits (a token after the stop, a stop before ``min_tokens``) is judged: "not
    exact".

    ``semantics`` ("vllm", "hf" or "llama_cpp") keeps only the requests in that engine's
    semantics, for a loop that implements one engine's sampler (``generation_cases(semantics=...)``
    lists them); an unknown name raises ValueError listing the known ones.
    """
    _one_of(loop, loop_batch, ("loop (per generation)", "loop_batch (batched)"))
    _check_options({**_RANGES, "batch": (1, 2**64 - 1)}, samples=samples, batch=batch, alpha=alpha, seed=seed)
    if semantics is not None:
        generation_cases(semantics=semantics)  # an unknown name is a ValueError of the options, not of the loop
    wrapped = _per_generation(loop) if loop is not None else _batched_generations(loop_batch)
    try:
        return _check_generation(wrapped, samples=samples, batch=batch, alpha=alpha, seed=seed, semantics=semantics)
    except VerifierError:
        raise
    except ValueError as e:  # the options are in range: the library refused an answer (max_new_tokens, the grammar)
        raise VerifierError(str(e)) from None
