"""Module.fit(kvstore='dist_sync') on two MPI workers gives the parameters one process gets
on all the data (skipped without mpi4py and mpirun)."""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from minimx.tools import launch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORKER = os.path.join(HERE, "dist_module_worker.py")

pytestmark = [pytest.mark.programs,      # the workers are whole programs, in subprocesses
              pytest.mark.skipif(
                  importlib.util.find_spec("mpi4py") is None or launch.find_mpirun() is None,
                  reason="needs mpi4py and mpirun (pip install -e '.[dev]')")]


def run(kvtype, out_dir, workers=None):
    out_dir.mkdir()
    command = [sys.executable, WORKER, kvtype, str(out_dir)]
    if workers:
        command = [sys.executable, "-m", "minimx.tools.launch", "-n", str(workers), *command]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env,
                            cwd=ROOT, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stdout + result.stderr
    results = []
    for rank in range(workers or 1):
        with open(out_dir / f"rank{rank}.json") as stream:
            results.append(json.load(stream))
    return results


def test_two_workers_fit_like_one_process(tmp_path):
    single = run("local", tmp_path / "one")[0]["params"]
    pair = run("dist_sync", tmp_path / "two", workers=2)
    assert [(r["rank"], r["num_workers"]) for r in pair] == [(0, 2), (1, 2)]
    for name, value in single.items():
        assert pair[0]["params"][name] == pair[1]["params"][name]
        np.testing.assert_allclose(pair[0]["params"][name], value, rtol=1e-4, atol=1e-5)
