"""Forward values at edges where minimx differed from MXNet 1.9.1: which zero comes out.

Found by running the same expressions on both: ``maximum``/``minimum`` keep the right-hand
operand of two equal values (MXNet's ``a > b ? a : b``), so +0 against -0 gives the
right-hand zero, where numpy's loops pick by dtype (float16 the left); ``maximum(x, -0.0)``
after ``maximum(x, 0.0)`` got the cached +0 operator (``-0.0 == 0.0`` as a cache key);
``relu`` of a float16 -0 is +0; ``max``/``min`` over tied zeros keep the first one;
``LeakyReLU``'s leaky/prelu/rrelu product is a float32 one (float64 rounds both factors
first), and float32's slope 0 runs oneDNN's ``max(x, 0)``; ``hard_sigmoid`` computes with
float32 ``alpha``/``beta`` (float64) and rounds to half after each operation (float16).
Every comparison is of bits, so the sign of a zero counts.
"""
import json

import numpy as np
import pytest

from minimx import nd
from minimx import numpy as mnp
from same_program import on_minimx_np_mode, on_mxnet

DTYPES = ("float16", "float32", "float64")
ZEROS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, -0.0, 0.0, 3.0, -3.0]
SIGNS = [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, -0.0]


def bits(array):
    """The array's bits as integers (a -0 differs from a +0)."""
    array = np.asarray(array)
    return array.view(f"u{array.itemsize}").tolist()


def same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    return got.dtype == expected.dtype and got.shape == expected.shape and \
        bits(got) == bits(expected)


# -- the rules, without MXNet ---------------------------------------------------------------
def test_maximum_and_minimum_keep_the_right_hand_of_tied_zeros():
    """(numpy's float32 and float64 loops on x86 already keep the right-hand zero; its
    float16 loop keeps the left-hand one.)"""
    for dtype in DTYPES:
        _maximum_and_minimum_ties(dtype)


def _maximum_and_minimum_ties(dtype):
    a, b = np.array(ZEROS, dtype), np.array(SIGNS, dtype)
    x, y = nd.array(a, dtype=dtype), nd.array(b, dtype=dtype)
    for left, right, lhs, rhs in ((x, y, a, b), (y, x, b, a)):
        assert same_bits(nd.maximum(left, right).asnumpy(), np.where(lhs > rhs, lhs, rhs))
        assert same_bits(nd.minimum(left, right).asnumpy(), np.where(lhs < rhs, lhs, rhs))
    row = np.array(SIGNS[:5], dtype)
    assert same_bits(nd.broadcast_maximum(x.reshape((2, 5)), nd.array(row, dtype=dtype)
                                          .reshape((1, 5))).asnumpy(),
                     np.where(a.reshape(2, 5) > row, a.reshape(2, 5), row))
    np_x = mnp.array(a, dtype=dtype)
    assert same_bits(mnp.maximum(np_x, mnp.array(b, dtype=dtype)).asnumpy(),
                     np.where(a > b, a, b))


@pytest.mark.parametrize("dtype", DTYPES)
def test_maximum_with_a_signed_zero_scalar(dtype):
    """The scalar is the right-hand operand (``maximum(0, x)`` too), and -0.0 is a
    parameter of its own, not the cached operator of 0.0 (or the other way round)."""
    a = np.array(ZEROS, dtype)
    x = nd.array(a, dtype=dtype)
    for scalar in (0.0, -0.0, 0.0):
        s = np.array(scalar, dtype)
        assert same_bits(nd.maximum(x, scalar).asnumpy(), np.where(a > s, a, s))
        assert same_bits(nd.maximum(scalar, x).asnumpy(), np.where(a > s, a, s))
        assert same_bits(nd.minimum(x, scalar).asnumpy(), np.where(a < s, a, s))
        assert same_bits(mnp.maximum(mnp.array(a, dtype=dtype), scalar).asnumpy(),
                         np.where(a > s, a, s))
    assert same_bits((x + -0.0).asnumpy(), a + np.array(-0.0, dtype))
    assert same_bits((x + 0.0).asnumpy(), a + np.array(0.0, dtype))


def test_relu_of_negative_zero_is_positive_zero():
    """(numpy's float16 ``maximum(-0, 0)`` is -0; float32's and float64's on x86 +0.)"""
    for dtype in DTYPES:
        data = nd.array([-0.0, 0.0, -1.0, np.nan, 2.0], dtype=dtype)
        got = nd.relu(data).asnumpy()
        assert bits(got[:3]) == bits(np.zeros(3, dtype)), dtype
        assert np.isnan(got[3]) and got[4] == 2


@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("reduce", ("max", "min"))
def test_max_and_min_keep_the_first_of_tied_zeros(reduce, dtype):
    data = np.array([[0.0, -0.0, -1.0], [-0.0, 0.0, -2.0], [-1.0, -0.0, 0.0], [1.0, 0.0, 2.0]],
                    dtype)
    if reduce == "min":
        data = -data
    x = nd.array(data, dtype=dtype)
    first = np.array([data[0, 0], data[1, 0], data[2, 1], data[3, 2]], dtype)
    assert same_bits(getattr(nd, reduce)(x, axis=1).asnumpy(), first)
    assert same_bits(getattr(nd, reduce)(x[:3].T, axis=0).asnumpy(), first[:3])
    assert same_bits(getattr(nd, reduce)(x[1:3]).asnumpy(), np.array([data[1, 0]], dtype))
    assert same_bits(getattr(mnp, reduce)(mnp.array(data, dtype=dtype), axis=1).asnumpy(),
                     first)


def test_leaky_float64_multiplies_in_float32():
    data = np.array([-3.0, -0.7, 2.0, -1e39, -0.0, 1e39])
    got = nd.LeakyReLU(nd.array(data, dtype="float64"), act_type="leaky", slope=0.1)
    f32 = np.float32
    with np.errstate(over="ignore"):    # (-1e39 is -inf in float32, in MXNet's product too)
        expected = np.where(data > 0, data, (data.astype(f32) * f32(0.1)).astype(np.float64))
        f32_data = data.astype(f32)
    assert same_bits(got.asnumpy(), expected)
    assert got.asnumpy()[0] == -0.30000001192092896
    gamma = nd.array([0.3], dtype="float64")
    prelu = nd.LeakyReLU(nd.array(data, dtype="float64"), gamma, act_type="prelu")
    assert same_bits(prelu.asnumpy(),
                     np.where(data > 0, data, (f32_data * f32(0.3)).astype(np.float64)))
    rrelu = nd.LeakyReLU(nd.array(data, dtype="float64"), act_type="rrelu",
                         lower_bound=0.1, upper_bound=0.3)
    middle = (f32(0.1) + f32(0.3)) / f32(2)
    assert same_bits(rrelu.asnumpy(),
                     np.where(data > 0, data, (f32_data * middle).astype(np.float64)))


def test_leaky_float32_with_slope_zero_is_max_with_zero():
    data = nd.array([-3.0, -0.0, 0.0, np.nan, np.inf, -np.inf, 2.0])
    got = nd.LeakyReLU(data, act_type="leaky", slope=0.0).asnumpy()
    assert bits(got) == bits(np.array([0, 0, 0, 0, np.inf, 0, 2], np.float32))


def test_hard_sigmoid_float64_and_float16():
    values = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 2.4, 0.1, 3.3, 1.7, np.nan])
    f32 = np.float32
    got = nd.hard_sigmoid(nd.array(values, dtype="float64"), alpha=0.3, beta=0.4).asnumpy()
    linear = values * float(f32(0.3)) + float(f32(0.4))
    assert same_bits(got, np.where(linear > 1, 1.0, np.where(linear < 0, 0.0, linear)))
    assert got[0] == float(f32(0.4)) and np.isnan(got[-1])
    half = values.astype(np.float16)
    got = nd.hard_sigmoid(nd.array(half, dtype="float16"), alpha=0.3, beta=0.4).asnumpy()
    scaled = (half.astype(f32) * f32(0.3)).astype(np.float16)
    linear = (scaled.astype(f32) + f32(0.4)).astype(np.float16)
    expected = np.where(linear > 1, np.float16(1), np.where(linear < 0, np.float16(0), linear))
    assert same_bits(got, expected)


# -- against MXNet 1.9.1 -------------------------------------------------------------------
PROGRAM = """
import json
import numpy as np
ZEROS, SIGNS = json.loads(INPUT)
NANS = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 1e39, -1e39, 0.3, -0.3,
        -2.5, 2.4, 3.3]
TIES = [[0.0, -0.0, -1, -2], [-0.0, 0.0, -1, -3], [-0.0, -0.0, -5, -7], [0, 0, 0, 0],
        [1, 2, 3, 4], [-0.0, 1, -0.0, 0.0]]


def bits(array):
    array = array.asnumpy()
    return [str(array.dtype), array.view("u%d" % array.itemsize).ravel().tolist()]


def run(F, X, array, LR, np_mode):
    out = {}
    for dt in ("float16", "float32", "float64"):
        a, b = array(ZEROS, dt), array(SIGNS, dt)
        n, t = array(NANS, dt), array(TIES, dt)
        for s in (0.0, -0.0, 0.0, 1.0):
            out["maximum s %s %s" % (s, dt)] = bits(F.maximum(a, s))
            out["rmaximum s %s %s" % (s, dt)] = bits(F.maximum(s, a))
            out["minimum s %s %s" % (s, dt)] = bits(F.minimum(a, s))
        out["maximum %s" % dt] = [bits(F.maximum(a, b)), bits(F.maximum(b, a)),
                                  bits(F.maximum(n, n[::-1]))]
        out["minimum %s" % dt] = [bits(F.minimum(a, b)), bits(F.minimum(b, a))]
        row = array(SIGNS[:5], dt).reshape((1, 5))
        if np_mode:
            out["bmax %s" % dt] = bits(F.maximum(a.reshape((2, 5)), row))
        else:
            out["bmax %s" % dt] = bits(F.broadcast_maximum(a.reshape((2, 5)), row))
            out["bmin %s" % dt] = bits(F.broadcast_minimum(a.reshape((2, 5)), row))
        out["relu %s" % dt] = bits(X.relu(n))
        for slope in (0.1, 0.3, 0.0, 1.5, -0.5):
            out["leaky %s %s" % (slope, dt)] = bits(LR(n, act_type="leaky", slope=slope))
        out["prelu %s" % dt] = bits(LR(n.reshape((7, 2)), array([0.1, 0.3], dt),
                                       act_type="prelu"))
        rrelu = LR(n, act_type="rrelu", lower_bound=0.1, upper_bound=0.3)
        out["rrelu %s" % dt] = bits(rrelu[0] if isinstance(rrelu, list) else rrelu)
        if not np_mode:
            for alpha, beta in ((0.2, 0.5), (0.3, 0.4), (1 / 3, 0.1)):
                out["hard_sigmoid %s %s %s" % (alpha, beta, dt)] = bits(
                    X.hard_sigmoid(n * 1.37, alpha=alpha, beta=beta))
        for name in ("max", "min"):
            f = getattr(F, name)
            out["%s %s" % (name, dt)] = [bits(f(t, axis=1)), bits(f(t, axis=0)),
                                         bits(f(t.T, axis=0)), bits(f(t[:3])),
                                         bits(f(t.reshape((2, 3, 4)), axis=(0, 2)))]
    return out


nd = mx.nd
out = {"nd": run(nd, nd, lambda v, dt: nd.array(v, dtype=dt), nd.LeakyReLU, False)}
mx.npx.set_np()
out["np"] = run(mx.np, mx.npx, lambda v, dt: mx.np.array(v, dtype=dt), mx.npx.leaky_relu, True)
print(json.dumps(out))
"""


def test_edge_values_match_mxnet_bit_for_bit(mxnet_python):
    given = json.dumps([ZEROS, SIGNS])
    ours = on_minimx_np_mode(PROGRAM, given)
    theirs = on_mxnet(mxnet_python, PROGRAM, given)
    for mode in ("nd", "np"):
        differ = [key for key in theirs[mode] if ours[mode].get(key) != theirs[mode][key]]
        assert not differ, (mode, differ)


def test_norm_gradient_is_head_times_data_over_norm():
    """MXNet's ``_backward_norm`` (ord 2): ``g * (x / norm)``; ``x * (g / norm)`` rounds
    differently (-1.2000000000000002 here, where MXNet gives -1.2)."""
    from minimx import autograd
    data = nd.array([[3.0, 4.0, 0.0, -0.0], [1.0, 1.0, 1.0, 1.0]], dtype="float64")
    data.attach_grad()
    with autograd.record():
        norms = nd.norm(data, axis=1)
    norms.backward(nd.array([-2.0, 3.0], dtype="float64"))
    got = data.grad.asnumpy()
    assert got[0, 0] == -1.2 and got[1, 0] == 1.5
    assert bits(got[0, 2:]) == bits(np.array([-0.0, 0.0]))
