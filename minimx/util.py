"""``mx.util``: NumPy shape semantics on or off, and small helpers MXNet keeps here.

Lesson: 02-ndarray-and-context.  Mirrors ``python/mxnet/util.py``.

MXNet 1.x reads shapes the legacy way by default: a 0 in a shape means "not known yet"
(so ``nd.zeros((2, 0))`` is refused) and ``()`` means unknown too (so there are no
zero-dimensional results of indexing: ``x[0]`` of a vector has shape ``(1,)``).  Inside
``with mx.np_shape(True):`` (or after ``set_np_shape(True)``, or in a function decorated
with ``@use_np_shape``) shapes mean what they mean in NumPy: 0 is a zero-size axis, ``()``
a scalar.  ``npx.set_np()`` (or ``@use_np``) also turns on ``mx.np`` array semantics
(``is_np_array()``).  The settings are per thread, as in MXNet.
"""
import contextlib
import functools
import inspect
import os
import threading

from .base import MXNetError

__all__ = ["is_np_shape", "set_np_shape", "np_shape", "use_np_shape", "is_np_array",
           "set_np_array",
           "set_np", "reset_np", "np_array", "use_np_array", "use_np", "makedirs",
           "get_gpu_count", "get_gpu_memory", "getenv", "setenv", "set_module"]


class _State(threading.local):
    """Per thread: the two settings, off until a thread turns them on (class defaults: a
    thread that never set one reads it without a failed lookup, on every operator call)."""

    np_shape = False
    np_array = False


_state = _State()


class _Switch:
    """``with switch(True):`` -- one per-thread setting on for the block, then back."""

    setter = None

    def __init__(self, active=True):
        self.active = active
        self.previous = None

    def __enter__(self):
        self.previous = type(self).setter(self.active)
        return self

    def __exit__(self, *exc_info):
        type(self).setter(self.previous)


def _set(name, active):
    previous = getattr(_state, name, False)
    setattr(_state, name, bool(active))
    return previous


def is_np_shape():
    """Whether NumPy shape semantics are on in this thread (off by default)."""
    return _state.np_shape


def set_np_shape(active):
    """Turn NumPy shape semantics on or off for this thread; returns the previous value."""
    return _set("np_shape", active)


class np_shape(_Switch):  # noqa: N801 (MXNet's name)
    """``with mx.np_shape(True):`` -- NumPy shape semantics for the block."""

    setter = staticmethod(set_np_shape)


def use_np_shape(function):
    """Decorator: run ``function`` (or every method of a class) with NumPy shape semantics."""
    return _decorate(function, [np_shape], dunders=())


def is_np_array():
    """Whether ``mx.np`` array semantics are on in this thread (``npx.set_np()``)."""
    return _state.np_array


def set_np_array(active):
    """Turn ``mx.np`` array semantics on or off for this thread; returns the previous value."""
    return _set("np_array", active)


class np_array(_Switch):  # noqa: N801 (MXNet's name)
    """``with mx.util.np_array(True):`` -- ``mx.np`` array semantics for the block."""

    setter = staticmethod(set_np_array)


# MXNet's private name for this scope; programs (MXNet's own test_thread_local.py) import it.
_NumpyArrayScope = np_array


def _decorate(function, scopes, dunders=("__init__", "__call__")):
    """Run ``function`` (or a class's methods, and of its ``__`` methods the ``dunders``)
    inside the ``scopes`` (switches, entered on)."""
    if inspect.isclass(function):       # its own methods and those it inherits, as MXNet's
        for name, method in inspect.getmembers(function, inspect.isfunction):
            if not name.startswith("__") or name in dunders:
                setattr(function, name, _decorate(method, scopes, dunders))
        return function

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with contextlib.ExitStack() as stack:
            for scope in scopes:
                stack.enter_context(scope())
            return function(*args, **kwargs)
    return wrapper


def use_np_array(function):
    """Decorator: run ``function`` (or a class's methods) with ``mx.np`` array semantics."""
    return _decorate(function, [np_array])


def use_np(function):
    """Decorator: NumPy shapes and ``mx.np`` arrays for ``function`` (or a class's methods)."""
    return _decorate(function, [np_shape, np_array])


def set_np(shape=True, array=True, dtype=False):
    """``npx.set_np()``: NumPy shape and array semantics on for this thread.

    ``dtype=True`` (NumPy's float64 default instead of MXNet's float32) is refused: minimx
    keeps MXNet's float32 default."""
    if dtype:
        raise NotImplementedError("set_np(dtype=True): minimx keeps MXNet's float32 default "
                                  "dtype; NumPy's float64 default is not implemented")
    if array and not shape:
        raise ValueError("set_np: NumPy arrays need NumPy shapes (shape=True)")
    set_np_shape(shape)
    set_np_array(array)


def reset_np():
    """``npx.reset_np()``: back to MXNet's legacy shapes and ``nd`` arrays."""
    set_np_shape(False)
    set_np_array(False)


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


def serve_on_first_use(module_globals, names, make):
    """Make a module's ``names`` on first use (PEP 562): the module's ``__getattr__`` calls
    ``make(name)`` the first time a program asks for one of them and keeps the value in the
    module, and its ``__dir__`` lists them all along (``dir``, tab completion; ``from module
    import name`` asks ``__getattr__`` too).  A ``__getattr__`` the module had already
    answers every other name.  ``import minimx`` uses it for what a first program does not
    touch: the operator functions of the frontends, and whole subpackages."""
    earlier = module_globals.get("__getattr__")
    module_name = module_globals.get("__name__")

    def __getattr__(name):
        if name not in names:
            if earlier is not None:
                return earlier(name)
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = module_globals[name] = make(name)
        return value

    def __dir__():
        return sorted(set(module_globals) | set(names))

    module_globals["__getattr__"] = __getattr__
    module_globals["__dir__"] = __dir__
