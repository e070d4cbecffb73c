"""``mx.util``: NumPy shape semantics on or off, and small helpers MXNet keeps here.

Lesson: 02-ndarray-and-context.  Mirrors ``python/mxnet/util.py``.

MXNet 1.x reads shapes the legacy way by default: a 0 in a shape means "not known yet"
(so ``nd.zeros((2, 0))`` is refused) and ``()`` means unknown too (so there are no
zero-dimensional results of indexing: ``x[0]`` of a vector has shape ``(1,)``).  Inside
``with mx.np_shape(True):`` (or after ``set_np_shape(True)``, or in a function decorated
with ``@use_np_shape``) shapes mean what they mean in NumPy: 0 is a zero-size axis, ``()``
a scalar.  The setting is per thread, as in MXNet.  The NumPy-compatible array interface
(``mx.np``, ``np_array``) is not part of minimx.
"""
import functools
import inspect
import os
import threading

from .base import MXNetError

__all__ = ["is_np_shape", "set_np_shape", "np_shape", "use_np_shape", "is_np_array",
           "set_np", "reset_np", "np_array", "use_np_array", "use_np", "makedirs",
           "get_gpu_count", "get_gpu_memory", "getenv", "setenv", "set_module"]

_state = threading.local()


def is_np_shape():
    """Whether NumPy shape semantics are on in this thread (off by default)."""
    return getattr(_state, "np_shape", False)


def set_np_shape(active):
    """Turn NumPy shape semantics on or off for this thread; returns the previous value."""
    previous = is_np_shape()
    _state.np_shape = bool(active)
    return previous


class np_shape:  # noqa: N801 (MXNet's name)
    """``with mx.np_shape(True):`` -- NumPy shape semantics for the block."""

    def __init__(self, active=True):
        self.active = active
        self.previous = None

    def __enter__(self):
        self.previous = set_np_shape(self.active)
        return self

    def __exit__(self, *exc_info):
        set_np_shape(self.previous)


def use_np_shape(function):
    """Decorator: run ``function`` (or every method of a class) with NumPy shape semantics."""
    if inspect.isclass(function):
        for name, method in list(vars(function).items()):
            if callable(method) and not name.startswith("__"):
                setattr(function, name, use_np_shape(method))
        return function

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with np_shape(True):
            return function(*args, **kwargs)
    return wrapper


def is_np_array():
    """minimx has no ``mx.np`` arrays: always False."""
    return False


def _no_np_array(what):
    raise MXNetError(f"{what}: the NumPy-compatible array interface (mx.np, mx.npx) is not "
                     f"part of minimx; use mx.nd with mx.np_shape(True) for NumPy shapes")


class _NumpyArrayScope:
    """The np_array setting of one thread (MXNet keeps it so; minimx's is always off)."""

    _current = threading.local()

    def __init__(self, is_np_array):
        self._is_np_array = bool(is_np_array)


def np_array(active=True):
    if active:
        _no_np_array("np_array")
    return np_shape(False)


def use_np_array(function):
    @functools.wraps(function)
    def refuse(*args, **kwargs):
        _no_np_array(getattr(function, "__name__", "use_np_array"))
    return refuse


use_np = use_np_array


def set_np(shape=True, array=True, dtype=False):
    if array:
        _no_np_array("set_np")
    set_np_shape(shape)


def reset_np():
    set_np_shape(False)


def makedirs(path):
    os.makedirs(path, exist_ok=True)


def get_gpu_count():
    from .context import num_gpus
    return num_gpus()


def get_gpu_memory(gpu_dev_id):
    """(free, total) bytes of GPU ``gpu_dev_id`` (through CuPy)."""
    import cupy
    with cupy.cuda.Device(gpu_dev_id):
        return cupy.cuda.runtime.memGetInfo()


def getenv(name):
    return os.environ.get(name)


def setenv(name, value):
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def set_module(module):
    """Decorator MXNet uses to set ``__module__``."""
    def decorate(function):
        if module is not None:
            function.__module__ = module
        return function
    return decorate
