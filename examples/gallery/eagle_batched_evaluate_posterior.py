"""EAGLE's batched posterior evaluation (EAGLE-1, batch size > 1), written from its algorithm.

Engine: EAGLE (SafeAILab/EAGLE), ``eagle/modeling_eagle.py``, ``evaluate_posterior(logits,
candidates, logits_processor, cart_candidates_prob, op, p_indices, tree_candidates, b_indices,
finish_flag)``, commit cb7e0841, as ``EAGLE.generate`` calls it (lines 1629-1735). The tree is the
module's ``tree_structure`` (lines 23-25), cut to the case's depth: ``EAGLE(base_model, eagle_path)``
with ``use_tree_attn=True`` (line 1556; no caller in the repository at cb7e0841 passes another,
and its docstring recommends the tree for small batches); ``generate`` builds the same
processor for draft and target from its caller's temperature, top-p and top-k
(``prepare_logits_processor``, lines 960-972).
Drafting (``EAGLEModel.sample``, lines 842-860, from ``topK_genrate``, 863-957): each node with
children draws ``top_k = 5`` tokens from its processed draft row q with ``torch.multinomial(...,
replacement=False)``; its children are the first draws (a child [.., r] is draw r), and each keeps
the draw's conditional probability q(x_r) / (1 - sum of the earlier draws) (0 where that is not
finite), ``cart_candidates_prob``. Here each node draws only as many as the tree uses (at most 4):
the first draws' law, and the model cases' V = 4 admits no fifth.
Verification (lines 1395-1459), per request: level by level, the target row of the first path
consistent with the accepted prefix, processed and softmaxed (p'); its distinct children in path
order, one ``random.random()`` each: a child of stored probability q_j <= 0 is skipped, otherwise
accepted when r <= p'(x) / q_j; on a rejection q'' is the parent's draft row with the earlier
siblings' tokens zeroed and renormalized, and p' becomes norm(max(p' - q'', 0)). If a child was
rejected at the level where the walk stopped, the next token comes from p'; otherwise from the
processed target row of the last accepted node (``update_inference_inputs``, line 1534). Recursive
rejection sampling without replacement: exact by design where the stored probabilities are the
draws' own.
"""
import random

import numpy as np
import torch

import offers

TREE_STRUCTURE = [[0], [1], [2], [3], [0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [0, 0, 0], [0, 0, 1],
                  [0, 0, 2], [0, 1, 0], [0, 1, 1], [0, 2, 0], [0, 2, 1], [1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 2],
                  [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]]  # eagle/modeling_eagle.py:23-25


def evaluate_posterior(logits, candidates, logits_processor, cart_candidates_prob, op, p_indices, tree_candidates, b_indices,
                       finish_flag):
    """logits [B, P, D, V], candidates [B, P, D] (-1 padded), cart_candidates_prob [B, P, D];
    op[level - 1][b][p_indices[path][level]] the parent's processed draft row (V);
    b_indices[path][level] the tree positions (in tree_candidates [B, N]) of its earlier siblings.
    Returns (best_candidate, accept_length, sample_p), lists over the batch."""
    if logits_processor is None:
        matches = (candidates[:, :, 1:] == logits[:, :, :-1].argmax(dim=-1)).int()
        lengths = torch.cumprod(matches, dim=-1).sum(dim=-1)
        accept_length, best = lengths.max(dim=1).values, lengths.argmax(dim=-1)
        rows = logits[torch.arange(len(best)), best, accept_length]
        return best.tolist(), [0 if done else n for n, done in zip(accept_length.tolist(), finish_flag)], rows
    probs = torch.softmax(logits_processor(None, logits), dim=-1)
    best_list, length_list, sample_list = [], [], []
    for b in range(cart_candidates_prob.shape[0]):
        accept_length, accepted, best = 1, candidates[b, 0, :1], 0
        for i in range(1, candidates.shape[2]):
            if i != accept_length:
                break
            adjusted = False
            consistent = (candidates[b, :, :accept_length] == accepted).all(dim=1)
            gtp = probs[b, int(torch.nonzero(consistent)[0][0]), i - 1]
            tried = []
            for j in range(candidates.shape[1]):
                if not consistent[j]:
                    continue
                x = int(candidates[b, j, i])
                if x in tried or x == -1:
                    continue
                tried.append(x)
                r = random.random()
                qx = cart_candidates_prob[b, j, i]
                if qx <= 0:
                    continue
                if r <= gtp[x] / qx:
                    accepted = torch.cat((accepted, candidates[b, j, i:i + 1]))
                    accept_length += 1
                    best = j
                    break
                q = op[i - 1][b][p_indices[j][i]].clone()
                if len(b_indices[j][i]) > 0:
                    q[tree_candidates[b][b_indices[j][i]]] = 0
                    q = q / q.sum()
                gtp = (gtp - q).clamp(min=0)
                gtp = gtp / gtp.sum()
                adjusted = True
        sample_p = gtp if adjusted and accept_length != candidates.shape[2] else probs[b, best, accept_length - 1]
        best_list.append(best)
        length_list.append(0 if finish_flag[b] else accept_length - 1)
        sample_list.append(sample_p)
    return best_list, length_list, sample_list


def draw_without_replacement(q, k, uniform):
    """torch.multinomial(q, k, replacement=False)'s law from uniforms in [0, 1), and the conditional
    probabilities EAGLEModel.sample stores: q(x_r) / (1 - sum of the earlier draws), clamped to
    [0, 1], 0 where not finite. Where q has fewer than k positive entries, torch.multinomial
    returns tokens of zero mass after the others (their order is of no consequence: stored 0,
    evaluate_posterior skips them); here the lowest unused ids."""
    q = np.asarray(q, dtype=np.float64)
    left = q.copy()
    tokens, stored, drawn_mass = [], [], np.float64(0.0)
    for _ in range(k):
        if left.sum() > 0:
            x = offers.inverse_cdf(left, uniform())
        else:
            x = next(t for t in range(len(left)) if t not in tokens)
        with np.errstate(divide="ignore", invalid="ignore"):
            conditional = q[x] / (1.0 - drawn_mass)
        stored.append(float(np.clip(conditional, 0.0, 1.0)) if np.isfinite(conditional) else 0.0)
        tokens.append(x)
        drawn_mass += q[x]
        left[x] = 0.0
    return tokens, stored


def tree_buffers(depth):
    """The tree_structure cut to `depth`, in generate_tree_buffers' terms (lines 1002-1140): the
    choices sorted by (length, choice), each node's parent and rank, the root-to-leaf paths in
    node ids (0 the root, -1 padded) in its retrieve order, and each node's earlier siblings."""
    choices = sorted((c for c in TREE_STRUCTURE if len(c) <= depth), key=lambda c: (len(c), c))
    ids = {(): 0, **{tuple(c): n + 1 for n, c in enumerate(choices)}}
    parents = [-1] + [ids[tuple(c[:-1])] for c in choices]
    ranks = [-1] + [c[-1] for c in choices]
    leaves = [c for c in choices if not any(len(d) == len(c) + 1 and d[:-1] == c for d in choices)]
    paths = sorted(([0] + [ids[tuple(c[:k + 1])] for k in range(len(c))] + [-1] * (depth - len(c)) for c in leaves),
                   key=lambda p: [n if n >= 0 else len(ids) + 5 for n in p])
    siblings = [[m for m in range(1, n) if parents[m] == parents[n]] for n in range(len(parents))]
    return parents, ranks, paths, siblings


def draft_tree(case, uniform):
    """EAGLE's tree on a model case: (tokens, stored probabilities, prefixes, draft rows), by node;
    each node with children draws them from q after its prefix (the root's token, the last emitted
    one, is -1 here: no draft compares with it)."""
    parents, ranks, _, _ = tree_buffers(case.depth)
    n = len(parents)
    tokens, stored, prefixes, q_rows = [-1] * n, [1.0] * n, {0: []}, {}
    for node in range(n):
        children = [m for m in range(1, n) if parents[m] == node]
        if not children:
            continue
        q_rows[node] = np.asarray(case.q(prefixes[node]), dtype=np.float64)
        drawn, probs = draw_without_replacement(q_rows[node], max(ranks[m] for m in children) + 1, uniform)
        for m in children:
            tokens[m], stored[m], prefixes[m] = drawn[ranks[m]], probs[ranks[m]], prefixes[node] + [drawn[ranks[m]]]
    return tokens, stored, prefixes, q_rows


def engine_inputs(case, tokens, stored, prefixes, q_rows):
    """evaluate_posterior's inputs for one request, as EAGLE.generate passes them: logits [1, P,
    D + 1, V] (log p along each path), candidates and cart_candidates_prob [1, P, D + 1], op (per
    level, the draft rows of that level's parents in node order), p_indices, tree_candidates [1, N]
    and b_indices."""
    parents, _, paths, siblings = tree_buffers(case.depth)
    candidates = torch.tensor([[tokens[k] if k >= 0 else -1 for k in path] for path in paths])[None]
    cart_prob = torch.tensor([[stored[k] if k >= 0 else 1.0 for k in path] for path in paths], dtype=torch.float64)[None]
    with np.errstate(divide="ignore"):  # log 0 = -inf: a token the target forbids
        logits = torch.tensor(np.log(np.array([[case.p(prefixes[max(k, 0)]) for k in path] for path in paths])))[None]
    levels = [[m for m in sorted(q_rows) if len(prefixes[m]) == level] for level in range(case.depth)]
    op = [[torch.tensor(np.array([q_rows[m] for m in level]))] for level in levels]
    p_indices = [[-1] + [levels[i].index(parents[k]) if k >= 0 else 0 for i, k in enumerate(path[1:])] for path in paths]
    b_indices = [[[]] + [torch.tensor(siblings[k]) if k >= 0 and siblings[k] else [] for k in path[1:]] for path in paths]
    return logits, candidates, cart_prob, op, p_indices, torch.tensor(tokens)[None], b_indices


def draft_and_verify(case, rng):
    """One round on a model case, rows p and q already processed (the processor at temperature 1,
    an empty LogitsProcessorList, takes the sampling branch): EAGLE's tree drawn from q, the batched
    evaluate_posterior with one request (random seeded from rng.bits()), the next token drawn from
    its sample_p; rng.uniform() stands for the multinomial draws."""
    tokens, stored, prefixes, q_rows = draft_tree(case, rng.uniform)
    logits, candidates, cart_prob, op, p_indices, tree_candidates, b_indices = engine_inputs(case, tokens, stored, prefixes, q_rows)
    random.seed(rng.bits())
    best, length, sample_p = evaluate_posterior(logits, candidates, lambda ids, scores: scores, cart_prob, op, p_indices,
                                                tree_candidates, b_indices, [False])
    accepted = candidates[0, best[0], 1:length[0] + 1].tolist()
    return accepted, offers.inverse_cdf(sample_p[0].numpy(), rng.uniform())


ENGINE = "EAGLE"
ROUTINE = "evaluate_posterior (modeling_eagle.py, batched)"
SOURCE = ("SafeAILab/EAGLE eagle/modeling_eagle.py:1352-1459 evaluate_posterior, :842-860 EAGLEModel.sample, :863-957 topK_genrate, "
          ":1002-1140 generate_tree_buffers, :1629-1735 EAGLE.generate")
COMMIT = "cb7e0841"
STATED = "exact by design (recursive rejection sampling without replacement)"
NOT_RUN = ("engine-shaped model cases: tevsuite's model check takes no engine_order, and one of them (min-p) is a request "
           "EAGLE's processor cannot make (prepare_logits_processor, eagle/modeling_eagle.py:960-972 at cb7e0841: temperature, "
           "repetition penalty, top-p, top-k); its model run judges the processed rows.")


def runs():
    import tevsuite
    return {"model (draft probs)": lambda b: tevsuite.check_model(verify=draft_and_verify, **b["model"])}
