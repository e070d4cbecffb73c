"""Every registry test case against MXNet 1.9.1: outputs, dtypes and gradients.

All cases run in ONE subprocess of the reference interpreter
(``mxnet_reference_runner.py``): the inputs and head gradients go to an ``.npz``,
the case list (operator, parameters) to JSON, and MXNet's results come back as
``.npz``.  Each case is then one test comparing minimx with those results.
Operators MXNet lacks are skipped with the reason.  Skipped when the
reference interpreter (``MINIMX_MXNET_PYTHON``) is missing.
"""
import json
import pathlib
import subprocess

import numpy as np
import pytest
from registry_cases import all_cases, forward_backward, head_gradient_shapes, make_inputs

from minimx import test_utils

pytestmark = pytest.mark.mxnet

CASES = all_cases()
RUNNER = pathlib.Path(__file__).with_name("mxnet_reference_runner.py")


def encode(value):
    """A parameter value as JSON; tuples are tagged so MXNet receives tuples."""
    if isinstance(value, tuple):
        return {"__tuple__": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.dtype) or isinstance(value, type):
        return np.dtype(value).name
    return value


def _describe(case, position, inputs, arrays):
    """The JSON record of one case, storing its arrays into ``arrays``."""
    key = f"c{position}"
    record = {"key": key, "id": case.id, "name": case.op.name, "inputs": [], "head_grads": [],
              "grad_inputs": case.grad_inputs() if case.checks_gradient() else [],
              "params": {name: encode(value) for name, value in case.call_params().items()}}
    for index, value in enumerate(inputs["inputs"]):
        arrays[f"{key}_in{index}"] = value
        record["inputs"].append(f"{key}_in{index}")
    for index, value in enumerate(inputs["head_grads"]):
        arrays[f"{key}_head{index}"] = value
        record["head_grads"].append(f"{key}_head{index}")
    return record


def _run_reference(mxnet_python, folder, records, attempts=10):
    """Run the MXNet side; a case on which MXNet itself crashes is skipped and the run
    repeated, so one native crash does not hide every other result."""
    command = [mxnet_python, str(RUNNER), str(folder / "cases.json"), str(folder / "inputs.npz"),
               str(folder / "results.npz"), str(folder / "report.json")]
    for _ in range(attempts):
        (folder / "cases.json").write_text(json.dumps(records))
        finished = subprocess.run(command, capture_output=True, text=True, timeout=600)
        lines = finished.stdout.strip().splitlines()
        if lines and lines[-1] == "done":
            return
        crashed = lines[-1].split() if lines and lines[-1].startswith("case ") else None
        if crashed is None:
            break
        for record in records:
            if record["key"] == crashed[1]:
                record["skip"] = (f"MXNet 1.9.1 crashes on {record['id']} "
                                  f"({finished.stderr.strip()[-200:]})")
    pytest.fail(f"the MXNet reference runner failed:\n{finished.stderr[-3000:]}")


@pytest.fixture(scope="module")
def reference(mxnet_python, tmp_path_factory):
    """Run all cases on MXNet once; returns {case id: (inputs, report, arrays)}."""
    folder = tmp_path_factory.mktemp("mxnet_reference")
    seed = test_utils.choose_seed(__name__)
    records, arrays, generated = [], {}, {}
    with test_utils.random_seed(seed):
        for position, case in enumerate(CASES):
            try:
                shapes = head_gradient_shapes(case)
            except Exception:  # noqa: BLE001 - the case's own test reports the failure
                continue
            inputs = {"inputs": make_inputs(case),
                      "head_grads": [np.random.normal(size=shape) for shape in shapes]}
            generated[case.id] = inputs
            records.append(_describe(case, position, inputs, arrays))
    np.savez(folder / "inputs.npz", **arrays)
    _run_reference(mxnet_python, folder, records)
    report = json.loads((folder / "report.json").read_text())
    results = dict(np.load(folder / "results.npz", allow_pickle=False))
    keyed = {record["id"]: record["key"] for record in records}
    return {"seed": seed, "inputs": generated, "report": report, "results": results,
            "keys": keyed}


# MXNet 1.9.1 gradients known to be wrong: minimx's are checked numerically in
# test_registry.py and against the definition in the operator's own test file instead.
MXNET_GRADIENT_WRONG = {
    name: "MXNet 1.9.1 sends the gradient back unflipped (the mirror of the output's "
          "gradient is right: tests/ndarray/test_image_ops_mxnet.py)"
    for name in ("_image_flip_left_right", "_image_flip_top_bottom")}


def mxnet_cpu_refuses(case):
    """Why MXNet 1.9.1's CPU wheel refuses a case in training mode (this test's mode), or
    None: the case is then compared where MXNet can run it."""
    if case.op.name == "RNN" and case.call_params().get("projection_size"):
        return ("MXNet 1.9.1's CPU runs LSTM with a projection only outside training ('No "
                "training support for LSTM with projection on CPU'); its forward is compared "
                "in tests/op/test_rnn_ops.py, its gradients against MXNet's LSTMPCell in "
                "tests/gluon/test_lstm_projection.py")
    return None


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_matches_mxnet(case, reference):
    if case.id not in reference["keys"]:
        pytest.fail(f"{case.id}: the case cannot be built (see test_registry.py)")
    key = reference["keys"][case.id]
    entry = reference["report"][key]
    if entry["status"] == "missing":
        pytest.skip(entry["message"])
    context = f"{case.id} (input seed {reference['seed']})"
    if entry["status"] != "ok" and mxnet_cpu_refuses(case):
        pytest.skip(mxnet_cpu_refuses(case))
    assert entry["status"] == "ok", f"{context}: MXNet rejects this case: {entry['message']}"
    inputs = reference["inputs"][case.id]
    outputs, grads = forward_backward(case, inputs["inputs"], inputs["head_grads"],
                                      test_utils.default_context())
    results = reference["results"]
    assert len(outputs) == entry["outputs"], (
        f"{context}: minimx returns {len(outputs)} outputs, MXNet {entry['outputs']}")
    hints = case.hints
    for index, actual in enumerate(outputs):
        expected = results[f"{key}_out{index}"]
        assert actual.shape == expected.shape, (
            f"{context}: output {index} shape {actual.shape}, MXNet {expected.shape}")
        assert actual.dtype == expected.dtype, (
            f"{context}: output {index} dtype {actual.dtype}, MXNet {expected.dtype}")
        if not (hints.random or hints.undefined_values):
            test_utils.assert_almost_equal(actual, expected, rtol=hints.rtol, atol=hints.atol,
                                           names=(f"minimx output {index}", "MXNet"))
    if entry.get("grad_error"):
        pytest.skip(f"forward matches; MXNet 1.9.1 cannot differentiate this case: "
                    f"{entry['grad_error']}")
    if case.op.name in MXNET_GRADIENT_WRONG:
        pytest.skip(f"forward matches; {MXNET_GRADIENT_WRONG[case.op.name]}")
    assert len(grads) == entry["grads"]
    for index, actual in enumerate(grads):
        test_utils.assert_almost_equal(
            actual, results[f"{key}_grad{index}"], rtol=hints.grad_rtol, atol=hints.grad_atol,
            names=(f"minimx gradient of input {case.grad_inputs()[index]}", "MXNet"))
