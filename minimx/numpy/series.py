"""``np.hanning``, ``hamming``, ``blackman`` and ``polyval``: the operators of
``op/numpy_series.py`` with NumPy's arguments.

Lesson: 03-two-frontends-one-engine.
"""
import numbers

import numpy as onp

from ..base import InvalidTypeError, normalize_dtype
from ..ndarray import NDArray
from .adapter import call_np, is_symbolic, operand
from .creation import _ctx

__all__ = ["hanning", "hamming", "blackman", "polyval"]


def _window(op_name, what):
    def window(M, dtype=onp.float32, ctx=None):  # noqa: N803 (NumPy's name)
        if not isinstance(M, numbers.Integral):
            raise InvalidTypeError(f"{what}: M must be an int, got {type(M).__name__}")
        return call_np(op_name, M=int(M), dtype=normalize_dtype(dtype).name, ctx=_ctx(ctx))
    window.__name__ = window.__qualname__ = what
    window.__doc__ = f"The {what} window of ``M`` points (float32 unless ``dtype``)."
    return window


hanning = _window("_npi_hanning", "hanning")
hamming = _window("_npi_hamming", "hamming")
blackman = _window("_npi_blackman", "blackman")


def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at each element of
    ``x``; numbers give a number (NumPy's answer), as MXNet's."""
    arrays = [isinstance(value, NDArray) or is_symbolic(value) for value in (p, x)]
    if not any(arrays):
        return onp.polyval(p, x)
    if not all(arrays):
        raise TypeError("polyval: p and x must both be arrays (or both numbers), got "
                        f"{type(p).__name__} and {type(x).__name__}")
    return call_np("_npi_polyval", operand(p), operand(x))
