"""Fixtures shared by every test: one seed per test, the MXNet reference, both engines.

Every test runs under ``test_utils.random_seed``: numpy, Python's ``random`` and
``mx.random`` are seeded from the test's id (or ``MINIMX_TEST_SEED``; ``random``
for a fresh seed each run), and a failing test's report names its seed.
``MINIMX_TEST_CTX=gpu`` makes ``test_utils.default_context()`` gpu(0), and the current
context of every test (arrays made without ``ctx=`` live there), as MXNet's GPU suite runs
its unit tests; with ``MINIMX_TEST_STAND_IN_GPUS=N`` the strict stand-in (``backend_standin``)
is that GPU when the machine has none.
"""
import os
import shutil

import pytest

from minimx import backend, test_utils
from minimx.context import current_context
from minimx import engine as _engine

ENGINE_TYPES = ("NaiveEngine", "ThreadedEngine")


def pytest_configure(config):
    """``MINIMX_TEST_STAND_IN_GPUS=N``: the strict stand-in for CuPy stands in for N GPUs
    (with ``MINIMX_TEST_CTX=gpu`` the tests then exercise the gpu code path)."""
    count = os.environ.get("MINIMX_TEST_STAND_IN_GPUS")
    if count:
        backend.use_stand_in_gpu(int(count))
    if os.environ.get("MINIMX_TEST_CTX", "").strip():
        # the main thread's context from the start, so that module-scoped fixtures,
        # made before any test's own fixture runs, make their arrays there too
        test_utils.set_default_context(test_utils.default_context())


@pytest.fixture(autouse=True)
def test_context():
    """The context a test's arrays live on by default: ``MINIMX_TEST_CTX``'s, else cpu(0)
    (entered again for every test, whatever the test before left)."""
    if not os.environ.get("MINIMX_TEST_CTX", "").strip():
        yield current_context()
        return
    with test_utils.default_context() as ctx:
        yield ctx


@pytest.fixture(autouse=True)
def minimx_seed(request):
    """The seed of this test (numpy, random and mx.random are seeded with it)."""
    value = test_utils.choose_seed(request.node.nodeid)
    request.node.minimx_seed = value
    with test_utils.random_seed(value):
        yield value
    _engine.forget_failures()    # an unread failure must not surface in the next test


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    value = getattr(item, "minimx_seed", None)
    if report.failed and value is not None:
        report.sections.append(
            ("minimx seed", f"seed {value}; reproduce with: MINIMX_TEST_SEED={value} "
                            f"python -m pytest '{item.nodeid}'"))


@pytest.fixture(params=ENGINE_TYPES)
def engine(request):
    """Run the test once on each engine: ``def test_x(engine): ...`` (yields its name)."""
    with _engine.engine_type(request.param):
        yield request.param


@pytest.fixture(scope="session")
def mxnet_python():
    """Path of the Python interpreter with MXNet 1.9.1 (``MINIMX_MXNET_PYTHON``)."""
    path = os.environ.get("MINIMX_MXNET_PYTHON", "/opt/mxref/bin/python")
    resolved = shutil.which(path)
    if resolved is None:
        pytest.skip(f"the MXNet reference interpreter {path} is missing "
                    f"(set MINIMX_MXNET_PYTHON)")
    return resolved


def pytest_terminal_summary(terminalreporter):
    """List the operators whose forward has no numpy reference (their tests xfail)."""
    missing = sorted({report.nodeid.split("[")[-1].split("-case")[0]
                      for report in terminalreporter.stats.get("xfailed", [])
                      if "no numpy reference" in str(getattr(report, "wasxfail", ""))})
    if missing:
        terminalreporter.write_line(
            f"operators without a numpy reference in TestHints ({len(missing)}): "
            f"{', '.join(missing)}")
