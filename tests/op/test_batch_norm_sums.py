"""BatchNorm's float32 kernel agrees with the same operator run in float64 within float32
rounding: its per-channel sums (``_channel_dot``: BLAS rows or ``einsum``) and its
normalisation ``(x - mean) * scale + beta`` are reordered sums and products of the float64
ones, no more.  Shapes cover both ways of summing (rows of 784 and of 25 values) and a
channels-last axis."""
import numpy as np
import pytest

from minimx.op import get_op
from minimx.op.normalization import _channel_dot

SHAPES = [((16, 8, 28, 28), 1), ((4, 3, 5, 5), 1), ((6, 5, 4), -1), ((8, 4, 300), 1)]


def _run(op, arrays, out_grad):
    data, gamma, beta, moving_mean, moving_var = arrays
    out, mean, invstd = op.forward(np, data, gamma, beta, moving_mean, moving_var,
                                   is_train=True)
    grads = op.backward(np, out_grad, data=data, gamma=gamma, mean=mean, var=invstd,
                        moving_mean=moving_mean.copy(), moving_var=moving_var.copy(),
                        is_train=True)
    return [out, mean, invstd] + [g for g in grads if g is not None]


@pytest.mark.parametrize("shape,axis", SHAPES)
@pytest.mark.parametrize("fix_gamma", [True, False])
def test_float32_within_rounding_of_float64(shape, axis, fix_gamma):
    rng = np.random.RandomState(3)
    channels = shape[axis]
    data = (rng.randn(*shape) * 2 + 3).astype("float32")     # a mean far from 0
    out_grad = rng.randn(*shape).astype("float32")
    vectors = [rng.rand(channels).astype("float32") + 0.5 for _ in range(4)]
    op = get_op("BatchNorm")(fix_gamma=fix_gamma, axis=axis)
    single = _run(op, [data] + vectors, out_grad)
    double = _run(op, [data.astype("float64")] + [v.astype("float64") for v in vectors],
                  out_grad.astype("float64"))
    for got, want in zip(single, double):
        assert got.dtype == np.float32
        scale = np.abs(want).max() + 1
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-5 * scale)


@pytest.mark.parametrize("shape", [(16, 8, 784), (5, 3, 20)])
def test_channel_dot_is_the_per_channel_sum(shape):
    rng = np.random.RandomState(0)
    a, b = rng.rand(*shape).astype("float32"), rng.rand(*shape).astype("float32")
    want = np.einsum("pcq,pcq->c", a.astype("float64"), b.astype("float64"))
    got = _channel_dot(np, a, b)
    assert got.dtype == np.float32 and got.shape == (shape[1],)
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_float16_data_follows_mxnets_float16_steps():
    """float16 data with float32 parameters, as MXNet 1.9.1's CPU kernel (the values are
    compared with MXNet in test_batch_norm_float16_vs_mxnet.py): float32 statistics and
    mean/invstd outputs, ``eps`` added in float16, and ``((x - mean) * invstd) * gamma +
    beta`` rounded to float16 after each step.  (This test asserted float16 mean/invstd
    and one rounding at the end before; MXNet does neither.)"""
    rng = np.random.RandomState(5)
    data = (rng.randn(4, 3, 5, 5) * 3 + 2).astype("float16")
    gamma, beta = rng.rand(3).astype("float32") + 0.5, rng.randn(3).astype("float32")
    op = get_op("BatchNorm")(fix_gamma=False)
    out, mean, invstd = op.forward(np, data, gamma, beta, np.zeros(3, "float32"),
                                   np.ones(3, "float32"), is_train=True)
    assert (out.dtype, mean.dtype, invstd.dtype) == (np.float16, np.float32, np.float32)
    x = data.astype("float64").transpose(1, 0, 2, 3).reshape(3, -1)
    np.testing.assert_allclose(mean, x.mean(axis=1), rtol=1e-6)
    var_eps = (x.var(axis=1).astype("float16") + np.float16(op.eps)).astype("float32")
    np.testing.assert_allclose(invstd, 1 / np.sqrt(var_eps), rtol=1e-6)
    want = data.reshape(4, 3, 25)
    for operation, vector in ((np.subtract, mean), (np.multiply, invstd),
                              (np.multiply, gamma), (np.add, beta)):
        want = operation(want.astype("float32"), vector.reshape(1, 3, 1)).astype("float16")
    np.testing.assert_array_equal(out, want.reshape(data.shape))
