"""The engine an MXNet program asks for through the environment: ``MXNET_ENGINE_TYPE``
(MXNet's variable, what its debugging advice sets) and minimx's own ``MINIMX_ENGINE_TYPE``,
which wins when both are set.  Each case starts a fresh interpreter: the engine is chosen
at import."""
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOW = "import minimx as mx; print(type(mx.engine.get_engine()).__name__)"


def _run(**variables):
    env = {key: value for key, value in os.environ.items()
           if key not in ("MINIMX_ENGINE_TYPE", "MXNET_ENGINE_TYPE")}
    env.update(variables, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("variables, engine", [
    ({}, "ThreadedEngine"),
    ({"MXNET_ENGINE_TYPE": "NaiveEngine"}, "NaiveEngine"),
    ({"MXNET_ENGINE_TYPE": "ThreadedEnginePerDevice"}, "ThreadedEngine"),
    ({"MXNET_ENGINE_TYPE": "NaiveEngine", "MINIMX_ENGINE_TYPE": "ThreadedEngine"},
     "ThreadedEngine"),
])
def test_the_variable_chooses_the_engine(variables, engine):
    finished = _run(**variables)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == engine


def test_an_unknown_engine_is_an_mxnet_error_naming_it():
    finished = _run(MXNET_ENGINE_TYPE="Bogus")
    assert finished.returncode != 0
    assert "MXNetError: Cannot find Engine Bogus (MXNET_ENGINE_TYPE)" in finished.stderr
