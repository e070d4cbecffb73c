"""``mxnet.numpy_dispatch_protocol``: official NumPy functions called on ``np`` arrays.

Lesson: 02-ndarray-and-context.  NumPy's ``__array_function__`` (NEP 18) and
``__array_ufunc__`` (NEP 13) protocols let ``numpy.sum(x)`` call ``mx.np.sum(x)`` when ``x``
is an ``mx.np.ndarray`` (``np.ndarray.__array_function__`` in ``numpy/multiarray.py`` does
the lookup).  The lists name the functions and ufuncs minimx computes with its own
operators, found from ``mx.np`` itself; any other NumPy function called on an ``np`` array
runs on host copies (a sync point) and its array results come back as ``np`` arrays.
"""
import functools

import numpy as _onp

from . import numpy as _np
from .numpy import ufuncs as _ufuncs

__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol"]


def with_array_function_protocol(function):
    """Run ``function`` (a test) where NumPy has ``__array_function__`` (NumPy >= 1.17:
    every NumPy minimx supports)."""
    @functools.wraps(function)
    def run(*args, **kwargs):
        return function(*args, **kwargs)
    return run


with_array_ufunc_protocol = with_array_function_protocol


def _own_functions():
    names = []
    for name in sorted(_np.__all__):
        function = getattr(_np, name, None)
        official = getattr(_onp, name, None)
        if callable(function) and not getattr(function, "on_host", False) \
                and callable(official) and not isinstance(official, (type, _onp.ufunc)):
            names.append(name)
    for name in sorted(_np.linalg.__all__):
        function = getattr(_np.linalg, name)
        if not getattr(function, "on_host", False) and hasattr(_onp.linalg, name):
            names.append(f"linalg.{name}")
    return names


_NUMPY_ARRAY_FUNCTION_LIST = _own_functions()
_NUMPY_ARRAY_UFUNC_LIST = [name for name in _ufuncs.__all__
                           if isinstance(getattr(_onp, name, None), _onp.ufunc)]
