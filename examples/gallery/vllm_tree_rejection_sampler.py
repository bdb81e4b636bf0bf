"""vLLM V1's tree rejection sampler, written from its algorithm.

Engine: vLLM (vllm-project/vllm), ``vllm/v1/sample/tree_rejection_sampler.py``,
``TreeRejectionSampler.forward`` (lines 67-202), ``compute_probs`` (204-222) and
``rejection_sample`` (224-233), commit 3fb487a5. The target logits of the tree's internal nodes
are divided by the request's temperature, cut by top-k and top-p (``apply_top_k_top_p``) and
softmaxed; level by level a draft is accepted iff it equals the argmax of its parent's row
(``rejection_sample``; a TODO there, lines 226-227, says probabilistic acceptance as in EAGLE is
not implemented); the longest accepted path wins (``tree_acceptances.argmin`` then ``max``, lines
159-165, the first on ties); the bonus token is drawn by vLLM's main sampler from the logits of
the path's last accepted node, with every sampling parameter (lines 181-188).

vLLM's sampler takes a static tree whose levels have equal fan-out; the matching is per parent and
child, so it is written here on any tree (root-to-leaf paths). For a greedy request it is exact;
for a sampling request every accepted draft is the parent's argmax, not a draw from the parent's
row: not exact.
"""
import numpy as np
import torch

from tevsuite import exact_law


def rejection_sample(target_probs, draft_tokens, parents):
    """target_probs [B, N, V] at every node; draft_tokens [B, N] (each node's token); parents [B, N]
    node ids (-1 for the root). A node is accepted where its token is its parent's argmax: [B, N]."""
    argmax = target_probs.argmax(dim=-1)
    parent_argmax = argmax.gather(1, parents.clamp(min=0))
    return (parents >= 0) & (draft_tokens == parent_argmax)


def longest_accepted_path(accepted, paths):
    """accepted [B, N]; paths [B, P, L] node ids from the root, -1 padded. Returns (path [B], accepted
    drafts on it [B]): the first path of the most leading acceptances."""
    b = paths.shape[0]
    node = paths.clamp(min=0)
    along = torch.gather(accepted, 1, node[:, :, 1:].reshape(b, -1)).reshape(node[:, :, 1:].shape) & (paths[:, :, 1:] >= 0)
    # the first level that is not accepted, with a level of zeros appended (vLLM's argmin)
    levels = torch.cat([along.int(), torch.zeros_like(along[:, :, :1], dtype=torch.int32)], dim=2).argmin(dim=2)
    length, best = levels.max(dim=1)
    return best, length


def tree_rejection_sample(candidates, paths, target_probs, generator):
    """candidates [B, N] (node tokens, the root's unused); paths [B, P, L]; target_probs [B, N, V] the
    rows compute_probs gives (the bonus drawn from the same rows, as the main sampler draws it from
    the same parameters). Returns (accepted node ids [B, L] from the root, -1 padded; bonus [B])."""
    b, n, v = target_probs.shape
    parents = torch.full((b, n), -1, dtype=torch.int64, device=paths.device)
    node = paths.clamp(min=0)
    valid = paths[:, :, 1:] >= 0
    rows = torch.arange(b, device=paths.device)[:, None, None].expand_as(node[:, :, 1:])
    parents[rows[valid], node[:, :, 1:][valid]] = node[:, :, :-1][valid]
    accepted = rejection_sample(target_probs, candidates, parents)
    best, length = longest_accepted_path(accepted, paths)
    chosen = node[torch.arange(b), best]                                   # [B, L]
    keep = torch.arange(paths.shape[2], device=paths.device) <= length[:, None]
    last = chosen.gather(1, length[:, None]).squeeze(1)
    bonus = torch.multinomial(target_probs[torch.arange(b), last], 1, generator=generator).squeeze(1)
    return torch.where(keep, chosen, -1), bonus


def vllm_tree(candidates, retrive_index, paths, target_probs, generator, predicts, accept_index, accept_token_num):
    """tree_rejection_sample on tevsuite's flattened tree layout (one request a row)."""
    nodes, bonus = tree_rejection_sample(candidates, paths, target_probs, generator)
    count = (nodes >= 0).sum(dim=1) - 1
    accept_index[:, :nodes.shape[1]] = torch.where(nodes >= 0, retrive_index.gather(1, nodes.clamp(min=0)), -1).to(accept_index.dtype)
    accept_token_num.copy_(count.to(accept_token_num.dtype))
    last = retrive_index.gather(1, nodes.gather(1, count[:, None])).squeeze(1)
    predicts[last] = bonus.to(predicts.dtype)


def exact_tv(case):
    """The exact TV of the routine's law on a fixed-tree case (its rows p) from the canonical law,
    by tevsuite's enumeration: from the root, move to the child whose token is the row's argmax;
    where there is none, the bonus is drawn from the row (and may be a drafted child's token)."""
    probs = np.asarray(case.probs, dtype=np.float64)
    children = {(int(case.parents[i]), int(case.tokens[i])): i for i in range(1, case.nodes)}

    def verify(c, draws):
        node, accepted = 0, []
        while (node, int(np.argmax(probs[node]))) in children:
            token = int(np.argmax(probs[node]))
            node = children[(node, token)]
            accepted.append(token)
        return accepted, int(draws.categorical(probs[node]))

    return exact_law(verify, case).tv


ENGINE = "vLLM"
ROUTINE = "TreeRejectionSampler (V1, tree)"
SOURCE = ("vllm-project/vllm vllm/v1/sample/tree_rejection_sampler.py:67-202 TreeRejectionSampler.forward, :204-222 "
          "compute_probs, :224-233 rejection_sample")
COMMIT = "3fb487a5"
STATED = "exact for greedy requests only (argmax matching; a TODO says probabilistic acceptance is not implemented)"
FINDINGS = ("rejection_sample (vllm/v1/sample/tree_rejection_sampler.py:224-233 at 3fb487a5) accepts a draft iff it equals the "
            "argmax of its parent's processed row, whatever the request's temperature, and the bonus is drawn from the "
            "last accepted node's row by the main sampler (:181-188): for a sampling request the accepted path is the "
            "argmax path, not a draw; exact for greedy requests only, as its TODO (:226-227) says.")
CAUSES = {"design": ("vllm/v1/sample/tree_rejection_sampler.py:224-233 (rejection_sample: draft == argmax of the parent's row; "
                     "TODO at :226-227) and :181-188 (the bonus from the main sampler)",
                     "not reported (the TODO states it)", "examples/gallery/findings/vllm_tree_argmax.py")}


def runs():
    from tevsuite import adapters
    return {"default": lambda b: adapters.check_tree_sampler(vllm_tree, randomness="generator", **b["tree"])}
