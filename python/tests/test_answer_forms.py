"""A verifier's answer as a list, a numpy array or a torch tensor, each built as an engine builds
it (np.array(path) and torch.tensor(path) are float for an empty path): through every check the
same blocks give the same report, and a float answer is refused whatever holds it, as is a float
token of a prefix or a float node handed to tevsuite."""
import numpy as np
import pytest

import tevsuite
from tevsuite import VerifierError
from numpy_verifiers import walk_batch, walk_one

SMALL = dict(cases=2, samples=2_000, large_vocab=64, large_vocab_factor=1)
# The root with one child, on token 0 (exact_law's case).
CASE = tevsuite.TreeCase([-1, 0], [-1, 0], np.array([[0.5, 0.5], [0.3, 0.7]]), id="mine")


def form(name):
    """What builds an answer from Python ints and lists: nothing, np.array or torch.tensor."""
    if name == "torch":
        return pytest.importorskip("torch", reason="torch answers need torch (Debian: python3-torch)").tensor
    return {"list": lambda x: x, "numpy": np.array}[name]


def floats(make):
    """make, with every value a float first (torch.tensor's float32, np.array's float64)."""
    return lambda x: make(np.asarray(x, dtype=np.float64).tolist())


def per_sample_tree(make):
    def verify(case, rng):
        accepted, bonus = walk_one(case, rng)
        return make(accepted.tolist()), make(int(bonus))
    return tevsuite.check_tree(verify, **SMALL)


def per_sample_model(make):
    def verify(case, rng):  # token 0 accepted half the time, the bonus uniform
        return make([0] if rng.uniform() < 0.5 else []), make(int(rng.uniform() * case.vocab))
    return tevsuite.check_model(verify, cases=2, samples=2_000)


def batched_tree(make):
    return tevsuite.check_tree(verify_batch=lambda case, n, rng: tuple(make(x.tolist()) for x in walk_batch(case, n, rng)), **SMALL)


def batch_of_requests(make):
    def verify(requests, rng):  # no request accepts anything: rows of width 0
        bonus = np.random.default_rng(rng.bits()).integers(0, requests[0].vocab, len(requests))
        return make([[] for _ in requests]), make(bonus.tolist())
    return tevsuite.check_batch(verify_requests=verify, requests=2, rounds=2_000)


def enumerated(make):
    def verify(case, draws):
        token = draws.next_token(0, case.probs[0])
        if token != 0:
            return make([]), make(token)
        return make([0]), make(draws.next_token(1, case.probs[1]))
    return tevsuite.exact_law(verify, CASE)


CHECKS = [per_sample_tree, per_sample_model, batched_tree, batch_of_requests, enumerated]


def summary(result):
    if isinstance(result, tevsuite.ExactLaw):
        return result.tv, result.mean_length, result.ceiling, result.completion_probability
    return result.verdict, result.describe(), [(c.id, c.samples, c.impossible, c.p_value, c.mean_length) for c in result.cases]


@pytest.mark.parametrize("name", ["numpy", "torch"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_numpy_and_torch_answers_give_the_report_of_lists(check, name):
    assert summary(check(form(name))) == summary(check(form("list")))


@pytest.mark.parametrize("name", ["list", "numpy", "torch"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_a_float_answer_is_refused_whatever_holds_it(check, name):
    with pytest.raises(VerifierError, match=r"^(case|round) .*: (accepted|bonus) must hold integers, got dtype float"):
        check(floats(form(name)))


@pytest.mark.parametrize("make", [np.float32, lambda x: form("torch")(float(x))], ids=["numpy float32", "torch float"])
def test_a_float_node_or_prefix_is_refused_not_truncated(make):
    with pytest.raises(VerifierError, match=r"^case mine: the verifier raised TypeError: next_token\(\)"):
        tevsuite.exact_law(lambda case, draws: ([], draws.next_token(make(0), case.probs[0])), CASE)
    with pytest.raises(VerifierError, match=r"^case m0, sample 0: the verifier raised TypeError: p\(\)"):
        tevsuite.check_model(lambda case, rng: ([], int(case.p([make(0)]).argmax())), cases=1, samples=1)
