"""The numpy speculative generation loop under tevsuite.check_generation, at the command line's
budget (``--tevsuite-budget``; ctest runs the quick one, 40,000 generations a request at α = 1e-3
and the default seed): exact on every default request, and each planted bug not exact, the report
naming the request and the generation that shows it."""
import re

import numpy as np
import pytest

import tevsuite
from speculative_generation import BUGS, sampling_law, speculative_loop


def test_the_sampling_parameters_agree_with_tevsuite_process_logits():
    rng = np.random.default_rng(7)
    for case in tevsuite.generation_cases():
        r = case.request
        logits = rng.normal(0.0, 2.0, (64, case.vocab))
        ours = sampling_law(r, logits)
        # llama.cpp's temperature after its filters equals the others' where no filter is on, as on its request
        reference = [tevsuite.process_logits(row, temperature=r.temperature, top_k=r.top_k, top_p=r.top_p, min_p=r.min_p, order=r.order)
                     for row in logits]
        np.testing.assert_allclose(ours, reference, atol=1e-12, err_msg=case.id)


def test_the_loop_is_exact_on_every_request(tevsuite_check):
    report = tevsuite_check.assert_generation_exact(loop_batch=speculative_loop())
    assert [c.impossible for c in report.cases] == [0] * 5


# What each bug's report says first: the request it breaks and a generation plain generation never emits.
FIRST_FAILURE = {
    "eos_mid_block_emits_rest": r"request 'stops_vllm': not exact.*first impossible: generation \d+ of request 'stops_vllm': "
                                r"\[[\d ]+\] goes on after the stop token",
    "penalties_ignored_on_verified_rows": r"request 'penalties_vllm': not exact, identity p 0.*first impossible: generation \d+ "
                                          r"of request 'penalties_vllm': \[[\d ]+\] has probability 0 under plain generation",
    "min_tokens_not_in_verifier": r"request 'stops_vllm': not exact.*first impossible: generation \d+ of request 'stops_vllm': "
                                  r"\[[\d ]+\] stops at position \d, before min_tokens 2",
}


@pytest.mark.parametrize("bug", BUGS)
def test_each_planted_bug_is_not_exact(bug, tevsuite_options):
    report = tevsuite.check_generation(loop_batch=speculative_loop(bug), **tevsuite_options.generation)
    assert report.verdict == tevsuite.Verdict.NOT_EXACT, report.describe()
    assert re.search(FIRST_FAILURE[bug], report.describe()), report.describe()
