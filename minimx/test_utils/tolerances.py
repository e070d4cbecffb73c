"""How close is close enough: MXNet's tolerance tables and the functions that read them.

Lesson: 04-autograd.  Mirrors the tolerance helpers of ``python/mxnet/test_utils.py``.
Each dtype has a default relative and absolute tolerance (integers and bool: exact);
comparing two arrays uses the looser of their two dtypes' defaults unless given.
"""
import numbers

import numpy as np

__all__ = ["default_dtype", "default_rtols", "default_atols", "default_numeric_eps",
           "effective_dtype", "get_tolerance", "get_tols", "get_rtol", "get_atol", "get_etol"]

_EXACT = ("bool", "int8", "uint8", "int32", "uint32", "int64", "uint64")
FLOAT_RTOLS = {"float16": 1e-2, "float32": 1e-4, "float64": 1e-5}
FLOAT_ATOLS = {"float16": 1e-1, "float32": 1e-3, "float64": 1e-20}
NUMERIC_EPS = {"float16": 1.0 / 2 ** 6, "float32": 1.0 / 2 ** 9, "float64": 1.0 / 2 ** 14}


def _table(floats):
    return {np.dtype(name): value for name, value in
            list(floats.items()) + [(name, 0) for name in _EXACT]}


def default_dtype():
    """The dtype tests use when they name none: float32."""
    return np.float32


def default_rtols():
    """Relative tolerance per dtype (0 for integer and bool types)."""
    return _table(FLOAT_RTOLS)


def default_atols():
    """Absolute tolerance per dtype (0 for integer and bool types)."""
    return _table(FLOAT_ATOLS)


def default_numeric_eps():
    """The finite-difference step per float dtype for numeric gradients."""
    return {np.dtype(name): value for name, value in NUMERIC_EPS.items()}


def effective_dtype(dat):
    """The dtype a comparison of ``dat`` should be judged by: its own (MXNet also lowers
    float32 to float16 for GPUs computing in TF32, which minimx's CuPy path does not)."""
    if isinstance(dat, numbers.Number) and not isinstance(dat, np.generic):
        return np.dtype(np.float64 if isinstance(dat, float) else np.int64)
    return np.dtype(getattr(dat, "dtype", np.float64))


def get_tolerance(dat, tol, default_tol):
    """``tol`` when it is a number, ``tol[dtype]`` when it is a dict, else the default."""
    if tol is None:
        return default_tol.get(effective_dtype(dat), 0)
    if isinstance(tol, dict):
        return tol.get(effective_dtype(dat), default_tol.get(effective_dtype(dat), 0))
    return tol


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing ``x`` with ``y``: the looser of the two."""
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    return default_rtols().get(np.dtype(dtype), 0) if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    return default_atols().get(np.dtype(dtype), 0) if atol is None else atol


def get_etol(etol=None):
    """The share of elements allowed to miss the tolerance (0 unless given)."""
    return 0 if etol is None else etol
