"""pytest helpers: assert a verifier's verdict, with tevsuite's description as the message.

    from tevsuite.testing import assert_exact_and_saturated
    def test_my_sampler():
        assert_exact_and_saturated(verify_batch=my_batched_verifier)

"inconclusive" (too few samples for the verdict policy's power) fails, never passes. A failure
message ends with the call that reproduces it: the check, the verifier and every option, the seed
included. Given pytest's ``record_property``, a helper records the verdict, the smallest Holm p and
the stated TV as the test's properties (JUnit XML).

``BUDGETS`` are the pytest plugin's ``--tevsuite-budget`` choices: the cases and samples of the
fixed-tree check (``tree``) and of the model-case check (``model``), and the generations per
request of the generation check (``generation``); a helper's ``budget`` names one (the options it
is given win). docs/python.md states the TV each guarantees, computed with this package
(``bench/python_budgets.py``; the generation check's with examples/generation's loop).
"""
import inspect

from . import Verdict, check_generation, check_model, check_tree

_EXACT = {Verdict.EXACT_SATURATED, Verdict.EXACT_NOT_SATURATED, Verdict.EXACT_SATURATION_INCONCLUSIVE}

BUDGETS = {
    # The first 4 recipes of each kind (fixed trees: random, DDTree-built, deep chain, star) with
    # about the fewest samples that still certify "exact" at the policy's TV 0.05; generation
    # requests at the check's default, about the fewest generations that do.
    "quick": dict(tree=dict(cases=4, samples=40_000), model=dict(cases=4, samples=40_000), generation=dict(samples=40_000)),
    # The checks' defaults: all 8 recipes, `tevsuite conformance emit`'s budget.
    "default": dict(tree=dict(cases=8, samples=100_000), model=dict(cases=8, samples=40_000), generation=dict(samples=40_000)),
    # Every recipe twice (other draws of each), with 4 and 5 times the samples; 4 times the generations.
    "thorough": dict(tree=dict(cases=16, samples=400_000), model=dict(cases=16, samples=100_000), generation=dict(samples=160_000)),
}


def _name(verifier):
    return f"{getattr(verifier, '__module__', None) or '?'}.{getattr(verifier, '__qualname__', None) or repr(verifier)}"


def reproduction(check, verify=None, **options):
    """The call that runs a check again: ``tevsuite.check_tree(verify_batch=mod.walk, cases=4,
    samples=40000, seed=DEFAULT_SEED)``, with every option given and the seed, given or the default.
    ``verify`` is the check's per-call callable (``verify``, ``loop``); its batched one
    (``verify_batch``, ``loop_batch``) comes among the options."""
    per_call = next(iter(inspect.signature(check).parameters))
    batched = f"{per_call}_batch"
    verifier = {per_call: verify} if verify is not None else {batched: options.pop(batched, None)}
    options.setdefault("seed", check.__kwdefaults__["seed"])
    arguments = [f"{name}={_name(value)}" for name, value in verifier.items()] + [f"{name}={value!r}" for name, value in options.items()]
    return f"tevsuite.{check.__name__}({', '.join(arguments)})"


def properties(report):
    """What a test records of a check: its verdict, the smallest Holm-adjusted exactness p over its
    cases, and its stated TV (the largest detectable TV of its cases: every law at least that far
    fails with 99 % power on every case; None where a case states none)."""
    tvs = [c.detectable_tv for c in report.cases]
    return dict(tevsuite_verdict=report.verdict_text, tevsuite_smallest_p=min((c.p_holm for c in report.cases), default=None),
                tevsuite_stated_tv=None if None in tvs or not tvs else max(tvs))


def _check(check, kind, requirement, accepted, verify, record_property, budget, options):
    if budget is not None:
        options = {**BUDGETS[budget][kind], **options}
    report = check(verify, **options)
    call = reproduction(check, verify, **options)
    if record_property is not None:
        for name, value in {**properties(report), "tevsuite_call": call}.items():
            record_property(name, value)
    if report.verdict not in accepted:
        hint = "\n(inconclusive: raise samples)" if report.verdict == Verdict.INCONCLUSIVE else ""
        subject = "the loop" if kind == "generation" else "the verifier"
        raise AssertionError(f"{subject} is required to be {requirement}\n{report.describe().rstrip()}{hint}\nreproduce: {call}")
    return report


def assert_exact(verify=None, *, record_property=None, budget=None, **options):
    """Exact (saturated or not) on the fixed-tree cases; returns the Report."""
    return _check(check_tree, "tree", "exact", _EXACT, verify, record_property, budget, options)


def assert_exact_and_saturated(verify=None, *, record_property=None, budget=None, **options):
    """Exact and saturated on the fixed-tree cases; returns the Report."""
    return _check(check_tree, "tree", "exact and saturated", {Verdict.EXACT_SATURATED}, verify, record_property, budget, options)


def assert_model_exact(verify=None, *, record_property=None, budget=None, **options):
    """Exact (marginally, over the drafts) on the model cases; returns the Report."""
    return _check(check_model, "model", "exact (marginally)", {Verdict.EXACT_SATURATED}, verify, record_property, budget, options)


def assert_generation_exact(loop=None, *, record_property=None, budget=None, **options):
    """A generation loop (``loop``, or ``loop_batch=``) exact on every generation request: its
    generations follow plain generation's law; returns the Report."""
    return _check(check_generation, "generation", "exact", {Verdict.EXACT_SATURATED}, loop, record_property, budget, options)
