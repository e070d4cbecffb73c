"""Helpers for the nn/conv/output/rnn operator tests.

``run_mxnet`` runs one operator in MXNet 1.9.1 (a separate Python, given by
``MINIMX_MXNET_PYTHON``, default ``/opt/mxref/bin/python``) with autograd and
returns its outputs and input gradients; arrays travel as ``.npy`` files.
``run_minimx`` does the same in minimx, ``numeric_grads`` by central
differences in float64.
"""
import json
import os
import subprocess

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd

MXNET_PYTHON = os.environ.get("MINIMX_MXNET_PYTHON", "/opt/mxref/bin/python")
requires_mxnet = pytest.mark.skipif(not os.path.exists(MXNET_PYTHON),
                                    reason=f"MXNet reference not found at {MXNET_PYTHON}")

_RUNNER = r"""
import json, sys
import numpy as np
import mxnet as mx
from mxnet import autograd, nd
folder = sys.argv[1]
spec = json.load(open(folder + "/spec.json"))
inputs = [nd.array(np.load(f"{folder}/in{i}.npy"), dtype=np.load(f"{folder}/in{i}.npy").dtype)
          for i in range(spec["count"])]
for i in spec["grad_inputs"]:
    inputs[i].attach_grad()
with autograd.record(train_mode=spec["train"]):
    out = getattr(nd, spec["op"])(*inputs, **spec["params"])
outs = list(out) if isinstance(out, (list, tuple)) else [out]
if spec["grad_inputs"]:
    heads = [nd.array(np.load(f"{folder}/og{i}.npy"), dtype=outs[i].dtype)
             for i in range(spec["head_count"])]
    autograd.backward(outs[:len(heads)], heads)
for i, o in enumerate(outs):
    np.save(f"{folder}/out{i}.npy", o.asnumpy())
for i in spec["grad_inputs"]:
    np.save(f"{folder}/grad{i}.npy", inputs[i].grad.asnumpy())
for i, x in enumerate(inputs):
    np.save(f"{folder}/after{i}.npy", x.asnumpy())
json.dump(len(outs), open(folder + "/done.json", "w"))
"""


def run_mxnet(tmp_path, op_name, inputs, params, out_grads=(), grad_inputs=(), train=True):
    """Outputs, gradients (dict index -> array) and inputs after the call, from MXNet."""
    for index, array in enumerate(inputs):
        np.save(tmp_path / f"in{index}.npy", array)
    for index, array in enumerate(out_grads):
        np.save(tmp_path / f"og{index}.npy", array)
    spec = {"op": op_name, "params": params, "count": len(inputs), "train": train,
            "grad_inputs": list(grad_inputs), "head_count": len(out_grads)}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    script = tmp_path / "runner.py"
    script.write_text(_RUNNER)
    done = subprocess.run([MXNET_PYTHON, str(script), str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    count = json.loads((tmp_path / "done.json").read_text())
    outputs = [np.load(tmp_path / f"out{i}.npy") for i in range(count)]
    grads = {i: np.load(tmp_path / f"grad{i}.npy") for i in grad_inputs}
    after = [np.load(tmp_path / f"after{i}.npy") for i in range(len(inputs))]
    return outputs, grads, after


def run_minimx(op_name, inputs, params, out_grads=(), grad_inputs=(), train=True):
    """The same as ``run_mxnet``, computed by minimx."""
    arrays = [nd.array(x, dtype=x.dtype) for x in inputs]
    for index in grad_inputs:
        arrays[index].attach_grad()
    with autograd.record(train_mode=train):
        out = getattr(nd, op_name)(*arrays, **params)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if grad_inputs:
        heads = [nd.array(g, dtype=g.dtype) for g in out_grads]
        autograd.backward(outs[:len(heads)], heads)
    grads = {i: arrays[i].grad.asnumpy() for i in grad_inputs}
    return [o.asnumpy() for o in outs], grads, [x.asnumpy() for x in arrays]


def numeric_grads(op_name, inputs, params, out_grad, grad_inputs, eps=1e-6, train=True):
    """Central-difference gradients of ``sum(out_grad * op(inputs)[0])`` in float64."""
    inputs = [np.array(x, dtype=np.float64, order="C") for x in inputs]   # reshape(-1) = view

    def loss():
        arrays = [nd.array(x, dtype="float64") for x in inputs]
        with autograd.train_mode() if train else autograd.predict_mode():
            out = getattr(nd, op_name)(*arrays, **params)
        out = out[0] if isinstance(out, (list, tuple)) else out
        return float((out.asnumpy() * out_grad).sum())

    grads = {}
    for index in grad_inputs:
        grad = np.zeros_like(inputs[index])
        flat, flat_grad = inputs[index].reshape(-1), grad.reshape(-1)
        for k in range(flat.size):
            saved = flat[k]
            flat[k] = saved + eps
            up = loss()
            flat[k] = saved - eps
            down = loss()
            flat[k] = saved
            flat_grad[k] = (up - down) / (2 * eps)
        grads[index] = grad
    return grads


def check_grads(op_name, inputs, params, grad_inputs, seed=0, train=True, rtol=1e-4, atol=1e-6,
                eps=1e-6):
    """minimx's analytic gradients against central differences (steps of ``eps``), in
    float64."""
    rng = np.random.default_rng(seed)
    inputs = [x.astype(np.float64) for x in inputs]
    outputs, _, _ = run_minimx(op_name, inputs, params, train=train)
    out_grad = rng.standard_normal(outputs[0].shape)
    _, grads, _ = run_minimx(op_name, inputs, params, [out_grad], grad_inputs, train=train)
    expected = numeric_grads(op_name, inputs, params, out_grad, grad_inputs, eps=eps,
                             train=train)
    for index in grad_inputs:
        np.testing.assert_allclose(grads[index], expected[index], rtol=rtol, atol=atol,
                                   err_msg=f"{op_name} gradient of input {index}")


def compare_with_mxnet(tmp_path, op_name, inputs, params, grad_inputs, seed=0, train=True,
                       rtol=1e-4, atol=1e-5, head_count=1):
    """Forward outputs, gradients and aux updates of minimx and MXNet agree (float32)."""
    rng = np.random.default_rng(seed)
    inputs = [x.astype(np.float32) for x in inputs]
    mine, _, _ = run_minimx(op_name, inputs, params, train=train)
    out_grads = [rng.standard_normal(o.shape).astype(np.float32) for o in mine[:head_count]]
    theirs = run_mxnet(tmp_path, op_name, inputs, params, out_grads, grad_inputs, train)
    ours = run_minimx(op_name, inputs, params, out_grads, grad_inputs, train)
    assert len(ours[0]) == len(theirs[0]), "number of outputs"
    for index, (a, b) in enumerate(zip(ours[0], theirs[0])):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"output {index}")
    for index in grad_inputs:
        np.testing.assert_allclose(ours[1][index], theirs[1][index], rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {index}")
    for index, (a, b) in enumerate(zip(ours[2], theirs[2])):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"input {index} after")
    return ours, theirs


def gradients(function, arrays, head=None):
    """Gradients of ``function`` w.r.t. each of ``arrays`` (as float64 NDArrays), for one head
    gradient (ones unless ``head`` is given); shared by the shape and indexing op tests."""
    inputs = [nd.array(a, dtype="float64") for a in arrays]
    for x in inputs:
        x.attach_grad()
    with autograd.record():
        out = function(*inputs)
    heads = out if isinstance(out, list) else [out]
    head = head if head is not None else [np.ones(o.shape) for o in heads]
    autograd.backward(heads, [nd.array(h, dtype="float64") for h in head])
    return [x.grad.asnumpy() for x in inputs]
