"""pytest helpers: assert a verifier's verdict, with tevsuite's description as the message.

    from tevsuite.testing import assert_exact_and_saturated
    def test_my_sampler():
        assert_exact_and_saturated(verify_batch=my_batched_verifier)

"inconclusive" (too few samples for the verdict policy's power) fails, never passes.
"""
from . import Verdict, check_model, check_tree

_EXACT = {Verdict.EXACT_SATURATED, Verdict.EXACT_NOT_SATURATED, Verdict.EXACT_SATURATION_INCONCLUSIVE}


def _fail(requirement, report):
    hint = "\n(inconclusive: raise samples)" if report.verdict == Verdict.INCONCLUSIVE else ""
    raise AssertionError(f"the verifier is required to be {requirement}\n{report.describe()}{hint}")


def assert_exact(verify=None, **options):
    """Exact (saturated or not) on the fixed-tree cases; returns the Report."""
    report = check_tree(verify, **options)
    if report.verdict not in _EXACT:
        _fail("exact", report)
    return report


def assert_exact_and_saturated(verify=None, **options):
    """Exact and saturated on the fixed-tree cases; returns the Report."""
    report = check_tree(verify, **options)
    if report.verdict != Verdict.EXACT_SATURATED:
        _fail("exact and saturated", report)
    return report


def assert_model_exact(verify=None, **options):
    """Exact (marginally, over the drafts) on the model cases; returns the Report."""
    report = check_model(verify, **options)
    if report.verdict != Verdict.EXACT_SATURATED:
        _fail("exact (marginally)", report)
    return report
