"""tevsuite.adapters: the layout conversions round-trip, in each shape a correct sampler is exact
while its planted bug is caught, and outputs are read as answers are (integers, in range). Checks
of an exact sampler run 40,000 samples a case (what a conclusive "exact" needs; model cases
check_model's 40,000) on one or two cases, planted bugs 5,000 samples or more (a "not exact" needs
no stated power); family alpha 1e-3, the default seed."""
import inspect
from functools import partial

import numpy as np
import pytest

import tevsuite
from tevsuite import Verdict, VerifierError, adapters

torch = pytest.importorskip("torch", reason="the adapters call torch samplers (Debian: python3-torch)")

EXACT = {Verdict.EXACT_SATURATED, Verdict.EXACT_NOT_SATURATED, Verdict.EXACT_SATURATION_INCONCLUSIVE}
TREES = dict(cases=2, samples=40_000)
MODELS = dict(cases=2, samples=40_000)  # check_model's default budget, the one its power rule is stated for
BATCH = dict(batches=1, requests=3, rounds=40_000)
FEW = dict(cases=1, samples=200)  # for answers refused on their first call


# --- conversions ---

def test_chain_output_and_blocks_round_trip():
    accepted = np.array([[5, 6, -1], [-1, -1, -1], [1, 2, 3]])
    bonus = np.array([7, 0, 9])
    out = adapters.chain_output(accepted, bonus)
    assert out.tolist() == [[5, 6, 7, -1], [0, -1, -1, -1], [1, 2, 3, 9]]
    back_accepted, back_bonus = adapters.blocks_of_output(out)
    assert back_accepted.tolist() == accepted.tolist() and back_bonus.tolist() == bonus.tolist()
    with pytest.raises(VerifierError, match="holds no token"):
        adapters.blocks_of_output(np.array([[-1, -1]]))


def test_flattened_chains_round_trip():
    padded = np.array([[4, 5, -1], [6, -1, -1], [7, 8, 9]])
    lengths = np.array([2, 1, 3])
    flat, cu = adapters.flatten_chains(padded, lengths)
    assert flat.tolist() == [4, 5, 6, 7, 8, 9] and cu.tolist() == [2, 3, 6]
    assert adapters.unflatten_chains(flat, cu, 3).tolist() == padded.tolist()


def test_tree_layout_and_paths_round_trip_on_every_default_case():
    seen = []

    def record(case, n, rng):
        seen.append(case)
        return np.full((n, 1), -1), np.zeros(n, dtype=np.int64)

    tevsuite.check_tree(verify_batch=record, samples=1, large_vocab=64)
    assert len(seen) == 8
    for case in seen:
        candidates, next_token, next_sibling = adapters.tree_layout(case.parents, case.tokens)
        parents, tokens = adapters.tree_of_layout(candidates, next_token, next_sibling)
        assert parents.tolist() == case.parents.tolist() and tokens.tolist() == case.tokens.tolist()
        paths = adapters.root_paths(case.parents)
        for path in paths:
            nodes = path[path >= 0]
            assert nodes[0] == 0 and all(case.parents[c] == p for p, c in zip(nodes, nodes[1:]))
            assert not np.any(case.parents == nodes[-1])  # ends at a leaf
        chain = adapters.first_child_chain(case)
        assert any(np.array_equal(path[:len(chain)], chain) for path in paths)


# --- chains: a p/q sampler and a target-only one, each with a planted bug ---

def padded_rejection(draft_token_ids, draft_probs, target_probs, uniform_samples, bug=None):
    """Accept while u < p/q; at the first rejection the residual max(p - q, 0) (with the bug: p),
    after a full chain the bonus row. Inverse CDF with the last uniform of the row."""
    b, k = draft_token_ids.shape
    rows = torch.arange(b)
    p_x = target_probs[:, :k].gather(2, draft_token_ids[..., None])[..., 0]
    q_x = draft_probs.gather(2, draft_token_ids[..., None])[..., 0]
    accept = uniform_samples[:, :k] * q_x < p_x
    stop = torch.where(accept.all(1), k, (~accept).int().argmax(1))
    at = stop.clamp(max=k - 1)
    residual = target_probs[rows, stop] - torch.where((stop < k)[:, None], draft_probs[rows, at], 0.0)
    weights = target_probs[rows, stop] if bug == "residual_is_p" else residual.clamp(min=0)
    cdf = weights.double().cumsum(1)
    token = (cdf <= (uniform_samples[:, k] * cdf[:, -1])[:, None]).sum(1).clamp(max=weights.shape[1] - 1)
    out = torch.where(torch.arange(k + 1) < stop[:, None], torch.cat([draft_token_ids, draft_token_ids[:, :1]], 1), -1)
    out[rows, stop] = token
    return out


def flat_target_only(draft_token_ids, cu_num_draft_tokens, max_spec_len, target_probs, bonus_token_ids, generator, bug=None):
    """vLLM's flattened shape without draft probs: accept x with probability p(x); at a rejection a
    token from p with x removed (with the bug: x kept)."""
    out = torch.full((len(cu_num_draft_tokens), max_spec_len + 1), -1, dtype=torch.int32)
    start = 0
    for b, end in enumerate(cu_num_draft_tokens.tolist()):
        for i, pos in enumerate(range(start, end)):
            x = int(draft_token_ids[pos])
            if float(torch.rand(1, generator=generator, dtype=torch.float64)) < float(target_probs[pos, x]):
                out[b, i] = x
                continue
            row = target_probs[pos].double().clone()
            if bug != "draft_kept":
                row[x] = 0
            out[b, i] = int(torch.multinomial(row, 1, generator=generator))
            break
        else:
            out[b, end - start] = int(bonus_token_ids[b, 0])
        start = end
    return out


def test_padded_chain_with_draft_probs_is_exact_and_its_bug_caught():
    report = adapters.check_chain(padded_rejection, **MODELS)
    assert report.verdict == Verdict.EXACT_SATURATED, report.describe()
    bug = adapters.check_chain(partial(padded_rejection, bug="residual_is_p"), **MODELS)
    assert bug.verdict == Verdict.NOT_EXACT, bug.describe()


def test_flattened_target_only_chain_is_exact_and_its_bug_caught():
    report = adapters.check_chain(flat_target_only, draft_probs=False, layout="flat", randomness="generator", cases=1, samples=40_000)
    assert report.verdict in EXACT, report.describe()
    bug = adapters.check_chain(partial(flat_target_only, bug="draft_kept"), draft_probs=False, layout="flat",
                               randomness="generator", cases=1, samples=5_000)
    assert bug.verdict == Verdict.NOT_EXACT, bug.describe()


# --- flattened trees ---

def tree_walk(candidates, retrive_next_token, retrive_next_sibling, retrive_index, target_probs, uniform_samples,
              uniform_samples_for_final_sampling, predicts, accept_index, accept_token_num, bug=None):
    """Target-only inverse-CDF walk over siblings (one coin per parent), the final token from p
    with the tried siblings removed (with the bug: from the full row)."""
    for b in range(candidates.shape[0]):
        node, count = 0, 0
        accept_index[b, 0] = retrive_index[b, 0]
        while True:
            child, total, tried = int(retrive_next_token[b, node]), 0.0, []
            coin = float(uniform_samples[b, node])
            while child >= 0:
                total += float(target_probs[b, node, candidates[b, child]])
                if coin < total:
                    break
                tried.append(int(candidates[b, child]))
                child = int(retrive_next_sibling[b, child])
            if child < 0:
                break
            predicts[retrive_index[b, node]] = candidates[b, child]
            count += 1
            accept_index[b, count] = retrive_index[b, child]
            node = child
        row = target_probs[b, node].double().clone()
        if bug != "full_row":
            row[tried] = 0
        cdf = row.cumsum(0)
        token = int((cdf <= float(uniform_samples_for_final_sampling[b]) * cdf[-1]).sum().clamp(max=row.numel() - 1))
        predicts[retrive_index[b, node]] = token
        accept_token_num[b] = count


PROCESSED = {}  # processed_walk's rows: (logits, shape, parameters) -> probabilities


def processed_walk(target_logits, sampling_metadata, candidates, retrive_next_token, retrive_next_sibling, retrive_index, uniform_samples,
                   uniform_samples_for_final_sampling, predicts, accept_index, accept_token_num, bug=None):
    """tree_walk after tevsuite's reference processing of each request's rows with its own
    parameters (with the bug: the first request's parameters for every request)."""
    s = sampling_metadata
    rows = [dict(temperature=float(s.temperature[b]), top_k=int(s.top_k[b]), top_p=float(s.top_p[b]), min_p=float(s.min_p[b]),
                 order=s.order[b]) for b in range(target_logits.shape[0])]
    if bug == "first_request_parameters":
        rows = [rows[0]] * len(rows)
    # Every round of a batch brings the same requests: the same logits and parameters are
    # processed once.
    key = (target_logits.numpy().tobytes(), target_logits.shape, repr(rows))
    if key not in PROCESSED:
        PROCESSED[key] = torch.tensor(np.stack([[tevsuite.process_logits(r, **rows[b]) for r in target_logits[b].double().numpy()]
                                                for b in range(len(rows))]))
    tree_walk(candidates, retrive_next_token, retrive_next_sibling, retrive_index, PROCESSED[key], uniform_samples,
              uniform_samples_for_final_sampling, predicts, accept_index, accept_token_num)


def test_tree_sampler_on_batches_of_requests_with_their_own_parameters():
    report = adapters.check_tree_sampler(processed_walk, target="logits", batch_of_requests=True, engine_inputs=True, **BATCH)
    assert report.verdict == Verdict.EXACT_SATURATED, report.describe()
    bug = adapters.check_tree_sampler(partial(processed_walk, bug="first_request_parameters"), target="logits", batch_of_requests=True,
                                      engine_inputs=True, **dict(BATCH, rounds=5_000))
    assert bug.verdict == Verdict.NOT_EXACT, bug.describe()


# --- paths, one sample a call ---

def path_walk(logits, candidates, bug=None):
    """Target-only over paths: at each level the first consistent path's row, its distinct
    children tried in path order with probability p'(x), p' the renormalized residual; the next
    token drawn from p' (with the bug: from the full row)."""
    best, depth = 0, 0
    while depth + 1 < candidates.shape[1]:
        consistent = (candidates[:, :depth + 1] == candidates[best, :depth + 1]).all(1)
        row = torch.softmax(logits[int(torch.nonzero(consistent)[0, 0]), depth].double(), 0)
        residual, moved = row.clone(), False
        for path in torch.nonzero(consistent)[:, 0].tolist():
            x = int(candidates[path, depth + 1])
            if x < 0 or residual[x] == 0 and row[x] > 0:
                continue
            if float(torch.rand(1, dtype=torch.float64)) < float(residual[x]):
                best, depth, moved = path, depth + 1, True
                break
            residual[x] = 0
            residual /= residual.sum()
        if not moved:
            return best, depth, row if bug == "full_row" else residual
    return best, depth, torch.softmax(logits[best, depth].double(), 0)


@pytest.mark.parametrize("check, walk", [(adapters.check_tree_sampler, tree_walk), (adapters.check_paths, path_walk)],
                         ids=["flattened tree", "paths"])
def test_tree_shapes_are_exact_and_saturated_and_their_bugs_caught(check, walk):
    report = check(walk, cases=1, samples=40_000)
    assert report.verdict == Verdict.EXACT_SATURATED, report.describe()
    bug = check(partial(walk, bug="full_row"), cases=1, samples=5_000)
    assert bug.verdict == Verdict.NOT_EXACT, bug.describe()


def test_bad_outputs_are_verifier_errors():
    with pytest.raises(VerifierError, match="output ids"):
        adapters.check_chain(lambda draft_token_ids, **kw: torch.zeros(3), **MODELS)
    with pytest.raises(VerifierError, match="accept_token_num"):
        adapters.check_tree_sampler(lambda accept_token_num, **kw: [accept_token_num.fill_(99)] and None, **TREES)
    with pytest.raises(VerifierError, match="written in place"):
        adapters.check_tree_sampler(lambda accept_token_num, **kw: accept_token_num, **TREES)
    with pytest.raises(ValueError, match="layout"):
        adapters.check_chain(padded_rejection, layout="ragged", **MODELS)


def outputs_of(output):
    """tree_walk returning its outputs, `output` of them as floats."""
    inputs = set(inspect.signature(tree_walk).parameters) - {"predicts", "accept_index", "accept_token_num", "bug"}

    def walk(predicts, accept_index, accept_token_num, **kwargs):
        tree_walk(predicts=predicts, accept_index=accept_index, accept_token_num=accept_token_num, **{k: kwargs[k] for k in inputs})
        outputs = dict(predicts=predicts, accept_index=accept_index, accept_token_num=accept_token_num)
        outputs[output] = outputs[output].float()
        return tuple(outputs.values())
    return walk


def answer_of(change):
    """path_walk with its answer (best, length, the next token's distribution) changed."""
    return lambda logits, candidates: change(*path_walk(logits, candidates))


@pytest.mark.parametrize(
    "check, message",
    [(lambda: adapters.check_chain(lambda draft_token_ids, draft_probs, target_probs, uniform_samples:
                                  padded_rejection(draft_token_ids, draft_probs, target_probs, uniform_samples).float(), **FEW),
      "output ids must hold integers, got dtype float32"),
     (lambda: adapters.check_tree_sampler(outputs_of("predicts"), **FEW), "predicts must hold integers, got dtype float32"),
     (lambda: adapters.check_tree_sampler(outputs_of("accept_index"), **FEW), "accept_index must hold integers, got dtype float32"),
     (lambda: adapters.check_tree_sampler(outputs_of("accept_token_num"), **FEW), "accept_token_num must hold integers, got dtype float32"),
     (lambda: adapters.check_paths(answer_of(lambda b, n, p: (torch.tensor(float(b)), n, p)), **FEW), "best_candidate must hold integers, got dtype float32"),
     (lambda: adapters.check_paths(answer_of(lambda b, n, p: (np.float64(b), n, p)), **FEW), "best_candidate must hold integers, got dtype float64"),
     (lambda: adapters.check_paths(answer_of(lambda b, n, p: (b, float(n), p)), **FEW), "accept_length must hold integers, got dtype float64"),
     (lambda: adapters.check_paths(answer_of(lambda b, n, p: (b, n, torch.multinomial(p, 1)[0].float())), **FEW),
      "next must hold integers, got dtype float32"),
     (lambda: adapters.check_paths(answer_of(lambda b, n, p: (-1, n, p)), **FEW), r"best_candidate -1 outside \[0, \d+\)"),
     (lambda: adapters.check_paths(answer_of(lambda b, n, p: (b, 99, p)), **FEW), r"accept_length 99 outside \[0, \d+\)"),
     (lambda: adapters.check_paths(answer_of(lambda b, n, p: (b, n, torch.multinomial(p, 1))), **FEW),
      r"next: expected a token or a \(\d+\) distribution, got shape \(1,\)")],
    ids=["chain float ids", "float predicts", "float accept_index", "float accept_token_num", "float torch best", "float numpy best",
         "float length", "float next token", "best out of range", "length past the path", "next token of shape (1,)"],
)
def test_outputs_are_integers_in_range_as_answers_are(check, message):
    with pytest.raises(VerifierError, match=r"^case \w+, samples [\d.]+: .*" + message):
        check()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_padded_chain_on_cuda_tensors():
    seen = []

    def on_device(draft_token_ids, draft_probs, target_probs, uniform_samples):
        seen.append(target_probs.device.type)
        return padded_rejection(draft_token_ids.cpu(), draft_probs.cpu(), target_probs.cpu(), uniform_samples.cpu()).cuda()

    report = adapters.check_chain(on_device, device="cuda", **MODELS)
    assert report.verdict == Verdict.EXACT_SATURATED and set(seen) == {"cuda"}, report.describe()
