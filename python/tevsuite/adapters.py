"""Engines' own speculative samplers checked in their own tensor layouts.

An engine passes its function as it is; the adapter turns tevsuite's cases into that function's
tensors (torch, on ``device``), calls it by keyword, reads its output back as tevsuite's blocks and
returns the Report of ``check_model``, ``check_tree`` or ``check_batch``:

    from tevsuite import Verdict, adapters
    def test_rejection_sampler():
        report = adapters.check_chain(chain_speculative_sampling, randomness="generator")
        assert report.verdict == Verdict.EXACT_SATURATED, report.describe()

The function receives only the keyword arguments its signature names (all of them with
``**kwargs``), so an engine's parameter names select what it gets; it writes only its outputs
(a tree's input tensors serve every round of a batch of requests). The shapes:

* ``check_chain``: a chain rejection sampler (vLLM's, FlashInfer's). Padded layout:
  ``draft_token_ids`` [B, K] int64, ``draft_probs`` [B, K, V] float32 (or None),
  ``target_probs`` [B, K + 1, V] float32 (or ``target_logits`` and ``sampling_metadata``).
  Flattened layout (vLLM's ``rejection_sample``): ``draft_token_ids`` [T], ``num_draft_tokens``
  (a list of B), ``cu_num_draft_tokens`` [B] int32 (inclusive sums), ``max_spec_len``,
  ``draft_probs`` [T, V] or None, ``target_probs`` [T, V] (or ``target_logits``),
  ``bonus_token_ids`` [B, 1] (drawn by the adapter from each request's bonus row, as vLLM's main
  sampler draws them before verification) and ``sampling_metadata``. It returns the output ids
  [B, K + 1], -1 after each row's last token (or a tuple whose first item they are). With draft
  probs the adapter drafts each chain from q and the check is a model case's (marginal
  exactness); without, the chain is a fixed tree's first-child path (``check_tree``: on a
  branching case a chain cannot be saturated, its bonus may be an untried sibling).
* ``check_tree_sampler``: a sampler over a flattened tree (SGLang's and EAGLE's kernels):
  ``candidates`` [B, N] int64 (the root's token 0), ``retrive_index`` [B, N] (flat node ids),
  ``retrive_next_token`` and ``retrive_next_sibling`` [B, N] (-1: none), ``paths`` [B, P, L]
  (node ids from the root to each leaf, -1 padded), ``target_probs`` [B, N, V] float32 (or
  ``target_logits``), ``draft_probs`` [B, N, V] zeros, ``threshold_single`` = ``threshold_acc`` =
  1.0 and the outputs ``predicts`` [B * N], ``accept_index`` [B, L] (-1) and
  ``accept_token_num`` [B] int32, written in place or returned as that tuple.
* ``check_paths``: a verifier over root-to-leaf paths with batch size 1 (EAGLE's and Medusa's
  ``evaluate_posterior``): ``logits`` [P, L, V] float32 along the paths (log p where a case has
  no logits), ``candidates`` [P, L] int64 (-1 padded, the root's token 0 in column 0) and
  ``sampling`` (the case's parameters); it returns ``(best_candidate, accept_length, next)``,
  ``next`` a token or a (V) distribution the adapter draws the bonus from.

Outputs are read as tevsuite's answers are, torch, numpy or Python alike: ids, indices, counts
and tokens of an integer dtype only (a float is refused, whole or not), ``best_candidate`` in
[0, P) and ``accept_length`` at most its path's drafted tokens.

Randomness: ``"uniforms"`` passes ``uniform_samples`` (one per position or node, float64 for a
chain, float32 for a tree, SGLang's) and ``uniform_samples_for_final_sampling`` [B];
``"generator"`` passes a seeded ``generator`` (torch.Generator on ``device``); ``"global"`` seeds
torch's, numpy's and Python's global generators before each call. All of them come from
tevsuite's verifier stream, so a run is reproducible.

With ``target="logits"`` the function gets raw logits and ``sampling_metadata`` (per row
``temperature``, ``top_k`` (0: off), ``top_p`` and ``min_p``, tensors of length B, and ``order``,
a list of B filter-order names as ``process_logits`` takes them) and must process them itself; on cases without logits these are log p and neutral parameters.
With ``target="probs"`` on engine-shaped cases the adapter processes the rows with
``tevsuite.process_logits`` (FlashInfer's contract: the caller applies the parameters).
``batch_of_requests=True`` checks requests of different trees and parameters verified together
(``check_batch``): one call a round, one row a request (padded chains are cut to the batch's
shortest, flattened ones keep their own lengths).

A generation loop written against vLLM's request objects reads a ``check_generation`` request
through ``vllm_sampling_params(case)``: its parameters under vLLM's ``SamplingParams`` names.
"""
import inspect
import random
from types import SimpleNamespace

import numpy as np

from . import DEFAULT_SEED, GREEDY_TEMPERATURE, VerifierError, _integer_array, _to_numpy, check_batch, check_model, check_tree, process_logits

__all__ = ["check_chain", "check_tree_sampler", "check_paths", "first_child_chain", "chain_output", "blocks_of_output",
           "flatten_chains", "unflatten_chains", "tree_layout", "tree_of_layout", "root_paths", "vllm_sampling_params"]

_NEUTRAL = dict(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, order="min_p_first")


def _torch():
    import torch  # the adapters' one dependency beyond numpy, imported where used
    return torch


# --- layout conversions (numpy; the tests round-trip them) ---

def first_child_chain(case):
    """A fixed tree's first-child path: node ids from the root (node 0) down, following each
    node's lowest-numbered child."""
    path = [0]
    while True:
        children = np.nonzero(case.parents == path[-1])[0]
        if children.size == 0:
            return np.array(path)
        path.append(int(children[0]))


def chain_output(accepted, bonus):
    """Blocks (accepted [B, K] padded with -1, bonus [B]) as a chain sampler's output [B, K + 1]."""
    accepted = np.asarray(accepted)
    out = np.concatenate([accepted, np.full((accepted.shape[0], 1), -1, dtype=accepted.dtype)], axis=1)
    out[np.arange(out.shape[0]), np.count_nonzero(accepted >= 0, axis=1)] = bonus
    return out


def blocks_of_output(out):
    """A chain sampler's output [B, K + 1], -1 after each row's last token, as blocks: the tokens
    before each row's last one accepted, its last one the bonus. A row without a token is refused."""
    out = np.asarray(out)
    lengths = np.cumprod(out >= 0, axis=1).sum(axis=1)
    if np.any(lengths == 0):
        raise VerifierError(f"output row {int(np.argmax(lengths == 0))} holds no token (a chain sampler emits at least the bonus)")
    columns = np.arange(out.shape[1] - 1)
    accepted = np.where(columns < (lengths - 1)[:, None], out[:, :-1], -1)
    return accepted, out[np.arange(out.shape[0]), lengths - 1]


def flatten_chains(tokens, lengths):
    """Padded rows [B, K] with their lengths [B] as vLLM's flattened form: tokens [T] and the
    inclusive cumulative lengths [B]."""
    tokens, lengths = np.asarray(tokens), np.asarray(lengths)
    return tokens[np.arange(tokens.shape[1]) < lengths[:, None]], np.cumsum(lengths)


def unflatten_chains(flat, cu_num, width):
    """vLLM's flattened tokens [T] with cumulative lengths [B] as padded rows [B, width] (-1)."""
    starts = np.concatenate([[0], cu_num[:-1]])
    out = np.full((len(cu_num), width), -1, dtype=np.asarray(flat).dtype)
    for b, (s, e) in enumerate(zip(starts, cu_num)):
        out[b, :e - s] = flat[s:e]
    return out


def tree_layout(parents, tokens):
    """A tree (parents, tokens [N], root 0) as SGLang's layout: candidates [N] (the root's token
    0), first child and next sibling [N] (-1: none), siblings in node order."""
    n = len(parents)
    candidates = np.where(np.asarray(tokens) < 0, 0, tokens).astype(np.int64)
    next_token = np.full(n, -1, dtype=np.int64)
    next_sibling = np.full(n, -1, dtype=np.int64)
    last = {}
    for i in range(1, n):
        p = int(parents[i])
        if p in last:
            next_sibling[last[p]] = i
        else:
            next_token[p] = i
        last[p] = i
    return candidates, next_token, next_sibling


def tree_of_layout(candidates, next_token, next_sibling):
    """SGLang's layout back as (parents, tokens), the root's token -1."""
    n = len(candidates)
    parents = np.full(n, -1, dtype=np.int64)
    for p in range(n):
        child = next_token[p]
        while child >= 0:
            parents[child] = p
            child = next_sibling[child]
    return parents, np.where(np.arange(n) == 0, -1, candidates)


def root_paths(parents):
    """Node ids from the root to each leaf [P, L], -1 padded, leaves in node order."""
    parents = np.asarray(parents)
    leaves = [i for i in range(len(parents)) if not np.any(parents == i)]
    paths = []
    for leaf in leaves:
        path = [leaf]
        while parents[path[-1]] >= 0:
            path.append(int(parents[path[-1]]))
        paths.append(path[::-1])
    width = max(len(p) for p in paths)
    return np.array([p + [-1] * (width - len(p)) for p in paths], dtype=np.int64)


# --- calling an engine's function ---

def _call(sampler, kwargs, names={}):
    """sampler called with the keyword arguments its signature names (all of them with **kwargs);
    `names` keeps each sampler's names (None: all) across the calls of a check."""
    if sampler not in names:
        parameters = inspect.signature(sampler).parameters
        names[sampler] = None if any(p.kind == p.VAR_KEYWORD for p in parameters.values()) else set(parameters)
    if names[sampler] is not None:
        kwargs = {k: v for k, v in kwargs.items() if k in names[sampler]}
    return sampler(**kwargs)


def _randomness(kind, seed, device, shapes):
    """The randomness keyword arguments of one call, from a 64-bit seed of tevsuite's stream."""
    torch = _torch()
    if kind == "global":
        torch.default_generator.manual_seed(seed)  # torch.manual_seed would queue every CUDA device's too, per call
        if torch.device(device).type == "cuda":
            torch.cuda.manual_seed(seed)
        np.random.seed(seed & 0xFFFFFFFF)
        random.seed(seed)
        return {}
    if kind == "generator":
        return dict(generator=torch.Generator(device=device).manual_seed(seed))
    if kind == "uniforms":
        rng = np.random.default_rng(seed)
        return {name: torch.from_numpy(rng.random(shape, dtype=dtype)).to(device) for name, (shape, dtype) in shapes.items()}
    raise ValueError(f"randomness must be 'uniforms', 'generator' or 'global', not {kind!r}")


def _sampling_columns(rows, device):
    """Per-row sampling parameters (a list of dicts) as sampling_metadata's tensors."""
    torch = _torch()
    column = lambda name, dtype: torch.tensor([r[name] for r in rows], dtype=dtype, device=device)  # noqa: E731
    return SimpleNamespace(temperature=column("temperature", torch.float32), top_k=column("top_k", torch.int64),
                           top_p=column("top_p", torch.float32), min_p=column("min_p", torch.float32),
                           order=[r["order"] for r in rows],
                           all_greedy=all(r["temperature"] < GREEDY_TEMPERATURE for r in rows),
                           all_random=all(r["temperature"] >= GREEDY_TEMPERATURE for r in rows),
                           generators={})


def _rows_of(case):
    """A tree case's target rows: (processed probs [N, V], logits [N, V], sampling dict)."""
    if case.sampling is None:
        with np.errstate(divide="ignore"):
            return np.asarray(case.probs), np.log(case.probs), _NEUTRAL
    probs = np.stack([process_logits(row, **case.sampling) for row in case.logits])
    return probs, np.asarray(case.logits), case.sampling


def _target(target, probs, logits, sampling_rows, device):
    torch = _torch()
    if target == "probs":
        return dict(target_probs=torch.tensor(probs, dtype=torch.float32, device=device))
    if target == "logits":
        return dict(target_logits=torch.tensor(logits, dtype=torch.float32, device=device),
                    sampling_metadata=_sampling_columns(sampling_rows, device))
    raise ValueError(f"target must be 'probs' or 'logits', not {target!r}")


def _integer(value, name, high):
    """One integer of an output (a number, a tensor or an array of one element) in [0, high),
    compared as a Python int, exact in any integer dtype; a float is refused, as in an answer."""
    array = _integer_array(value, name)
    if array.size != 1:
        raise VerifierError(f"{name}: expected one integer, got shape {array.shape}")
    value = array.item()
    if not 0 <= value < high:
        raise VerifierError(f"{name} {value} outside [0, {high})")
    return value


def _draw_rows(rows, rng):
    """One token from each row of weights [B, V], by inverse CDF."""
    cdf = np.cumsum(rows, axis=1)
    u = rng.random(rows.shape[0]) * cdf[:, -1]
    return np.minimum((cdf <= u[:, None]).sum(axis=1), rows.shape[1] - 1)


_CALL_ELEMENTS = 1 << 24  # the most probabilities one call's [B, rows, V] tensor holds (64 MiB in float32)


def _chunks(n, max_batch, row_elements=1):
    """[start, end) of each call over n samples: at most max_batch (0: no limit), and at most
    _CALL_ELEMENTS / row_elements, so that a large vocabulary does not exhaust memory."""
    step = max(1, min(max_batch or n, _CALL_ELEMENTS // max(row_elements, 1), n))
    return [(s, min(s + step, n)) for s in range(0, n, step)]


# --- chains ---

def _chain_call(sampler, layout, target, randomness, device, seed, drafts, q, p, logits, sampling_rows, lengths, rng):
    """One call on B chains: drafts [B, K] (-1 past each row's length), q [B, K, V] or None, p and
    logits [B, K + 1, V] (row `length` of each is its bonus row). Returns blocks."""
    torch = _torch()
    b, k = drafts.shape
    kwargs = _randomness(randomness, seed, device, dict(uniform_samples=((b, k + 1), np.float64),
                                                        uniform_samples_for_final_sampling=((b,), np.float64)))
    if layout == "padded":
        kwargs.update(draft_token_ids=torch.tensor(drafts, dtype=torch.int64, device=device),
                      draft_probs=None if q is None else torch.tensor(q, dtype=torch.float32, device=device))
        kwargs.update(_target(target, p, logits, sampling_rows, device))
    elif layout == "flat":
        keep = np.arange(k) < lengths[:, None]
        flat, cu = flatten_chains(drafts, lengths)
        rows = np.concatenate([keep, np.zeros((b, 1), bool)], axis=1)  # the target rows of the drafts, not the bonus rows
        bonus_rows = p[np.arange(b), lengths]
        bonus = _draw_rows(bonus_rows, rng)
        kwargs.update(draft_token_ids=torch.tensor(flat, dtype=torch.int64, device=device), num_draft_tokens=[int(x) for x in lengths],
                      cu_num_draft_tokens=torch.tensor(cu, dtype=torch.int32, device=device), max_spec_len=k,
                      draft_probs=None if q is None else torch.tensor(q[keep], dtype=torch.float32, device=device),
                      bonus_token_ids=torch.tensor(bonus, dtype=torch.int64, device=device).unsqueeze(1))
        kwargs.update(_target(target, p[rows], logits[rows], sampling_rows, device))
        kwargs["sampling_metadata"] = _sampling_columns(sampling_rows, device)  # per request [B], greedy rows too
    else:
        raise ValueError(f"layout must be 'padded' or 'flat', not {layout!r}")
    out = _call(sampler, kwargs)
    if isinstance(out, (tuple, list)):
        out = out[0]
    out = _integer_array(out, "output ids")
    if out.ndim != 2 or out.shape[0] != b:
        raise VerifierError(f"expected output ids [{b}, {k + 1}], got shape {out.shape}")
    return blocks_of_output(out)


def _model_chains(case, n, rng, engine_inputs):
    """n chains drafted from the model case's (processed) q: drafts [n, D], q [n, D, V], p and
    logits [n, D + 1, V] along each chain, and the target's sampling dict."""
    rows = {}

    def at(prefix):
        if prefix not in rows:
            if engine_inputs:
                logits = case.p_logits(list(prefix))
                rows[prefix] = (process_logits(case.q_logits(list(prefix)), **case.drafter_sampling),
                                process_logits(logits, **case.target_sampling), logits)
            else:
                p = case.p(list(prefix))
                with np.errstate(divide="ignore"):
                    rows[prefix] = (case.q(list(prefix)), p, np.log(p))
        return rows[prefix]

    d, v = case.depth, case.vocab
    drafts = np.empty((n, d), dtype=np.int64)
    q, p, logits = np.empty((n, d, v)), np.empty((n, d + 1, v)), np.empty((n, d + 1, v))
    for j in range(d + 1):
        prefixes, rows_of = np.unique(drafts[:, :j], axis=0, return_inverse=True)
        rows_of = rows_of.ravel()
        for r, prefix in enumerate(prefixes):
            at_r = rows_of == r
            qj, p[at_r, j], logits[at_r, j] = at(tuple(int(t) for t in prefix))
            if j < d:
                q[at_r, j] = qj
                cdf = np.cumsum(qj)
                u = rng.random(np.count_nonzero(at_r)) * cdf[-1]
                drafts[at_r, j] = np.minimum(np.searchsorted(cdf, u, side="right"), v - 1)
    return drafts, q, p, logits, case.target_sampling if engine_inputs else _NEUTRAL


_chain_tables = {}


def _fixed_chains(cases, count, rng):
    """Target-only chains along each case's first-child path, `count` rows per case: drafts [B, K]
    (-1 past a row's length), p and logits [B, K + 1, V] (a row's bonus row at its length), lengths.
    The tables of the last batch of cases are kept (a check calls again with the same cases)."""
    key = tuple(c.id for c in cases)
    if key not in _chain_tables:
        _chain_tables.clear()
        _chain_tables[key] = _chain_table(cases)
    drafts, p, logits, sampling, lengths = _chain_tables[key]
    repeat = lambda a: np.repeat(a, count, axis=0)  # noqa: E731
    return repeat(drafts), repeat(p), repeat(logits), [s for s in sampling for _ in range(count)], repeat(lengths)


def _chain_table(cases):
    paths = [first_child_chain(c) for c in cases]
    k = max(len(path) - 1 for path in paths)
    v = cases[0].vocab
    drafts = np.full((len(cases), k), -1, dtype=np.int64)
    p, logits = np.ones((len(cases), k + 1, v)) / v, np.zeros((len(cases), k + 1, v))
    sampling = []
    for i, (c, path) in enumerate(zip(cases, paths)):
        probs, raw, params = _rows_of(c)
        drafts[i, :len(path) - 1] = c.tokens[path[1:]]
        p[i, :len(path)], logits[i, :len(path)] = probs[path], raw[path]
        sampling.append(params)
    return drafts, p, logits, sampling, np.array([len(path) - 1 for path in paths])


def check_chain(sampler, *, draft_probs=True, layout="padded", target="probs", randomness="uniforms", device="cpu", max_batch=0,
                batch_of_requests=False, **options):
    """Checks a chain rejection sampler in its own layout (the module's docstring says which
    arguments it gets); returns the Report. ``max_batch``: the most chains a call (0: a whole
    batch of tevsuite's samples; 1 for a function of batch size 1). ``options`` go to
    ``check_model`` (with draft probs), ``check_tree`` (without) or ``check_batch``
    (``batch_of_requests``, without draft probs)."""

    def call(drafts, q, p, logits, sampling, lengths, rng):
        blocks = []
        for s, e in _chunks(drafts.shape[0], max_batch):
            blocks.append(_chain_call(sampler, layout, target, randomness, device, int(rng.integers(2**63)), drafts[s:e],
                                      None if q is None else q[s:e], p[s:e], logits[s:e], sampling[s:e], lengths[s:e], rng))
        return np.concatenate([a for a, _ in blocks]), np.concatenate([b for _, b in blocks])

    if draft_probs:
        if batch_of_requests:
            raise ValueError("batches of requests are fixed trees: check a chain sampler on them without draft probs")

        def model(case, n, rng):
            drafts, q, p, logits, sampling = _model_chains(case, n, rng, options.get("engine_inputs", False))
            return call(drafts, q, p, logits, [sampling] * n, np.full(n, case.depth), rng)
        return check_model(verify_batch=model, **options)

    def requests(cases, round_rng):
        rng = np.random.default_rng(round_rng.bits())
        drafts, p, logits, sampling, lengths = _fixed_chains(cases, 1, rng)
        if layout == "padded":  # one K a padded batch: every chain cut to the shortest
            k = int(lengths.min())
            drafts, p, logits, lengths = drafts[:, :k], p[:, :k + 1].copy(), logits[:, :k + 1].copy(), np.full(len(cases), k)
        return call(drafts, None, p, logits, sampling, lengths, rng)

    if batch_of_requests:
        return check_batch(verify_requests=requests, **options)

    def fixed(case, n, rng):
        parts = []
        for s, e in _chunks(n, max_batch, len(first_child_chain(case)) * case.vocab):
            drafts, p, logits, sampling, lengths = _fixed_chains([case], e - s, rng)
            parts.append(call(drafts, None, p, logits, sampling, lengths, rng))
        return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])
    return check_tree(verify_batch=fixed, **options)


# --- flattened trees ---

def check_tree_sampler(sampler, *, target="probs", randomness="uniforms", device="cpu", max_batch=0, batch_of_requests=False, **options):
    """Checks a sampler over a flattened tree (SGLang's layout, the module's docstring says which
    arguments it gets) on the fixed-tree cases, or with ``batch_of_requests`` on batches of
    requests; returns the Report."""
    torch = _torch()

    tables = {}

    def table(case):
        """One case's rows of the layout: candidates, first child, next sibling [N], paths [P, L],
        probs and logits [N, V], sampling (kept for the last cases seen)."""
        if case.id not in tables:
            if len(tables) > 64:
                tables.clear()
            probs, logits, params = _rows_of(case)
            tables[case.id] = (*tree_layout(case.parents, case.tokens), root_paths(case.parents), probs, logits, params)
        return tables[case.id]

    inputs = {}

    def layout(cases):
        """The batch's input tensors (kept for the last batch of cases: a check calls again with
        the same ones), its candidates [B, N] in numpy, and B, N, V, L."""
        key = tuple(c.id for c in cases)
        if key in inputs:
            return inputs[key]
        inputs.clear()
        b = len(cases)
        distinct = {c.id: c for c in cases}
        which = np.array([list(distinct).index(c.id) for c in cases]) if len(distinct) > 1 else np.zeros(b, dtype=np.int64)
        parts = [table(c) for c in distinct.values()]
        n = max(len(t[0]) for t in parts)
        v = cases[0].vocab
        width = max(t[3].shape[1] for t in parts)
        n_paths = max(t[3].shape[0] for t in parts)
        # each distinct case's tensors once, padded to the batch's N and paths: nodes past a
        # request's own tree are unreachable (no parent links to them)
        candidates = np.zeros((len(parts), n), dtype=np.int64)
        next_token, next_sibling = np.full((len(parts), n), -1, dtype=np.int64), np.full((len(parts), n), -1, dtype=np.int64)
        paths = np.full((len(parts), n_paths, width), -1, dtype=np.int64)
        probs, logits = np.full((len(parts), n, v), 1.0 / v), np.zeros((len(parts), n, v))
        for i, (cand, first, sibling, path, p, raw, _) in enumerate(parts):
            m = len(cand)
            candidates[i, :m], next_token[i, :m], next_sibling[i, :m] = cand, first, sibling
            paths[i, :path.shape[0], :path.shape[1]] = path
            probs[i, :m], logits[i, :m] = p, raw
        candidates, next_token, next_sibling, paths = candidates[which], next_token[which], next_sibling[which], paths[which]
        tensor = lambda a, dtype=torch.int64: torch.tensor(a, dtype=dtype, device=device)  # noqa: E731
        index = torch.tensor(which, device=device)
        kwargs = dict(candidates=tensor(candidates), retrive_index=tensor(np.arange(b * n).reshape(b, n)),
                      retrive_next_token=tensor(next_token), retrive_next_sibling=tensor(next_sibling), paths=tensor(paths),
                      threshold_single=1.0, threshold_acc=1.0)
        kwargs.update({name: value[index] if name != "sampling_metadata" else value
                       for name, value in _target(target, probs, logits, [t[6] for t in parts], device).items()})
        if target == "logits":
            kwargs["sampling_metadata"] = _sampling_columns([parts[i][6] for i in which], device)
        inputs[key] = (kwargs, candidates, b, n, v, width)
        return inputs[key]

    def call(cases, rng):
        fixed, candidates, b, n, v, width = layout(cases)
        predicts = torch.full((b * n,), -1, dtype=torch.int32, device=device)
        accept_index = torch.full((b, width), -1, dtype=torch.int32, device=device)
        accept_token_num = torch.zeros(b, dtype=torch.int32, device=device)
        kwargs = dict(fixed, predicts=predicts, accept_index=accept_index, accept_token_num=accept_token_num,
                      draft_probs=torch.zeros((b, n, v), dtype=torch.float32, device=device))
        kwargs.update(_randomness(randomness, int(rng.integers(2**63)), device,
                                  dict(uniform_samples=((b, n), np.float32), uniform_samples_for_final_sampling=((b,), np.float32))))
        out = _call(sampler, kwargs)
        if out is not None:
            if not isinstance(out, (tuple, list)) or len(out) != 3:
                raise VerifierError("expected the outputs written in place (None returned) or (predicts, accept_index, accept_token_num), "
                                    f"got {type(out).__name__}")
            predicts, accept_index, accept_token_num = out
        predicts, accept_index, count = (_integer_array(predicts, "predicts").ravel(), _integer_array(accept_index, "accept_index"),
                                         _integer_array(accept_token_num, "accept_token_num"))
        bad = np.nonzero((count < 0) | (count >= width))[0]
        if bad.size:
            raise VerifierError(f"request {bad[0]}: accept_token_num {count[bad[0]]} outside [0, {width - 1}]")
        column = np.arange(width)
        used = column <= count[:, None]
        bad = np.nonzero(np.any(used & ((accept_index < 0) | (accept_index >= b * n)), axis=1))[0]
        if bad.size:
            raise VerifierError(f"request {bad[0]}: accept_index {accept_index[bad[0]].tolist()} does not hold {count[bad[0]] + 1} node ids")
        flat = candidates.ravel()
        nodes = np.where(used, accept_index, 0)
        accepted = np.where(used[:, 1:], flat[nodes[:, 1:]], -1)
        return accepted, predicts[nodes[np.arange(b), count]]

    def chunked(cases, rng):
        parts = [call(cases[s:e], rng) for s, e in _chunks(len(cases), max_batch, max(c.nodes for c in cases) * cases[0].vocab)]
        return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])

    if batch_of_requests:
        return check_batch(verify_requests=lambda cases, r: chunked(cases, np.random.default_rng(r.bits())), **options)
    return check_tree(verify_batch=lambda case, n, rng: chunked([case] * n, rng), **options)


# --- root-to-leaf paths, one sample a call ---

def check_paths(sampler, *, device="cpu", seed=DEFAULT_SEED, **options):
    """Checks a verifier over root-to-leaf paths of batch size 1 (EAGLE's and Medusa's
    ``evaluate_posterior`` shape, the module's docstring says which arguments it gets) on the
    fixed-tree cases, its global generators seeded from tevsuite's stream; returns the Report."""
    torch = _torch()
    tables = {}

    def tensors(case):
        if case.id not in tables:
            probs, logits, params = _rows_of(case)
            paths = root_paths(case.parents)
            tokens = np.where(case.tokens < 0, 0, case.tokens)
            candidates = np.where(paths >= 0, tokens[np.maximum(paths, 0)], -1).astype(np.int64)
            tables.clear()
            tables[case.id] = (paths, candidates, np.count_nonzero(paths >= 0, axis=1),
                               dict(logits=torch.tensor(logits[np.maximum(paths, 0)], dtype=torch.float32, device=device),
                                    candidates=torch.tensor(candidates, device=device), sampling=params))
        return tables[case.id]

    def batch(case, n, rng):
        paths, candidates, path_nodes, kwargs = tensors(case)
        _randomness("global", int(rng.integers(2**63)), device, {})
        accepted = np.full((n, paths.shape[1] - 1), -1, dtype=np.int64)
        bonus = np.empty(n, dtype=np.int64)
        for i in range(n):
            best, length, nxt = _call(sampler, kwargs)
            best = _integer(best, "best_candidate", len(paths))
            length = _integer(length, "accept_length", path_nodes[best])  # at most the path's drafted tokens
            accepted[i, :length] = candidates[best, 1:length + 1]
            nxt = np.asarray(_to_numpy(nxt))
            if nxt.ndim == 0:
                bonus[i] = _integer(nxt, "next", case.vocab)
            elif nxt.shape == (case.vocab,):
                weights = nxt.astype(np.float64)
                bonus[i] = rng.choice(weights.size, p=weights / weights.sum())
            else:  # a one-element token read as a distribution would always draw token 0
                raise VerifierError(f"next: expected a token or a ({case.vocab}) distribution, got shape {nxt.shape}")
        return accepted, bonus

    return check_tree(verify_batch=batch, seed=seed, **options)


def vllm_sampling_params(case):
    """A ``GenerationCase``'s request under the names of vLLM's ``SamplingParams``, for a generation
    loop that reads its parameters as it reads vLLM's: ``temperature``, ``top_k`` (-1 when off,
    which every vLLM version reads as off), ``top_p``, ``min_p``, ``repetition_penalty``,
    ``frequency_penalty``, ``presence_penalty``, ``logit_bias`` ({token: bias}, None when empty),
    ``min_tokens``, ``stop_token_ids``, ``max_tokens`` (max_new_tokens) and ``ignore_eos`` (False);
    ``eos_token_id`` (the first EOS id; vLLM takes it from the tokenizer, and counts a generation
    config's other EOS ids among ``stop_token_ids``, as here) and ``all_stop_token_ids`` (every EOS
    and stop id: what vLLM's min_tokens suppresses and its stop check ends on). The values are the
    request's whatever its semantics; a request whose ``semantics`` is not "vllm" means them as
    that engine does (docs/python.md). The grammar has no SamplingParams field: read
    ``case.request.grammar``."""
    r = case.request
    eos, stop = list(r.eos), list(r.stop)
    return SimpleNamespace(
        temperature=r.temperature, top_k=r.top_k if r.top_k > 0 else -1, top_p=r.top_p, min_p=r.min_p,
        repetition_penalty=r.repetition_penalty, frequency_penalty=r.frequency_penalty, presence_penalty=r.presence_penalty,
        logit_bias=r.logit_bias or None, min_tokens=r.min_tokens, stop_token_ids=stop + eos[1:], max_tokens=r.max_new_tokens,
        ignore_eos=False, eos_token_id=eos[0] if eos else None, all_stop_token_ids=set(eos + stop))
