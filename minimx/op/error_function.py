"""The error function and its inverse: ``erf`` and ``erfinv``, element-wise.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/elemwise_unary_op_basic.cc``
(``erf``, ``erfinv``).  NumPy has neither, so they are approximated here once, in float64 on
any ``xp``, for these operators and for GELU:

* ``erf``: its Taylor series below 0.5, Abramowitz & Stegun 7.1.26 above (absolute error
  below 1.5e-7, relative below 3e-7 there).
* ``erfinv``: Giles' single-precision polynomials in ``w = -log(1 - x^2)`` ("Approximating
  the erfinv function", 2010; relative error below 2e-7 on (-1, 1)); +-inf at +-1, NaN
  beyond.

Derivatives: ``erf' = 2/sqrt(pi) exp(-x^2)``, ``erfinv'(x) = sqrt(pi)/2 exp(erfinv(x)^2)``.
"""
import math

from .elemwise import Unary, UnaryFromOutput
from .registry import TestHints, register_op

__all__ = ["erf", "erfinv"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_TAYLOR = (1.0, -1 / 3, 1 / 10, -1 / 42, 1 / 216, -1 / 1320, 1 / 9360)   # odd powers of x
_AS_7_1_26 = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                  0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
               0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coefficients, x):
    value = 0.0
    for coefficient in coefficients:
        value = value * x + coefficient
    return value


def erf(xp, x):
    """The error function of ``x`` (in ``x``'s dtype)."""
    wide = x.astype("float64")
    series = _TWO_OVER_SQRT_PI * wide * _horner(_TAYLOR[::-1], wide * wide)
    t = 1.0 / (1.0 + 0.3275911 * xp.abs(wide))
    tail = xp.sign(wide) * (1.0 - t * _horner(_AS_7_1_26, t) * xp.exp(-wide * wide))
    return xp.where(xp.abs(wide) < 0.5, series, tail).astype(x.dtype, copy=False)


def erfinv(xp, x):
    """The inverse error function of ``x`` in [-1, 1] (in ``x``'s dtype)."""
    wide = x.astype("float64")
    inside = xp.abs(wide) < 1
    safe = xp.where(inside, wide, 0.0)
    w = -xp.log((1.0 - safe) * (1.0 + safe))
    central = _horner(_GILES_CENTRAL, w - 2.5)
    tail = _horner(_GILES_TAIL, xp.sqrt(w) - 3.0)
    value = xp.where(w < 5.0, central, tail) * safe
    edge = xp.where(xp.abs(wide) == 1, xp.copysign(xp.inf, wide), xp.nan)
    return xp.where(inside, value, edge).astype(x.dtype, copy=False)


@register_op
class Erf(Unary):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``, element-wise."""
    name = "erf"
    method = False          # MXNet 1.9.1 has nd.erf and npx.erf, no NDArray.erf
    test = TestHints(low=-2.0, high=2.0,
                     reference=lambda np, x: np.vectorize(math.erf)(x).astype(x.dtype))

    def compute(self, xp, data):
        return erf(xp, data)

    def derivative(self, xp, data):
        return _TWO_OVER_SQRT_PI * xp.exp(-data * data)


@register_op
class Erfinv(UnaryFromOutput):
    """The inverse error function (``erfinv(erf(x)) = x``), element-wise on [-1, 1]."""
    name = "erfinv"
    method = False
    test = TestHints(low=-0.9, high=0.9,
                     reference=lambda np, x: _inverse_by_bisection(np, x))

    def compute(self, xp, data):
        return erfinv(xp, data)

    def derivative_from_output(self, xp, output):
        return xp.exp(output * output) / _TWO_OVER_SQRT_PI


def _inverse_by_bisection(np, y):
    """A reference ``erfinv`` independent of Giles' polynomials: bisect ``math.erf``."""
    def invert(target):
        low, high = -6.0, 6.0
        for _ in range(80):
            middle = (low + high) / 2
            low, high = (middle, high) if math.erf(middle) < target else (low, middle)
        return (low + high) / 2
    return np.vectorize(invert)(y.astype("float64")).astype(y.dtype)
