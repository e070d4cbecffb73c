"""Context: the device an array lives on, ``mx.cpu(i)`` or ``mx.gpu(i)``.

Lesson: 02-ndarray-and-context.  Mirrors MXNet's ``python/mxnet/context.py``.  ``with ctx:``
sets the default context of the current thread, as in MXNet.
"""
import threading

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "num_gpus", "current_context"]


class _ContextClass(type):
    """Gives the class MXNet's ``Context.default_ctx``: this thread's default, readable and
    settable on the class itself."""

    @property
    def default_ctx(cls):
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, ctx):
        cls._default.value = ctx


class Context(metaclass=_ContextClass):
    """A device: its type (``'cpu'`` or ``'gpu'``) and its id.

    Examples
    --------
    >>> with mx.cpu(0):
    ...     nd.ones((2,)).context
    cpu(0)
    """

    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {name: code for code, name in devtype2str.items()}
    _default = threading.local()

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        if isinstance(device_type, int):
            device_type = self.devtype2str[device_type]
        if device_type not in self.devstr2type:
            raise ValueError(f"unknown device type {device_type!r}; expected 'cpu' or 'gpu'")
        self.device_type = device_type
        self.device_id = int(device_id)
        self._previous = []

    @property
    def device_typeid(self):
        return self.devstr2type[self.device_type]

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __enter__(self):
        self._previous.append(current_context())
        Context._default.value = self
        return self

    def __exit__(self, *exc_info):
        Context._default.value = self._previous.pop()

    def empty_cache(self):
        """Release cached device memory (a no-op for cpu)."""
        from . import backend
        backend.empty_cache(self)


def cpu(device_id=0):
    """The CPU context. ``device_id`` only names it: all cores are used."""
    return Context("cpu", device_id)


def cpu_pinned(device_id=0):
    """Page-locked host memory; minimx treats it as ``cpu``."""
    return Context("cpu_pinned", device_id)


def gpu(device_id=0):
    """The context of GPU ``device_id``; arrays there use CuPy."""
    return Context("gpu", device_id)


def num_gpus():
    """How many GPUs minimx can use (0 without CuPy or a GPU)."""
    from . import backend
    return backend.num_gpus()


def current_context():
    """The default context of this thread: ``cpu(0)`` unless ``with ctx:`` says otherwise."""
    return getattr(Context._default, "value", None) or Context("cpu", 0)
