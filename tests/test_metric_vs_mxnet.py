"""mx.metric against MXNet 1.9.1's metrics on the same random batches.

Every case runs in ONE subprocess of the reference interpreter
(metric_mxnet_runner.py); the test is skipped when MXNet is missing.  After each
step (update, or reset_local) both ``get()`` and ``get_global()`` must agree.
"""
import json
import os
import subprocess

import numpy as np
from metric_mxnet_runner import run_case

import minimx as mx

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metric_mxnet_runner.py")
BATCH, CLASSES = 6, 4


def softmax(scores):
    exp = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)


def inputs(kind, rng):
    """One (label, pred) pair of numpy arrays of the given kind."""
    classes = rng.integers(0, CLASSES, size=BATCH).astype(np.float32)
    if kind == "scores":
        return classes, rng.random((BATCH, CLASSES)).astype(np.float32)
    if kind == "probabilities":
        return classes, softmax(rng.normal(size=(BATCH, CLASSES)))
    if kind == "indices":
        return classes, rng.integers(0, CLASSES, size=BATCH).astype(np.float32)
    if kind == "binary":
        return (rng.integers(0, 2, size=BATCH).astype(np.float32),
                rng.random((BATCH, 2)).astype(np.float32))
    if kind == "values":
        return (rng.normal(size=BATCH).astype(np.float32),
                rng.normal(size=BATCH).astype(np.float32))
    if kind == "columns":
        return (rng.normal(size=(BATCH, 2)).astype(np.float32),
                rng.normal(size=(BATCH, 2)).astype(np.float32))
    raise ValueError(kind)


# (metric name, kwargs, input kind, compare get_global too)
CASES = [
    ("acc", {}, "scores", True),
    ("acc", {}, "indices", True),
    ("top_k_accuracy", {"top_k": 2}, "scores", True),
    ("top_k_acc", {"top_k": 3}, "scores", True),
    ("f1", {}, "binary", True),
    ("f1", {"average": "micro"}, "binary", True),
    ("mcc", {}, "binary", True),
    ("mcc", {"average": "micro"}, "binary", True),
    ("pcc", {}, "scores", True),
    ("pcc", {}, "indices", True),
    ("mae", {}, "values", True),
    ("mse", {}, "columns", True),
    ("rmse", {}, "values", True),
    ("ce", {}, "probabilities", True),
    ("nll_loss", {}, "probabilities", True),
    ("perplexity", {"ignore_label": None}, "probabilities", True),
    ("perplexity", {"ignore_label": 1}, "probabilities", True),
    ("pearsonr", {}, "values", True),
    ("pearsonr", {"average": "micro"}, "values", False),   # MXNet's micro get_global is 0
    ("loss", {}, "values", True),
    ("composite", {"metrics": ["acc", "ce"]}, "probabilities", True),
]


def steps_for(index, kind, rng, arrays):
    """Two updates of two pairs, a reset_local, then one more update."""
    steps = []
    for step in range(3):
        keys = ([], [])
        for pair in range(2 if step < 2 else 1):
            label, pred = inputs(kind, rng)
            name = f"c{index}s{step}p{pair}"
            arrays[name + "l"], arrays[name + "p"] = label, pred
            keys[0].append(name + "l")
            keys[1].append(name + "p")
        steps.append(["update", *keys])
        if step == 1:
            steps.append(["reset_local"])
    return steps


def flatten(value):
    return value if isinstance(value, list) else [value]


def test_metrics_match_mxnet(mxnet_python, tmp_path):
    rng = np.random.default_rng(2024)
    arrays, cases = {}, []
    for index, (name, kwargs, kind, _) in enumerate(CASES):
        cases.append({"metric": name, "kwargs": kwargs,
                      "steps": steps_for(index, kind, rng, arrays)})
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    np.savez(tmp_path / "arrays.npz", **arrays)
    finished = subprocess.run(
        [mxnet_python, RUNNER, str(tmp_path / "cases.json"), str(tmp_path / "arrays.npz"),
         str(tmp_path / "out.json")], capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr[-3000:]
    reference = json.loads((tmp_path / "out.json").read_text())
    for case, (name, kwargs, kind, check_global), expected in zip(cases, CASES, reference):
        got = run_case(mx, case, arrays)
        assert got["name"] == expected["name"] or name == "composite", (name, kwargs)
        for step, (mine, theirs) in enumerate(zip(got["values"], expected["values"])):
            where = f"{name} {kwargs} on {kind} inputs, step {step}"
            np.testing.assert_allclose(flatten(mine[0]), flatten(theirs[0]), rtol=1e-5,
                                       atol=1e-6, err_msg=where + ": get()")
            if check_global:
                np.testing.assert_allclose(flatten(mine[1]), flatten(theirs[1]), rtol=1e-5,
                                           atol=1e-6, err_msg=where + ": get_global()")
