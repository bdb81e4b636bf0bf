"""Verifiers as a PyTorch inference engine writes them, batched over requests, checked by tevsuite.

* ``rejection_sample``: the chain rejection sampler of speculative sampling in the style of
  engines' samplers: every request's drafts and its draft and target probabilities in tensors,
  one vectorized accept / resample / bonus step. Planted bug ``bonus_from_p``: a rejected
  position resamples from p instead of the residual max(p - q, 0).
* ``tree_walk``: a target-only walk over a draft tree for a batch of requests (draw the next token
  from p at the current node, follow it while it is a drafted child, else it is the bonus).
  Planted bug ``full_row_bonus``: where a walk stops, the bonus is drawn again from the full row.

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


# --- adapters: tevsuite's cases as the engine's tensors ---

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

        def row(which, prefix):
            key = (which, tuple(prefix))
            if key not in rows:
                rows[key] = torch.as_tensor(case.p(list(prefix)) if which == "p" else case.q(list(prefix)))
            return rows[key]

        for d in range(depth + 1):
            keys = [tuple(r) for r in prefixes.tolist()]
            target_probs.append(torch.stack([row("p", k) for k in keys]))
            if d == depth:
                break
            q = torch.stack([row("q", k) for k in keys])
            draft_probs.append(q)
            drafted = torch.multinomial(q, 1, generator=generator)
            prefixes = torch.cat([prefixes, drafted], dim=1)
        return rejection_sample(prefixes, torch.stack(draft_probs, 1), torch.stack(target_probs, 1), generator, bug)
    return verify


def walk_verifier(bug=None):
    """A fixed-tree verifier: the batch of requests walks the case's tree."""
    def verify(case, n, rng):
        # tevsuite's arrays are read-only: copied into the engine's own tensors
        return tree_walk(torch.tensor(case.parents, dtype=torch.int64), torch.tensor(case.tokens, dtype=torch.int64),
                         torch.tensor(case.probs), n, torch_generator(rng), bug)
    return verify
