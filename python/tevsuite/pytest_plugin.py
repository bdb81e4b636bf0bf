"""tevsuite's pytest plugin, registered by the package's ``pytest11`` entry point.

    pytest --tevsuite-budget quick --tevsuite-seed 7

    def test_walk(tevsuite_check):                  # the helpers with the budget and the seed
        tevsuite_check.assert_exact_and_saturated(verify_batch=walk)

    def test_walk_report(tevsuite_options):         # or the options for a check of one's own
        report = tevsuite.check_tree(verify_batch=walk, **tevsuite_options.tree)

    def test_generation(tevsuite_check):            # an engine's generation loop
        tevsuite_check.assert_generation_exact(loop_batch=generate)

The budgets (``tevsuite.testing.BUDGETS``) and the TV each guarantees: docs/python.md. Options a
test gives itself win over the budget's. ``tevsuite_check`` records every check's verdict,
smallest Holm p, stated TV and reproducing call as the test's properties (``--junitxml``).
"""
import pytest

from . import DEFAULT_SEED, __version__
from . import testing


def pytest_addoption(parser):
    group = parser.getgroup("tevsuite", "tevsuite's conformance checks")
    group.addoption("--tevsuite-budget", choices=list(testing.BUDGETS), default="default",
                    help="cases and samples of every check run through the tevsuite fixtures (default: default); docs/python.md "
                         "states the TV each guarantees")
    group.addoption("--tevsuite-seed", type=int, default=DEFAULT_SEED, help=f"the checks' seed, 0 to 2**32 - 1 (default: {DEFAULT_SEED})")


def pytest_report_header(config):
    return f"tevsuite {__version__}: budget {config.getoption('tevsuite_budget')}, seed {config.getoption('tevsuite_seed')}"


class Options:
    """The command line's budget and seed as keyword arguments: ``tree`` for ``check_tree``,
    ``model`` for ``check_model`` (cases, samples and seed), ``generation`` for
    ``check_generation`` (samples and seed)."""

    def __init__(self, budget, seed):
        self.budget, self.seed = budget, seed
        self.tree = {**testing.BUDGETS[budget]["tree"], "seed": seed}
        self.model = {**testing.BUDGETS[budget]["model"], "seed": seed}
        self.generation = {**testing.BUDGETS[budget]["generation"], "seed": seed}

    def __repr__(self):
        return f"<tevsuite options: budget {self.budget}, seed {self.seed}>"


class Checks:
    """tevsuite.testing's helpers with the budget's options and the results recorded."""

    def __init__(self, options, record_property):
        self.options, self._record = options, record_property

    def assert_exact(self, verify=None, **options):
        return testing.assert_exact(verify, record_property=self._record, **{**self.options.tree, **options})

    def assert_exact_and_saturated(self, verify=None, **options):
        return testing.assert_exact_and_saturated(verify, record_property=self._record, **{**self.options.tree, **options})

    def assert_model_exact(self, verify=None, **options):
        return testing.assert_model_exact(verify, record_property=self._record, **{**self.options.model, **options})

    def assert_generation_exact(self, loop=None, **options):
        return testing.assert_generation_exact(loop, record_property=self._record, **{**self.options.generation, **options})


@pytest.fixture
def tevsuite_options(request):
    """The budget's and seed's keyword arguments (``.tree``, ``.model``, ``.generation``)."""
    return Options(request.config.getoption("tevsuite_budget"), request.config.getoption("tevsuite_seed"))


@pytest.fixture
def tevsuite_check(tevsuite_options, record_property):
    """assert_exact, assert_exact_and_saturated, assert_model_exact and assert_generation_exact with
    the budget and seed, recording each check as the test's properties."""
    return Checks(tevsuite_options, record_property)
