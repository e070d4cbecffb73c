"""The NumPy 1 names that MXNet 1.9.1's test files call on *host* NumPy.

MXNet's tests were written against NumPy 1.x.  A few of them compute their expected values
with what NumPy removed or changed since: aliases (``np.round_``, ``np.sometrue``,
``np.product``, ``np.float`` for the builtin ``float`` ...: ``_REMOVED_ALIASES``), the
``interpolation=`` keyword of ``percentile``/``quantile`` (now ``method=``), ``nonzero`` of
a 0-d array (NumPy 1 treated it as 1-d), ``unique``'s flat inverse for ``axis=None`` (NumPy
2 gives it the input's shape) and ``linalg.solve`` of a ``b`` one axis short of ``a`` (NumPy
1: a stack of vectors; NumPy 2: matrices), and ``arange`` of an integer dtype its bounds
overflow (NumPy 1 wrapped around).  Run under NumPy 2, such a test fails before it
looks at minimx's answer.  With ``--numpy1-names`` (tools/run_mxnet_tests.py),
``mxsuite_plugin`` calls ``apply()``, which puts those back with NumPy 1's meaning, so the
test checks minimx again; the runner reports figures with and without it.  It adds names and
keywords only: every call NumPy 2 accepts behaves as before.
"""
import functools

import numpy


def _accepting_interpolation(function):
    @functools.wraps(function)
    def wrapped(*args, interpolation=None, **kwargs):
        if interpolation is not None:
            kwargs.setdefault("method", interpolation)
        return function(*args, **kwargs)
    return wrapped


def _nonzero_of_0d_as_1d(function):
    @functools.wraps(function)
    def wrapped(a):
        return function(numpy.atleast_1d(a) if numpy.ndim(a) == 0 else a)
    return wrapped


def _flat_inverse(function):
    @functools.wraps(function)
    def wrapped(ar, return_index=False, return_inverse=False, return_counts=False,
                axis=None, **kwargs):
        found = function(ar, return_index, return_inverse, return_counts, axis, **kwargs)
        if return_inverse and axis is None:
            position = 1 + bool(return_index)
            found = found[:position] + (found[position].reshape(-1),) + found[position + 1:]
        return found
    return wrapped


# Aliases NumPy removed (the builtin type names in 1.24, the others in 2.0), by their
# meaning: the name of what NumPy still has, or the value (a builtin type, -inf) itself.
_REMOVED_ALIASES = {"round_": "round", "sometrue": "any", "alltrue": "all",
                    "product": "prod", "cumproduct": "cumprod", "NaN": "nan", "Inf": "inf",
                    "PINF": "inf", "NINF": -float("inf"), "infty": "inf",
                    "float_": "float64", "complex_": "complex128", "float": float,
                    "int": int, "bool": bool, "object": object, "complex": complex,
                    "str": str}


def _solve_stacked_vectors(function):
    """``linalg.solve(a, b)`` with ``b`` one axis short of ``a`` (``(..., M)``) as NumPy 1
    read it: a stack of vectors, where NumPy 2 takes a ``b`` of more than one axis as
    ``(..., M, K)`` matrices."""
    @functools.wraps(function)
    def wrapped(a, b):
        # (no ``asarray``: an array of another library still dispatches to its own solve)
        if 1 < numpy.ndim(b) == numpy.ndim(a) - 1:
            return function(a, b[..., None])[..., 0]
        return function(a, b)
    return wrapped


def _wrapping_arange(function):
    """``arange`` in an integer dtype whose bounds lie outside it (``arange(-100, 100,
    dtype=uint8)``): NumPy 1 wrapped the values around, NumPy 2 raises OverflowError."""
    @functools.wraps(function)
    def wrapped(*args, dtype=None, **kwargs):
        try:
            return function(*args, dtype=dtype, **kwargs)
        except OverflowError:
            return function(*args, dtype=numpy.int64, **kwargs).astype(dtype)
    return wrapped


def apply():
    if int(numpy.__version__.split(".")[0]) < 2:
        return
    for name, meaning in _REMOVED_ALIASES.items():
        if not hasattr(numpy, name):
            setattr(numpy, name, meaning if not isinstance(meaning, str)
                    else getattr(numpy, meaning))
    numpy.percentile = _accepting_interpolation(numpy.percentile)
    numpy.quantile = _accepting_interpolation(numpy.quantile)
    numpy.nonzero = _nonzero_of_0d_as_1d(numpy.nonzero)
    numpy.unique = _flat_inverse(numpy.unique)
    numpy.linalg.solve = _solve_stacked_vectors(numpy.linalg.solve)
    numpy.arange = _wrapping_arange(numpy.arange)
