"""Verifiers as a PyTorch inference engine writes them, batched over requests, checked by tevsuite.

* ``rejection_sample``: the chain rejection sampler of speculative sampling in the style of
  engines' samplers: every request's drafts and its draft and target probabilities in tensors,
  one vectorized accept / resample / bonus step. Planted bug ``bonus_from_p``: a rejected
  position resamples from p instead of the residual max(p - q, 0).
* ``tree_walk``: a target-only walk over a draft tree for a batch of requests (draw the next token
  from p at the current node, follow it while it is a drafted child, else it is the bonus).
  Planted bug ``full_row_bonus``: where a walk stops, the bonus is drawn again from the full row.

* ``apply_sampling_params``: the engine's logits processing for a batch of rows, each row with its
  own request's temperature, top-k, top-p, min-p and filter order (vLLM's order of operations), so
  both verifiers also run on tevsuite's engine-shaped cases (``engine_inputs=True``). Planted bugs
  ``temperature_after_softmax`` (the filters on the untempered softmax, the temperature applied to
  the probabilities, where renormalizing undoes it) and, for the chain, ``raw_q_ratio`` (drafts
  from the processed q, the acceptance ratio min(1, p/q) with the raw softmax of q's logits).

The adapters below turn tevsuite's cases into the engine's tensors: each of tevsuite's samples is
one request, so a batch of n samples is a batch of n requests.
"""
import torch


def rejection_sample(draft_tokens, draft_probs, target_probs, generator, bug=None):
    """draft_tokens [n, D] int64; draft_probs [n, D, V] q at each draft position; target_probs
    [n, D + 1, V] p at each position and after the last draft. Returns (accepted [n, D] padded with
    -1, bonus [n])."""
    n, depth = draft_tokens.shape
    rows = torch.arange(n)
    q_of_draft = draft_probs.gather(2, draft_tokens.unsqueeze(2)).squeeze(2)        # [n, D]
    p_of_draft = target_probs[:, :depth].gather(2, draft_tokens.unsqueeze(2)).squeeze(2)
    u = torch.rand(n, depth, generator=generator, dtype=torch.float64)
    accept = u * q_of_draft < p_of_draft                                               # u < min(1, p/q)
    # accepted length: the first rejection (or D when every draft is accepted)
    length = torch.where(accept.all(1), depth, (~accept).int().argmax(1))
    accepted = torch.where(torch.arange(depth) < length.unsqueeze(1), draft_tokens, torch.full_like(draft_tokens, -1))
    # the bonus: from the residual at the first rejection, from p after a fully accepted chain
    at = length.clamp(max=depth - 1)
    p_row = target_probs[rows, length]
    residual = (target_probs[rows, at] - draft_probs[rows, at]).clamp(min=0)
    if bug == "bonus_from_p":
        residual = target_probs[rows, at]
    rejected = (length < depth).unsqueeze(1)
    weights = torch.where(rejected, residual, p_row)
    bonus = torch.multinomial(weights, 1, generator=generator).squeeze(1)
    return accepted, bonus


def tree_walk(parents, tokens, probs, n, generator, bug=None):
    """A batch of n requests on one tree: parents, tokens [N] int64 (-1 at the root), probs [N, V]
    target rows. Returns (accepted [n, N - 1] padded with -1, bonus [n])."""
    nodes, vocab = probs.shape
    child = torch.full((nodes, vocab), -1, dtype=torch.int64)
    child[parents[1:], tokens[1:]] = torch.arange(1, nodes)
    width = max(nodes - 1, 1)
    accepted = torch.full((n, width), -1, dtype=torch.int64)
    bonus = torch.empty(n, dtype=torch.int64)
    node = torch.zeros(n, dtype=torch.int64)
    active = torch.arange(n)
    def draw(at):
        # one multinomial per distinct node (requests at the same node share its row)
        drawn = torch.empty(at.numel(), dtype=torch.int64)
        for v in torch.unique(at).tolist():
            here = at == v
            drawn[here] = torch.multinomial(probs[v], int(here.sum()), replacement=True, generator=generator)
        return drawn

    for level in range(width + 1):
        if active.numel() == 0:
            break
        drawn = draw(node[active])
        nxt = child[node[active], drawn]
        stop = nxt < 0
        stopped = active[stop]
        bonus[stopped] = draw(node[stopped]) if bug == "full_row_bonus" else drawn[stop]
        go = active[~stop]
        accepted[go, level] = drawn[~stop]
        node[go] = nxt[~stop]
        active = go
    return accepted, bonus


ORDERS = ("min_p_first", "min_p_last", "top_p_full_and_top_k")  # the order codes of apply_sampling_params
SAMPLING_EPS = 1e-5  # vLLM's: a temperature below it is greedy


def apply_sampling_params(logits, temperature, top_k, top_p, min_p, order, bug=None):
    """logits [R, V] float64; per row: temperature [R] (below SAMPLING_EPS: greedy), top_k [R] int64
    (0: off), top_p [R], min_p [R], order [R] int64 (an index of ORDERS). Returns the [R, V]
    distributions the engine samples from: logits / temperature, softmax, min-p, top-k (ties at the
    k-th logit kept), top-p on the survivors (descending, ties by token id, the token crossing top_p
    kept), renormalize; min-p after top-p where the order is min_p_last; top-p's cut on the full
    softmax, intersected with top-k and min-p, where it is top_p_full_and_top_k."""
    rows, vocab = logits.shape
    greedy = temperature < SAMPLING_EPS
    min_p_last, top_p_full = (order == 1).unsqueeze(1), (order == 2).unsqueeze(1)
    scale = torch.ones_like(temperature) if bug == "temperature_after_softmax" else torch.where(greedy, 1.0, temperature)
    full = torch.softmax(logits / scale.unsqueeze(1), dim=1)
    ranked_logits = logits.sort(dim=1, descending=True).values
    kth = ranked_logits.gather(1, (top_k.clamp(1, vocab) - 1).unsqueeze(1))
    probs = torch.where(((top_k > 0) & (top_k < vocab)).unsqueeze(1) & (logits < kth), 0.0, full)
    floor = (min_p * probs.max(dim=1).values).unsqueeze(1)
    probs = torch.where(~min_p_last & (probs < floor), 0.0, probs)
    ranked, order = torch.where(top_p_full, full, probs).sort(dim=1, descending=True, stable=True)
    before = ranked.cumsum(dim=1) - ranked
    drop_ranked = before >= (top_p * ranked.sum(dim=1)).unsqueeze(1)
    probs = torch.where(torch.zeros_like(drop_ranked).scatter(1, order, drop_ranked), 0.0, probs)
    probs = torch.where(min_p_last & (probs < floor), 0.0, probs)
    if bug == "temperature_after_softmax":
        probs = probs / torch.where(greedy, 1.0, temperature).unsqueeze(1)
    probs = probs / probs.sum(dim=1, keepdim=True)
    one_hot = torch.zeros_like(probs).scatter(1, logits.argmax(dim=1, keepdim=True), 1.0)
    return torch.where(greedy.unsqueeze(1), one_hot, probs)


# --- adapters: tevsuite's cases as the engine's tensors ---

def process_rows(logits, sampling, bug=None):
    """Rows that share one request's sampling parameters (tevsuite's dict) through the engine's
    batched processing."""
    logits = torch.tensor(logits, dtype=torch.float64).reshape(-1, logits.shape[-1])  # tevsuite's arrays are read-only: a copy
    rows = logits.shape[0]

    def per_row(value, dtype):
        return torch.full((rows,), value, dtype=dtype)
    return apply_sampling_params(logits, per_row(sampling["temperature"], torch.float64), per_row(sampling["top_k"], torch.int64),
                                 per_row(sampling["top_p"], torch.float64), per_row(sampling["min_p"], torch.float64),
                                 per_row(ORDERS.index(sampling["order"]), torch.int64), bug)


def torch_generator(rng):
    """The engine's generator, seeded from the numpy Generator tevsuite hands the batch."""
    return torch.Generator().manual_seed(int(rng.integers(0, 2**63 - 1)))


def chain_verifier(bug=None):
    """A model-case verifier: each request drafts a chain of D tokens from q, then the batch goes
    through rejection_sample."""
    def verify(case, n, rng):
        generator = torch_generator(rng)
        vocab, depth = case.vocab, case.depth
        prefixes = torch.zeros(n, 0, dtype=torch.int64)
        draft_probs, target_probs = [], []
        rows = {}

        engine = case.target_sampling is not None

        def row(which, prefix):
            key = (which, tuple(prefix))
            if key not in rows:
                prefix = list(prefix)
                if not engine:
                    rows[key] = torch.as_tensor(case.p(prefix) if which == "p" else case.q(prefix))
                elif which == "p":
                    rows[key] = process_rows(case.p_logits(prefix), case.target_sampling, bug)[0]
                else:
                    # the drafter's processed q, and (for raw_q_ratio) the raw softmax of its logits
                    rows[key] = process_rows(case.q_logits(prefix), case.drafter_sampling, bug)[0]
                    rows[("raw " + which, key[1])] = torch.softmax(torch.as_tensor(case.q_logits(prefix), dtype=torch.float64), 0)
            return rows[key]

        for d in range(depth + 1):
            keys = [tuple(r) for r in prefixes.tolist()]
            target_probs.append(torch.stack([row("p", k) for k in keys]))
            if d == depth:
                break
            q = torch.stack([row("q", k) for k in keys])
            draft_probs.append(torch.stack([rows[("raw q", k)] for k in keys]) if bug == "raw_q_ratio" else q)
            drafted = torch.multinomial(q, 1, generator=generator)
            prefixes = torch.cat([prefixes, drafted], dim=1)
        return rejection_sample(prefixes, torch.stack(draft_probs, 1), torch.stack(target_probs, 1), generator, bug)
    return verify


def walk_verifier(bug=None):
    """A fixed-tree verifier: the batch of requests walks the case's tree (on an engine-shaped case,
    after processing its logits)."""
    def verify(case, n, rng):
        # tevsuite's arrays are read-only: copied into the engine's own tensors
        probs = torch.tensor(case.probs) if case.probs is not None else process_rows(case.logits, case.sampling, bug)
        return tree_walk(torch.tensor(case.parents, dtype=torch.int64), torch.tensor(case.tokens, dtype=torch.int64), probs, n,
                         torch_generator(rng), bug)
    return verify
