"""Exponentials, logarithms, powers and roots, element-wise.

Lesson: 02-ndarray-and-context (and 04-autograd for their gradients).  Mirrors
``src/operator/tensor/elemwise_unary_op_logexp.cc`` and ``elemwise_unary_op_pow.cc``.
Where the derivative is cheapest in terms of the output (``exp``, ``sqrt``), the
operator saves its output instead of its input (``UnaryFromOutput``).
"""
import math

import numpy as np

from . import special
from .common import on_host, to_device
from .elemwise import Unary, UnaryFromOutput
from .params import Param
from .registry import TestHints, register_op


def _by_dtype(data, for_float64, for_others):
    """The constant MXNet's gradient kernel writes for ``data``'s dtype: its float64
    specialisation has a double literal, the others a float literal (rounded to float32)."""
    if data.dtype == "float64":
        return for_float64
    return float(np.float32(for_others))


# -- exponentials and logarithms ---------------------------------------------------------------
@register_op
class Exp(UnaryFromOutput):
    """``e ** x``, element-wise."""
    name = "exp"
    xp_name = "exp"
    test = TestHints(reference=lambda np, x: np.exp(x))

    def compute(self, xp, data):
        return xp.exp(data)

    def derivative_from_output(self, xp, output):
        return output


@register_op
class Expm1(Unary):
    """``exp(x) - 1``, accurate for small ``x``."""
    name = "expm1"
    xp_name = "expm1"
    test = TestHints(reference=lambda np, x: np.expm1(x))

    def compute(self, xp, data):
        return xp.expm1(data)

    def derivative(self, xp, data):
        # exp(x) of the input, as MXNet's _backward_expm1; expm1(x) + 1 rounds twice
        return xp.exp(data)


@register_op
class Log(Unary):
    """Natural logarithm, element-wise."""
    name = "log"
    xp_name = "log"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.log(x))

    def compute(self, xp, data):
        return xp.log(data)

    def derivative(self, xp, data):
        return 1.0 / data


@register_op
class Log10(Unary):
    """Base-10 logarithm, element-wise."""
    name = "log10"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.log10(x))

    def compute(self, xp, data):
        return xp.log10(data)

    def derivative(self, xp, data):
        # MXNet's log10_grad: a constant 1/log(10) over x, the constant float32's
        # 0.4342944819f below float64 (one rounding, not x * log(10) then 1 / that)
        return _by_dtype(data, 0.43429448190325182765, 0.4342944819) / data


@register_op
class Log2(Unary):
    """Base-2 logarithm, element-wise."""
    name = "log2"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.log2(x))

    def compute(self, xp, data):
        return xp.log2(data)

    def derivative(self, xp, data):
        # MXNet's log2_grad: 1/log(2) over x (1.442695041f below float64)
        return _by_dtype(data, 1.44269504088896340737, 1.442695041) / data


@register_op
class Log1p(Unary):
    """``log(1 + x)``, accurate for small ``x``."""
    name = "log1p"
    xp_name = "log1p"
    test = TestHints(low=-0.5, high=2.0, reference=lambda np, x: np.log1p(x))

    def compute(self, xp, data):
        return xp.log1p(data)

    def derivative(self, xp, data):
        return 1.0 / (data + 1.0)


# -- powers and roots ----------------------------------------------------------------------------
@register_op
class Sqrt(UnaryFromOutput):
    """Square root, element-wise."""
    name = "sqrt"
    xp_name = "sqrt"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.sqrt(x))

    def compute(self, xp, data):
        return xp.sqrt(data)

    def derivative_from_output(self, xp, output):
        return 0.5 / output


@register_op
class Rsqrt(Unary):
    """``1 / sqrt(x)``, element-wise."""
    name = "rsqrt"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: 1 / np.sqrt(x))

    def compute(self, xp, data):
        return 1.0 / xp.sqrt(data)

    def derivative(self, xp, data):
        # MXNet's _backward_rsqrt works on the input: -0.5 / (sqrt(x) * x).  At x = -0 that
        # is -0.5 / (-0 * -0) = -inf, where -0.5 * y**3 of the output y = -inf gives +inf
        return -0.5 / (xp.sqrt(data) * data)


@register_op
class Cbrt(UnaryFromOutput):
    """Cube root, element-wise."""
    name = "cbrt"
    xp_name = "cbrt"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.cbrt(x))

    def compute(self, xp, data):
        return xp.cbrt(data)

    def derivative_from_output(self, xp, output):
        # MXNet's cube_root_grad: 1 / (3 * (y * y)), the square first
        return 1.0 / (3.0 * (output * output))


@register_op
class Rcbrt(Unary):
    """``1 / cbrt(x)``, element-wise."""
    name = "rcbrt"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: 1 / np.cbrt(x))

    def compute(self, xp, data):
        return 1.0 / xp.cbrt(data)

    def derivative(self, xp, data):
        # d/dx x ** (-1/3) = -1 / (3 * cbrt(x) * x), written on the input as MXNet's
        # _backward_rcbrt (-y**4 / 3 from the output rounds differently)
        return -1.0 / (3.0 * xp.cbrt(data) * data)


@register_op
class Square(Unary):
    """``x * x``, element-wise."""
    name = "square"
    xp_name = "square"
    test = TestHints(reference=lambda np, x: x * x)

    def compute(self, xp, data):
        return xp.square(data)

    def derivative(self, xp, data):
        return 2.0 * data


@register_op
class Reciprocal(Unary):
    """``1 / x``, element-wise."""
    name = "reciprocal"
    xp_name = "reciprocal"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: 1 / x)

    def compute(self, xp, data):
        return xp.reciprocal(data)

    def derivative(self, xp, data):
        return -1.0 / (data * data)


# -- contrib: a quadratic and the attention scale ------------------------------------------------
@register_op
class Quadratic(Unary):
    """``a * x**2 + b * x + c``, element-wise (``nd.contrib.quadratic``)."""
    name = "_contrib_quadratic"
    params = {"a": Param(float, default=0.0, doc="coefficient of x**2"),
              "b": Param(float, default=0.0, doc="coefficient of x"),
              "c": Param(float, default=0.0, doc="constant term")}
    test = TestHints(params={"a": 0.5, "b": -2.0, "c": 1.0},
                     reference=lambda np, x, a, b, c: a * x * x + b * x + c)

    def compute(self, xp, data):
        return ((self.a * data + self.b) * data + self.c).astype(data.dtype)

    def derivative(self, xp, data):
        return 2.0 * self.a * data + self.b


@register_op
class DivSqrtDim(Unary):
    """``x / sqrt(x.shape[-1])``: the scaling of dot-product attention
    (``nd.contrib.div_sqrt_dim``)."""
    name = "_contrib_div_sqrt_dim"
    saves = ("data_shape",)
    test = TestHints(shapes=((2, 3, 4),),
                     reference=lambda np, x: x / np.sqrt(x.shape[-1]))

    def compute(self, xp, data):
        return data * (1.0 / math.sqrt(data.shape[-1]))

    def backward(self, xp, out_grad, data_shape):
        return out_grad * (1.0 / math.sqrt(data_shape[-1]))


# -- the gamma function ------------------------------------------------------------------------
# MXNet declares these in elemwise_unary_op_basic.cc; the numerics are in special.py.
def _away_from_poles(rng, shapes, dtype):
    """Test inputs on both sides of 0, at least 0.2 from the poles 0, -1, -2, ..."""
    return [(rng.randint(-3, 4, size=shape) + rng.uniform(0.2, 0.8, size=shape)).astype(dtype)
            for shape in shapes]


@register_op
class Gamma(Unary):
    """The gamma function ``Gamma(x)`` (``Gamma(n) = (n - 1)!``), element-wise.

    Its derivative is ``Gamma(x) * digamma(x)``.  inf at 0, NaN at the negative integers.
    """
    name = "gamma"
    host_compute = True                 # SciPy's special functions
    method = False          # MXNet 1.9.1 has nd.gamma and sym.gamma, no NDArray.gamma
    test = TestHints(inputs=_away_from_poles)

    def compute(self, xp, data):
        with np.errstate(over="ignore"):        # past 35 in float32: inf, as in MXNet
            return to_device(xp, special.gamma(on_host(xp, data)), data.dtype)

    def derivative(self, xp, data):
        x = on_host(xp, data)
        with np.errstate(over="ignore", invalid="ignore"):
            return to_device(xp, special.gamma(x) * special.digamma(x), data.dtype)


@register_op
class Gammaln(Unary):
    """``log |Gamma(x)|``, element-wise; its derivative is ``digamma(x)``.

    Finite far beyond where ``Gamma`` overflows (``gammaln(200)`` is about 857); +inf
    at 0 and at the negative integers.
    """
    name = "gammaln"
    host_compute = True                 # SciPy's special functions
    method = False
    test = TestHints(inputs=_away_from_poles)

    def compute(self, xp, data):
        return to_device(xp, special.gammaln(on_host(xp, data)), data.dtype)

    def derivative(self, xp, data):
        return to_device(xp, special.digamma(on_host(xp, data)), data.dtype)
