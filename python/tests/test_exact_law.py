"""exact_law: drawing verifiers enumerated on a case of one's own, against hand-derived laws."""
import numpy as np
import pytest

import tevsuite

# The root (p = .5, .3, .2) with children on tokens 0 and 1, each with a row of its own.
CASE = tevsuite.TreeCase([-1, 0, 0], [-1, 0, 1], np.array([[0.5, 0.3, 0.2], [0.6, 0.2, 0.2], [0.1, 0.1, 0.8]]), id="mine")


def child(case, node, token):
    kids = np.nonzero((case.parents == node) & (case.tokens == token))[0]
    return int(kids[0]) if kids.size else None


def walk(case, draws, draw_after_bonus=False):
    node, accepted = 0, []
    while True:
        token = draws.next_token(node, case.probs[node])
        nxt = child(case, node, token)
        if nxt is None:
            if draw_after_bonus:  # breaks next_token's promise: the enumeration goes token by token
                draws.categorical([1.0, 1.0])
            return accepted, token
        accepted.append(token)
        node = nxt


def root_bonus(case, draws):
    return [], draws.categorical(case.probs[0])


def test_the_walk_is_exact_and_saturated():
    law = tevsuite.exact_law(walk, CASE)
    # E[L] = 1 + P(token 0 or 1 at the root) = 1.8, the ceiling
    assert law.tv == pytest.approx(0, abs=1e-12) and law.mean_length == pytest.approx(1.8) and law.ceiling == pytest.approx(1.8)
    assert law.completion_probability == pytest.approx(0, abs=1e-12)


def test_a_broken_promise_is_enumerated_token_by_token():
    assert tevsuite.exact_law(lambda c, d: walk(c, d, draw_after_bonus=True), CASE).tv == pytest.approx(0, abs=1e-12)


def test_the_root_bonus_is_exact_not_saturated_and_a_uniform_bonus_is_not_exact():
    law = tevsuite.exact_law(root_bonus, CASE)
    assert law.tv == pytest.approx(0, abs=1e-12) and law.mean_length == pytest.approx(1.0) and law.completion_probability == pytest.approx(0.8)
    # TV from the root's row: (|1/3 - .5| + |1/3 - .3| + |1/3 - .2|) / 2 = 1/6
    assert tevsuite.exact_law(lambda c, d: ([], d.categorical(np.ones(3))), CASE).tv == pytest.approx(1 / 6)


def test_a_case_handed_over_by_a_check_can_be_enumerated():
    seen = []
    tevsuite.check_tree(lambda case, rng: seen.append(case) or ([], 0), cases=1, samples=1)
    assert tevsuite.exact_law(walk, seen[0]).tv == pytest.approx(0, abs=1e-12)


def test_malformed_cases_bad_answers_and_raising_verifiers():
    with pytest.raises(ValueError, match="probs"):
        tevsuite.TreeCase([-1, 0], [-1, 0], np.ones((3, 2)))
    with pytest.raises(ValueError):
        tevsuite.exact_law(walk, tevsuite.TreeCase([-1, 2, 1], [-1, 0, 1], np.full((3, 3), 1 / 3)))
    with pytest.raises(tevsuite.VerifierError, match="case mine: bonus token 3 outside"):
        tevsuite.exact_law(lambda c, d: ([], 3), CASE)
    with pytest.raises(tevsuite.VerifierError, match="case mine: the verifier raised ZeroDivisionError"):
        tevsuite.exact_law(lambda c, d: 1 / 0, CASE)
