"""The gamma function family, vectorised in numpy (float64): ``gamma``, ``gammaln``,
``digamma``.

Lesson: 02-ndarray-and-context.  MXNet's kernels call C's ``tgamma``/``lgamma`` and
Cephes' ``psi`` (``src/operator/special_functions-inl.h``); numpy has none of them, so
they are written here once, for the ``gamma``/``gammaln`` operators and the densities of
``random_pdf_*``:

* ``gammaln`` uses Lanczos' approximation (g = 7, nine coefficients; about 15 correct
  digits) for ``x >= 1/2`` and Euler's reflection ``Gamma(x) Gamma(1 - x) = pi / sin(pi x)``
  below.
* ``gamma`` is ``exp(gammaln)`` with the sign of ``sin(pi x)`` for negative ``x``.
* ``digamma`` (the derivative of ``gammaln``) raises ``x`` to 6 or more by
  ``psi(x) = psi(x + 1) - 1/x``, then sums the asymptotic series; negative ``x`` reflect
  through ``psi(1 - x) - pi / tan(pi x)``.

At the poles (0, -1, -2, ...) the values are MXNet's: ``gamma`` is inf at 0 (-inf at -0) and
NaN at the negative integers, ``gammaln`` and ``digamma`` are +inf.
"""
import math

import numpy as np

__all__ = ["gamma", "gammaln", "digamma"]

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
# Gamma(n) = (n - 1)! exactly (rounded once to float64) for n = 1 .. 171, so that whole
# numbers give whole results: integer arrays truncate, and 0.99999... would become 0
_FACTORIALS = np.array([float(math.factorial(n)) for n in range(171)])


def _poles(x):
    """Where ``x`` is 0 or a negative integer."""
    return (x <= 0) & (x == np.floor(x))


def _lanczos_gammaln(x):
    """``log Gamma(x)`` for ``x >= 1/2``."""
    z = x - 1.0
    series = np.full_like(z, _LANCZOS[0])
    for k, coefficient in enumerate(_LANCZOS[1:], start=1):
        series += coefficient / (z + k)
    t = z + _LANCZOS_G + 0.5
    return _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(series)


def _whole_numbers(x):
    """Where ``x`` is a whole number from 1 to 171, and ``(x - 1)!`` there (1 elsewhere)."""
    whole = (x >= 1) & (x <= len(_FACTORIALS)) & (x == np.floor(x))
    return whole, _FACTORIALS[np.where(whole, x, 1).astype(np.int64) - 1]


def gammaln(x):
    """``log |Gamma(x)|``, element-wise (float64)."""
    x = np.asarray(x, dtype=np.float64)
    reflect = x < 0.5
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        direct = _lanczos_gammaln(np.where(reflect, 1.0 - x, x))
        reflected = np.log(np.pi / np.abs(np.sin(np.pi * x))) - direct
    whole, factorials = _whole_numbers(x)
    values = np.where(whole, np.log(factorials), np.where(reflect, reflected, direct))
    return np.where(_poles(x) | np.isinf(x), np.inf, values)


def gamma(x):
    """``Gamma(x)``, element-wise (float64)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        whole, factorials = _whole_numbers(x)
        magnitude = np.where(whole, factorials, np.exp(gammaln(x)))
        signed = np.where(x < 0, np.sign(np.sin(np.pi * x)), 1.0) * magnitude
    # at 0 the pole takes the zero's sign, as C's tgamma: Gamma(-0) is -inf
    return np.where(x == 0, np.copysign(np.inf, x),
                    np.where(x == np.inf, np.inf, np.where(_poles(x), np.nan, signed)))


def digamma(x):
    """``psi(x) = d/dx log Gamma(x)``, element-wise (float64)."""
    x = np.asarray(x, dtype=np.float64)
    negative = x < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        reflection = np.where(negative, np.pi / np.tan(np.pi * x), 0.0)
        z = np.where(negative, 1.0 - x, x)
        result = np.zeros_like(z)
        while (small := z < 6).any():
            result -= np.where(small, 1 / np.where(small, z, 1), 0)
            z = np.where(small, z + 1, z)
        inverse = 1 / (z * z)
        series = inverse * (1 / 12 - inverse * (1 / 120 - inverse * (1 / 252 - inverse * (
            1 / 240 - inverse / 132))))
        result = result + np.log(z) - 0.5 / z - series - reflection
    return np.where(_poles(x), np.inf, result)
