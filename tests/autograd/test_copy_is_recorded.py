"""A copy made while recording is part of the graph, as in MXNet 1.9.1.

``x.copy()``, ``np.copy(x)`` and np ``flatten`` (a copy since stop 41) made their result
outside the recorded graph, so ``backward`` through them raised "not in a recorded graph"
(d2l-en's matrix-factorization page, whose model ends in ``outputs.flatten()``, stopped at
its first ``l.backward()``); MXNet records its copy and the gradient flows through it.
"""
import json

import numpy as np
import pytest

import minimx as mx
from same_program import on_minimx_np_mode, on_mxnet

PROGRAM = """
import json
out = {}
x = mx.nd.array([1.0, 2.0, 3.0])
x.attach_grad()
with mx.autograd.record():
    y = (x.copy() * 2).sum()
y.backward()
out["nd copy"] = x.grad.asnumpy().tolist()
mx.npx.set_np()
for name, f in [("copy", lambda v: v.copy()), ("np.copy", lambda v: mx.np.copy(v)),
                ("flatten", lambda v: v.flatten()), ("copy twice", lambda v: v.copy().copy())]:
    x = mx.np.array([[1.0, 2.0], [3.0, 4.0]])
    x.attach_grad()
    with mx.autograd.record():
        c = f(x * x)
        y = (c * mx.np.array(3.0)).sum()
    y.backward()
    out[name] = [x.grad.asnumpy().tolist(), type(c).__name__]
print(json.dumps(out))
"""


def test_gradient_flows_through_copies():
    got = on_minimx_np_mode(PROGRAM)
    assert got["nd copy"] == [2.0, 2.0, 2.0]
    for name in ("copy", "np.copy", "flatten", "copy twice"):
        assert got[name] == [[[6.0, 12.0], [18.0, 24.0]], "ndarray"], name


def test_a_copy_while_recording_is_still_a_copy():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        c = x.copy()
    c[:] = 5            # outside recording: writes the copy only
    assert x.asnumpy().tolist() == [1.0, 2.0] and c.asnumpy().tolist() == [5.0, 5.0]
    np.testing.assert_array_equal(mx.nd.array([4.0]).copy().asnumpy(), [4.0])


@pytest.mark.mxnet
def test_gradient_through_copies_matches_mxnet(mxnet_python):
    assert on_minimx_np_mode(PROGRAM) == on_mxnet(mxnet_python, PROGRAM)
