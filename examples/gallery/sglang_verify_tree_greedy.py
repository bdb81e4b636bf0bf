"""SGLang's greedy tree verification, and the verify path that falls back to it for sampling
requests, written from their algorithm.

Engine: SGLang (sgl-project/sglang). Kernel: ``sgl-kernel/csrc/speculative/eagle_utils.cu``
``VerifyTreeGreedy`` (lines 271-313), commit 29bd4e85: per request, from the root, walk the
children of the last accepted node in sibling order and accept the first whose token equals the
target token predicted at that node; stop where none does; the token after the last accepted node
is its target prediction. Caller: ``python/sglang/srt/speculative/eagle_info.py``
``EagleVerifyInput.verify``, commit f1f60ea0: where the batch is all greedy, or the tree sampling
kernel is unavailable (``TREE_SPEC_KERNEL_AVAILABLE`` false: a build without it, "likely AMD/HIP",
lines 275-281 log a warning), or on NPU (line 283), the target prediction is the argmax of the
(penalized, grammar-masked) logits (line 284) and ``verify_tree_greedy`` runs (286-296), for
sampling requests too: for them it is not exact.
"""
import numpy as np


def verify_tree_greedy(predicts, accept_index, accept_token_num, candidates, retrive_index, retrive_next_token, retrive_next_sibling,
                       target_predict):
    """candidates, retrive_index, retrive_next_token, retrive_next_sibling, target_predict [B, N]
    (target_predict: the target's token at each node). Writes predicts [B * N] (at flat node ids),
    accept_index [B, S] and accept_token_num [B]."""
    b, n = candidates.shape
    steps = accept_index.shape[1]
    flat_target = target_predict.reshape(-1)
    for row in range(b):
        last = int(retrive_index[row, 0])
        accept_index[row, 0] = last
        accepted = 0
        node = 0
        for _ in range(1, steps):
            node = int(retrive_next_token[row, node])
            while node != -1:
                if int(candidates[row, node]) == int(flat_target[last]):
                    predicts[last] = flat_target[last]
                    accepted += 1
                    last = int(retrive_index[row, node])
                    accept_index[row, accepted] = last
                    break
                node = int(retrive_next_sibling[row, node])
            if node == -1:
                break
        accept_token_num[row] = accepted
        predicts[last] = flat_target[last]


def sglang_greedy_fallback(predicts, accept_index, accept_token_num, candidates, retrive_index, retrive_next_token, retrive_next_sibling,
                           target_probs):
    """The verify path without the tree sampling kernel: the argmax of each node's row (the argmax
    of the logits, which temperature, top-k and top-p leave where it is), then VerifyTreeGreedy."""
    target_predict = target_probs.argmax(dim=-1)
    verify_tree_greedy(predicts, accept_index, accept_token_num, candidates, retrive_index, retrive_next_token, retrive_next_sibling,
                       target_predict)


def target_rows(case):
    """The rows the fallback follows on a fixed-tree case: one-hot at each node's argmax. It is exact
    against them (a walk that always takes the argmax), so its law is the walk over them."""
    probs = np.asarray(case.probs)
    return np.eye(probs.shape[1])[np.argmax(probs, axis=1)]


ENGINE = "SGLang"
ROUTINE = "verify_tree_greedy (greedy fallback for sampling requests)"
SOURCE = ("sgl-project/sglang sgl-kernel/csrc/speculative/eagle_utils.cu:271-313 VerifyTreeGreedy; "
          "python/sglang/srt/speculative/eagle_info.py:275-296 EagleVerifyInput.verify (f1f60ea0)")
COMMIT = "29bd4e85"
STATED = "exact for greedy requests; a sampling request verified by it (no tree sampling kernel, or NPU) is not"
FINDINGS = ("EagleVerifyInput.verify (python/sglang/srt/speculative/eagle_info.py:275-296 at f1f60ea0) verifies every request "
            "of the batch greedily when the tree sampling kernel is unavailable (a warning says so, :277-281) or on NPU "
            "(:283): the target token at each node is the argmax of the logits (:284), so a sampling request's accepted "
            "path and next token are the argmax path, deterministic.")
CAUSES = {"design": ("python/sglang/srt/speculative/eagle_info.py:283-296 at f1f60ea0 (argmax targets and verify_tree_greedy for the "
                     "whole batch where TREE_SPEC_KERNEL_AVAILABLE is false or on NPU; warning at :277-281) and "
                     "sgl-kernel/csrc/speculative/eagle_utils.cu:271-313 at 29bd4e85 (VerifyTreeGreedy)",
                     ("SGLang issue #11721 (tree speculative sampling on ROCm: it falls back to greedy), PR #37134 (merged: HIP "
                      "routed to a sampling verifier), PR #39253 (open)"),
                     "examples/gallery/findings/sglang_greedy_fallback.py")}


def runs():
    from tevsuite import adapters
    return {"default": lambda b: adapters.check_tree_sampler(sglang_greedy_fallback, **b["tree"])}

