"""Activation(relu) on large numpy arrays runs as rows against one row of zeros
(``activations._relu``): the values must be MXNet's ``x > 0 ? x : 0`` (NaN and -0 give
+0), bit for bit, whatever the shape, dtype or layout."""
import numpy as np
import pytest

import minimx as mx
from minimx.op.activations import _ROWS_FROM, _relu
from same_program import on_minimx, on_mxnet


def _mxnet_relu(x):
    """MXNet's Activation(relu) kernel, element by element: ``x > 0 ? x : 0``."""
    return np.where(x > 0, x, np.zeros((), x.dtype))


def _with_specials(shape, dtype):
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[:6] = [-0.0, 0.0, np.nan, np.inf, -np.inf, -np.nan]
    flat[-3:] = [np.nan, -0.0, -1.0]
    return x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(16, 8, 28, 28), (64, 256), (9, 4099), (32769,),
                                   (2, 3, 5, 7, 11, 13), (_ROWS_FROM - 1,)])
def test_relu_rows_match_fmax_bitwise(shape, dtype):
    x = _with_specials(shape, dtype)
    got = _relu(np, x)
    want = _mxnet_relu(x)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()
    assert not np.shares_memory(got, x)


def test_relu_rows_non_contiguous_input():
    x = _with_specials((256, 128), np.float32).T          # a transposed view
    assert _relu(np, x).tobytes() == _mxnet_relu(x).tobytes()


def test_activation_relu_forward_and_backward_through_nd():
    x = _with_specials((16, 8, 28, 28), np.float32)
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.Activation(data, act_type="relu")
    out.backward(mx.nd.ones_like(out))
    assert out.asnumpy().tobytes() == _mxnet_relu(x).tobytes()
    assert np.array_equal(data.grad.asnumpy(), (x > 0).astype(np.float32))


SIGNED_ZEROS = """
import json
import numpy as np
x = np.full(40, -0.0)
print(json.dumps({d: int(np.signbit(mx.nd.Activation(mx.nd.array(x, dtype=d),
                                                      act_type="relu").asnumpy()).sum())
                  for d in ("float16", "float32", "float64")}))
"""


def test_relu_of_negative_zero_is_positive_zero_as_mxnet(mxnet_python):
    """MXNet 1.9.1 gives +0 for relu(-0) in every float dtype (numpy's fmax keeps -0 in
    float16, and in some vector positions)."""
    ours, theirs = on_minimx(SIGNED_ZEROS), on_mxnet(mxnet_python, SIGNED_ZEROS)
    assert ours == theirs == {"float16": 0, "float32": 0, "float64": 0}
