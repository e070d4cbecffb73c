"""What the np graph tests share: the ``np_mode`` fixture and one way to ask MXNet 1.9.1 a
program's JSON answer."""
import json
import subprocess

import pytest

from minimx import npx


@pytest.fixture
def np_mode():
    """NumPy semantics (``npx.set_np()``) for the test, switched off after it."""
    npx.set_np()
    yield
    npx.reset_np()


def ask_mxnet_json(mxnet_python, script, payload=None):
    """Run ``script`` on MXNet's interpreter with ``payload`` as JSON on stdin; the JSON of
    the last line it prints."""
    done = subprocess.run([mxnet_python, "-c", script],
                          input=None if payload is None else json.dumps(payload),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def defined(source):
    """The names ``source`` (block classes) defines, with minimx's ``gluon`` and ``np``."""
    from minimx import gluon, np
    names = {"gluon": gluon, "np": np}
    exec(source, names)   # noqa: S102 (the test's own block definitions)
    return names
