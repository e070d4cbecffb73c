"""Calling host NumPy on arrays: wait for the inputs, compute, bring the results back.

Lesson: 03-two-frontends-one-engine, 05-lazy-evaluation.  Used for the functions MXNet 1.9.1
itself hands to NumPy (``fallback.py``, ``fallback_linalg.py``) and for NumPy functions
called on ``np`` arrays that minimx has no function for (the ``__array_function__``
protocol).  Every such call is a sync point: the inputs' values must be on the host.
"""
import numpy as onp

from ..context import current_context
from ..engine.events import HOST_FALLBACK
from ..ndarray import NDArray
from .value_shapes import wait_for_values

__all__ = ["host_function", "call_on_host"]


def host_function(name, namespace=onp):
    """``np.<name>`` computed by host NumPy."""
    host = getattr(namespace, name)

    def function(*args, **kwargs):
        return call_on_host(host, args, kwargs)

    function.on_host = True               # __array_function__ does not dispatch back to it
    function.__name__ = function.__qualname__ = name
    function.__module__ = "minimx.numpy"
    function.__doc__ = (f"``np.{name}``: computed by host NumPy after waiting for the inputs "
                        f"(MXNet 1.9.1 falls back to NumPy for it too).")
    return function


def call_on_host(host, args, kwargs):
    """``host(*args, **kwargs)`` on host copies; arrays in the result go to the inputs' device."""
    ctx = next((a.context for a in _leaves(args, kwargs) if isinstance(a, NDArray)), None)
    result = host(*_to_host(args), **_to_host(kwargs))
    return _to_device(result, ctx or current_context())


def _leaves(args, kwargs):
    for value in (*args, *kwargs.values()):
        yield from (value if isinstance(value, (list, tuple)) else (value,))


def _to_host(value):
    if isinstance(value, NDArray):
        return wait_for_values(value, HOST_FALLBACK)
    if isinstance(value, dict):
        return {key: _to_host(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(item) for item in value)
    return value


def _to_device(value, ctx):
    from .creation import array
    if isinstance(value, onp.ndarray) and value.dtype != object:
        return array(value, dtype=value.dtype, ctx=ctx)
    if isinstance(value, tuple):
        return tuple(_to_device(item, ctx) for item in value)
    if isinstance(value, list):
        return [_to_device(item, ctx) for item in value]
    return value
