"""Gradients of element-wise and activation operators, bit for bit as MXNet 1.9.1's.

MXNet's backward of an element-wise operator is ``ograd * functor(x or y)`` with the functor
(``mshadow_op.h``) evaluated first, in float for float16; a broadcast binary operator then
sums each gradient over its broadcast axes starting from +0.  The order of those operations,
the dtype of the intermediates and the signs of zeros decide the last bits.  The first tests
pin the rules without MXNet; the last runs the same expressions on both (inputs are small
integers, halves and signed zeros, so that the forward values agree) and compares the bits.
"""
import json

import numpy as np
import pytest
from same_program import on_minimx, on_minimx_np_mode, on_mxnet

from minimx import autograd, nd


def _grads(function, *arrays, head, dtype="float32"):
    xs = [nd.array(np.asarray(a, dtype), dtype=dtype) for a in arrays]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = function(*xs)
    y.backward(nd.array(np.asarray(head, dtype).reshape(y.shape), dtype=dtype))
    grads = [x.grad.asnumpy() for x in xs]
    return grads[0] if len(grads) == 1 else grads


def _bits(array):
    array = np.asarray(array)
    return array.view(f"u{array.itemsize}").tolist()


# -- zero signs ---------------------------------------------------------------------------------
def test_sign_gradient_is_the_head_times_zero():
    # MXNet's _backward_sign: ograd * 0, so a negative head gives -0
    got = _grads(nd.sign, [1.0, -2.0, 0.0], head=[-1.0, 2.0, -0.0])
    assert _bits(got) == _bits(np.array([-0.0, 0.0, -0.0], np.float32))


def test_rsqrt_gradient_at_minus_zero_is_minus_infinity():
    # -0.5 / (sqrt(-0) * -0) = -0.5 / +0; the output's -0.5 * y**3 gave +inf
    got = _grads(nd.rsqrt, [-0.0, 0.0], head=[1.0, 1.0])
    assert got.tolist() == [-np.inf, -np.inf]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_hard_sigmoid_outside_gives_plus_zero(dtype):
    got = _grads(nd.hard_sigmoid, [-5.0, 5.0, 0.0], head=[-1.0, -3.0, -2.0], dtype=dtype)
    alpha = np.asarray(np.float32(0.2), dtype)       # MXNet's float param in the dtype
    assert _bits(got) == _bits(np.array([0.0, 0.0, -2 * alpha], dtype))


def test_smooth_l1_at_minus_zero_with_a_negative_head_is_plus_zero():
    got = _grads(lambda x: nd.smooth_l1(x, scalar=1.0), [-0.0, 0.5, 3.0], head=[-2.0, 1.0, 1.0])
    assert _bits(got) == _bits(np.array([0.0, 0.5, 1.0], np.float32))


@pytest.mark.parametrize("op", ["broadcast_add", "broadcast_mul", "broadcast_maximum"])
def test_broadcast_backward_sums_from_plus_zero(op):
    # two shapes: both gradients come from MXNet's sum, which starts at +0 (0 + -0 = +0)
    lhs, rhs = np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)
    grad_lhs, grad_rhs = _grads(getattr(nd, op), lhs, rhs, head=[-0.0] * 6)
    assert not np.signbit(grad_lhs).any() and not np.signbit(grad_rhs).any()
    # one shape: the element-wise backward keeps the -0
    same = _grads(getattr(nd, op), lhs, lhs, head=[-0.0] * 6)
    assert np.signbit(same[0]).all()


def test_prelu_data_gradient_sums_from_plus_zero():
    data = np.array([[1.0, -1.0], [2.0, -0.5]], np.float32)
    got = _grads(lambda x, g: nd.LeakyReLU(x, g, act_type="prelu"), data, [0.25, 0.5],
                 head=[-0.0, -0.0, 1.0, 2.0])[0]
    assert _bits(got) == _bits(np.array([[0.0, 0.0], [1.0, 1.0]], np.float32))


# -- operation order and intermediate dtypes ----------------------------------------------------
_RNG = np.random.default_rng(7)
_X = _RNG.uniform(0.1, 4.0, 2000).astype(np.float32)
_B = _RNG.uniform(0.1, 4.0, 2000).astype(np.float32)
_HEAD = _RNG.standard_normal(2000).astype(np.float32)


def test_division_gradients_multiply_the_head():
    # div_grad = 1 / b and div_rgrad = -a / (b * b), each times the head
    grad_a, grad_b = _grads(lambda a, b: a / b, _X, _B, head=_HEAD)
    assert _bits(grad_a) == _bits(_HEAD * (np.float32(1) / _B))
    assert _bits(grad_b) == _bits(_HEAD * (-_X / (_B * _B)))


def test_log10_and_log2_gradients_are_a_float_constant_over_x():
    got = _grads(nd.log10, _X, head=_HEAD)
    assert _bits(got) == _bits(_HEAD * (np.float32(0.4342944819) / _X))
    got = _grads(nd.log2, _X.astype(np.float64), head=_HEAD, dtype="float64")
    assert _bits(got) == _bits(_HEAD.astype(np.float64) *
                               (1.44269504088896340737 / _X.astype(np.float64)))


def test_rcbrt_and_cbrt_gradients():
    got = _grads(nd.rcbrt, _X, head=_HEAD)
    assert _bits(got) == _bits(_HEAD * (np.float32(-1) / (np.float32(3) * np.cbrt(_X) * _X)))
    y = np.cbrt(_X)
    got = _grads(nd.cbrt, _X, head=_HEAD)
    assert _bits(got) == _bits(_HEAD * (np.float32(1) / (np.float32(3) * (y * y))))


def test_float16_gradient_functors_compute_in_float32():
    x = np.linspace(-3, 3, 301).astype(np.float16)
    head = np.linspace(-2, 2, 301).astype(np.float16)
    y = np.tanh(x)
    got = _grads(nd.tanh, x, head=head, dtype="float16")
    wide = y.astype(np.float32)
    assert _bits(got) == _bits(head * (1 - wide * wide).astype(np.float16))


def test_elu_float64_gradient_is_output_plus_slope():
    x = -_X.astype(np.float64)
    y = nd.LeakyReLU(nd.array(x, dtype="float64"), act_type="elu", slope=0.3).asnumpy()
    got = _grads(lambda a: nd.LeakyReLU(a, act_type="elu", slope=0.3), x, head=_HEAD,
                 dtype="float64")
    assert _bits(got) == _bits(_HEAD.astype(np.float64) * (y + float(np.float32(0.3))))


# -- against MXNet 1.9.1 --------------------------------------------------------------------------
_PROGRAM = r"""
import json
import numpy as np
NP_MODE = json.loads(INPUT)["np"]
if NP_MODE:
    mx.npx.set_np()
    F, X, LR = mx.np, mx.npx, mx.npx.leaky_relu
    arr = lambda a: mx.np.array(a, dtype=a.dtype)
else:
    F = X = mx.nd
    LR = mx.nd.LeakyReLU
    arr = lambda a: mx.nd.array(a, dtype=a.dtype)
V = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 0.25, -4.0]
POS = [0.0, -0.0, 1.0, 4.0, 0.25, 2.0, 9.0, 0.5, 16.0, 3.0, 0.125, 1.5]
PP = [1.0, 4.0, 0.25, 2.0, 9.0, 0.5, 16.0, 3.0, 0.125, 1.5, 8.0, 0.75]
UNIT = [0.0, -0.0, 0.5, -0.5, 0.25, -0.25, 0.75, -0.75, 0.125, 1.0, -1.0, 0.0625]
GT1 = [1.0, 2.0, 3.0, 1.5, 4.0, 9.0, 1.25, 16.0, 2.5, 5.0, 10.0, 1.125]
v = lambda vals, k=0: np.roll(np.array(vals, np.float64), k)
M = lambda vals=V, k=0: v(vals, k).reshape(3, 4)
def head(shape, dt):
    c = np.arange(int(np.prod(shape)))
    h = np.where(c % 2, -1.0, 1.0) * (c % 5 + 1)
    h[c % 7 == 3] = -0.0
    return h.reshape(shape).astype(dt)
out = {}
for key, source, inputs in json.loads(INPUT)["cases"]:
    f = eval(source)
    dt = key.split("|")[1]
    xs = [arr(np.asarray(eval(a)).astype(dt)) for a in inputs]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = f(*xs)
    y.backward(arr(head(y.shape, dt)))
    out[key] = [x.grad.asnumpy().ravel().view(f"u{x.grad.asnumpy().itemsize}").tolist()
                for x in xs]
print(json.dumps(out))
"""

_BOTH = [   # (name, source, inputs, dtypes): frontends nd and np
    ("tanh", "lambda a: F.tanh(a)", ["v(V)"], "float16"),
    ("sign", "lambda a: F.sign(a)", ["v(V)"], "float32 float64 float16"),
    ("cbrt", "lambda a: F.cbrt(a)", ["v(V)"], "float16"),
    ("expm1", "lambda a: F.expm1(a)", ["v(V)"], "float64 float16"),
    ("log10", "lambda a: F.log10(a)", ["v(POS)"], "float32 float64 float16"),
    ("log2", "lambda a: F.log2(a)", ["v(POS)"], "float64 float16"),
    ("arcsinh", "lambda a: F.arcsinh(a)", ["v(V)"], "float16"),
    ("arccosh", "lambda a: F.arccosh(a)", ["v(GT1)"], "float16"),
    ("degrees", "lambda a: F.degrees(a)", ["v(V)"], "float32 float64"),
    ("radians", "lambda a: F.radians(a)", ["v(V)"], "float64"),
    ("erf", "lambda a: X.erf(a)", ["v(V)"], "float16"),
    ("erfinv", "lambda a: X.erfinv(a)", ["v(UNIT)"], "float16"),
    ("Act_tanh", "lambda a: (X.activation if NP_MODE else X.Activation)(a, act_type='tanh')",
     ["v(V)"], "float16"),
    ("Act_softrelu",
     "lambda a: (X.activation if NP_MODE else X.Activation)(a, act_type='softrelu')",
     ["v(V)"], "float16"),
    ("leaky", "lambda a: LR(a, act_type='leaky', slope=0.1)", ["v(V)"], "float64"),
    ("elu", "lambda a: LR(a, act_type='elu', slope=0.5)", ["v(V)"], "float64 float16"),
    ("prelu", "lambda a, g: LR(a, g, act_type='prelu')",
     ["M().reshape(2, 3, 2)", "np.array([0.25, -0.5, 0.0])"], "float32 float64 float16"),
    ("prelu1", "lambda a, g: LR(a, g, act_type='prelu')", ["M()", "np.array([0.5])"],
     "float32 float64 float16"),
    ("max", "lambda a, b: F.broadcast_maximum(a, b) if not NP_MODE else F.maximum(a, b)",
     ["M()", "M(V, 3)[:1]"],
     "float32 float64 float16"),
    ("min", "lambda a, b: F.broadcast_minimum(a, b) if not NP_MODE else F.minimum(a, b)",
     ["M()", "M(V, 3)[:, :1]"],
     "float32 float64 float16"),
    ("bmul", "lambda a, b: a * b", ["M()", "M(V, 3)[:1]"], "float32 float64 float16"),
    ("bdiv", "lambda a, b: a / b", ["M()", "M(PP, 3)[:1]"], "float32 float64 float16"),
    ("bpow", "lambda a, b: a ** b", ["M(PP)", "M(V, 3)[:1]"], "float32 float64"),
    ("bmod", "lambda a, b: a % b", ["M(V) + 5", "M(PP, 3)[:1]"], "float32 float64 float16"),
    ("div", "lambda a, b: a / b", ["v(V)", "v(V, 2) + 0.25"], "float32 float16"),
    ("div3", "lambda a, b: a / b",
     ["v(V)", "np.array([3.0, 7, -3, 0.75, 5, 6, -7, 10, 3, 11, 12, 13])"],
     "float32 float64 float16"),
    ("power", "lambda a, b: a ** b", ["v(PP)", "v(V, 1)"], "float32 float16"),
    ("rpow_s", "lambda a: 2.0 ** a", ["v(V)"], "float32 float64 float16"),
    ("rpow_s3", "lambda a: 3.0 ** a", ["v(V)"], "float16"),
]
_ND = [
    ("rsqrt", "lambda a: F.rsqrt(a)", ["v(POS)"], "float32 float64 float16"),
    ("rcbrt", "lambda a: F.rcbrt(a)", ["v(POS)"], "float16"),
    ("hard_sigmoid", "lambda a: F.hard_sigmoid(a)", ["v(V) * 2.5"], "float32 float64 float16"),
    ("hard_sigmoid2", "lambda a: F.hard_sigmoid(a, alpha=0.5, beta=0.5)", ["v(V)"],
     "float32 float64 float16"),
    ("smooth_l1", "lambda a: F.smooth_l1(a, scalar=2.0)", ["v(V)"], "float32 float64 float16"),
    ("badd", "lambda a, b: F.broadcast_add(a, b)", ["M()", "M(V, 3)[:1]"],
     "float32 float64 float16"),
    ("bhypot", "lambda a, b: F.broadcast_hypot(a, b)", ["M()", "M(V, 3)[:1]"], "float32"),
    ("hypot_s", "lambda a: F._internal._hypot_scalar(a, scalar=2.0)", ["v(V)"], "float16"),
]
_NP = [
    ("hypot", "lambda a, b: F.hypot(a, b)", ["v(V)", "v(V, 4)"], "float16"),
    ("arctan2", "lambda a, b: F.arctan2(a, b)", ["v(V)", "v(V, 4)"], "float16"),
    ("arctan2_s", "lambda a: F.arctan2(a, 2.0)", ["v(V)"], "float64 float16"),
    ("ldexp", "lambda a, b: F.ldexp(a, b)", ["v(V)", "v(V, 3)"], "float32 float64 float16"),
    ("mod_s", "lambda a: F.mod(a, 2.0)", ["v(V) + 5"], "float32 float64 float16"),
]


def _cases(table):
    return [(f"{name}|{dtype}", source, inputs)
            for name, source, inputs, dtypes in table for dtype in dtypes.split()]


@pytest.mark.parametrize("frontend", ["nd", "np"])
def test_gradient_bits_match_mxnet(mxnet_python, frontend):
    cases = _cases(_BOTH + (_ND if frontend == "nd" else _NP))
    given = json.dumps({"np": frontend == "np", "cases": cases})
    expected = on_mxnet(mxnet_python, _PROGRAM, given)
    got = (on_minimx_np_mode if frontend == "np" else on_minimx)(_PROGRAM, given)
    differ = [key for key in expected if got[key] != expected[key]]
    assert not differ, differ
