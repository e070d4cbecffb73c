"""The sigmoid kernels computed in place on one buffer give the very values of the plain
numpy expressions they replace, bit for bit: ``1 / (1 + exp(-x))`` forward (with
``divide(1, x)``, which numpy vectorises, where ``reciprocal`` is not) and
``out_grad * (y * (1 - y))`` backward."""
import numpy as np
import pytest

from minimx.op.common import sigmoid
from minimx.op.registry import get_op

EXTREMES = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38,
                     3.4028235e38, -3.4028235e38, 88.7, -88.7, 89.0, -89.0, 103.9, -104.0,
                     17.0, -17.0, 16.6, -16.6], dtype=np.float32)


def float32_sample(step=4099):
    """Every ``step``-th float32 bit pattern (a million values over the whole range: both
    signs, subnormals, infinities, nans) and the extremes."""
    bits = np.arange(0, 2 ** 32, step, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([bits.view(np.float32), EXTREMES])


def test_divide_one_rounds_as_reciprocal():
    x = float32_sample()
    with np.errstate(all="ignore"):
        expected = np.reciprocal(x)
        got = np.divide(1, x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.uint32)[~np.isnan(x)],
                                  expected.view(np.uint32)[~np.isnan(x)])
    assert np.isnan(got[np.isnan(x)]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_sigmoid_is_the_plain_expression_bit_for_bit(dtype):
    with np.errstate(all="ignore"):
        x = float32_sample().astype(dtype)
    with np.errstate(all="ignore"):
        expected = 1 / (1 + np.exp(-x))
    with np.errstate(invalid="ignore"):     # exp of a signalling nan
        got = sigmoid(np, x)
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, expected)


def test_sigmoid_of_a_0d_array():
    got = sigmoid(np, np.array(-2.0, dtype=np.float32))
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    assert got == np.float32(1) / (np.float32(1) + np.exp(np.float32(2)))


@pytest.mark.parametrize("shape", [(256, 6, 24, 24), (7,), ()])
def test_activation_sigmoid_backward_is_the_plain_expression(shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32) * 8
    out_grad = rng.standard_normal(shape).astype(np.float32)
    op = get_op("Activation")(act_type="sigmoid")
    y = op.forward(np, np.asarray(x))
    np.testing.assert_array_equal(y, 1 / (1 + np.exp(-x)))
    got = op.backward(np, out_grad, x, y)
    np.testing.assert_array_equal(got, out_grad * (y * (1 - y)))
    assert got.dtype == np.float32
