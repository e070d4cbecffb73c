"""mx.np / mx.npx against MXNet 1.9.1: values, shapes, dtypes (zero-dim results included).

Every case of ``cases.py`` runs on MXNet (one subprocess for all) and on minimx; the
result's shape, dtype and values must agree, or both must raise.  Where MXNet 1.9.1 lacks
the name, official NumPy gives the expected values.
"""
import json
import subprocess

import numpy as onp
import pytest

import minimx as mx
from minimx import np, npx

from np_cases import SETUP, all_cases

CASES = all_cases()

MXNET_SCRIPT = """
import json, sys
import mxnet as mx
from mxnet import np, npx
npx.set_np()
{setup}
cases = json.loads(sys.stdin.read())
def describe(value):
    if isinstance(value, np.ndarray):
        return {{"shape": list(value.shape), "dtype": str(value.dtype),
                 "value": value.asnumpy().tolist()}}
    return {{"scalar": float(value)}}
results = {{}}
for name, source in cases.items():
    try:
        results[name] = describe(eval(source))
    except Exception as error:
        results[name] = {{"error": type(error).__name__, "message": str(error)[:200]}}
print(json.dumps(results))
"""


def ask_mxnet(mxnet_python, setup, cases):
    """Every case (name -> source) evaluated on MXNet after ``setup``: name -> result."""
    done = subprocess.run([mxnet_python, "-c", MXNET_SCRIPT.format(setup=setup)],
                          input=json.dumps(cases), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def mxnet_results(mxnet_python):
    return ask_mxnet(mxnet_python, SETUP, CASES)


@pytest.fixture(scope="module")
def namespace():
    names = {"np": np, "npx": npx, "mx": mx}
    with mx.util.np_shape(True), mx.util.np_array(True):
        exec(SETUP, names)
    return names


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mxnet(name, mxnet_results, namespace):
    wanted = mxnet_results[name]
    if wanted.get("error") == "AttributeError":
        # MXNet 1.9.1 lacks this name (np.logical_and, np.deg2rad): official NumPy decides
        host = {"np": onp}
        exec(SETUP, host)
        expected = eval(CASES[name], host)
        got = eval(CASES[name], dict(namespace))
        assert got.shape == expected.shape
        onp.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5, atol=1e-6)
        return
    if "error" in wanted:
        with pytest.raises(Exception):
            eval(CASES[name], dict(namespace))
        return
    got = eval(CASES[name], dict(namespace))
    if "scalar" in wanted:
        assert float(got) == pytest.approx(wanted["scalar"], rel=1e-5)
        return
    assert isinstance(got, np.ndarray), f"{name}: {type(got)} is not an mx.np.ndarray"
    assert list(got.shape) == wanted["shape"], f"{name}: shape {got.shape}"
    assert str(got.dtype) == wanted["dtype"], f"{name}: dtype {got.dtype}"
    onp.testing.assert_allclose(onp.asarray(got.asnumpy(), dtype=onp.float64),
                                # reshaped: an empty result's list has lost its shape
                                onp.asarray(wanted["value"], dtype=onp.float64).reshape(
                                    wanted["shape"]), rtol=1e-5, atol=1e-6, err_msg=name)
