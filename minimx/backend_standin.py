"""A strict stand-in for CuPy: numpy underneath, CuPy's refusals on top.

Lesson: 15-gpus-with-cupy.  ``backend.use_stand_in_gpu(n)`` makes ``mx.gpu(i)`` run on
this module when a machine has no GPU.  Its arrays (``DeviceArray``) are a type of their own
that wraps a numpy array, and they refuse what a CuPy array refuses, with CuPy's error kind:

- mixing with a numpy array in a ufunc, an operator or a function (``TypeError``), so a
  kernel that calls ``np.`` where it meant ``xp.`` on data that crossed over fails here as
  it would on a GPU;
- implicit conversion to the host (``numpy.asarray(x)``, ``__array__``, the buffer
  protocol: ``TypeError``); only ``x.get()`` and ``xp.asnumpy(x)`` copy to the host, and
  ``xp.array`` / ``xp.asarray`` copy a host array onto the device;
- functions CuPy does not have (``AttributeError``, as on the ``cupy`` module);
- computing on an array that lives on another device than the current one (``ValueError``,
  as CuPy between devices without peer access): an operator on ``gpu(1)`` must run with
  ``gpu(1)`` current, as ``backend.device_scope`` makes it.

A numpy function called on device arrays only is passed to this module, as CuPy's
``__array_function__`` does; reductions give 0-d device arrays, never numpy scalars.
What it cannot check is what only a GPU shows: speed, streams, the memory pool.
"""
import contextlib
import threading

import numpy

__all__ = ["DeviceArray", "StrictStandIn", "IMPLICIT_CONVERSION", "host_copies"]

IMPLICIT_CONVERSION = ("Implicit conversion to a NumPy array is not allowed. "
                       "Please use `.get()` to construct a NumPy array explicitly.")

# numpy names the cupy module lacks (a call fails there, so it fails here)
_NOT_IN_CUPY = frozenset({
    "errstate", "seterr", "geterr", "nditer", "memmap", "recarray", "record", "char", "ma",
    "ctypeslib", "busday_count", "datetime_as_string", "frompyfunc",
})
# functions that copy a host array onto the device (the explicit way in)
_HOST_TO_DEVICE = frozenset({"array", "asarray", "asanyarray"})


_current = threading.local()        # the current stand-in device of each thread
_copies_to_host = [0]               # how many device arrays were copied to the host


def host_copies():
    """How many device arrays ``get()`` (or ``asnumpy``) has copied to the host so far."""
    return _copies_to_host[0]


class Device:
    """A stand-in device (``cupy.cuda.Device``): its ``id``."""

    def __init__(self, device_id):
        self.id = device_id

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    __hash__ = None

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


def current_device():
    return getattr(_current, "id", 0)


@contextlib.contextmanager
def use_device(device_id):
    """Make stand-in device ``device_id`` current in this thread (``cupy.cuda.Device``)."""
    previous, _current.id = current_device(), device_id
    try:
        yield
    finally:
        _current.id = previous


def _unsupported(value):
    return TypeError(f"Unsupported type {type(value)}")


def _to_numpy_args(value, copying=False):
    """The numpy arrays under ``value``'s device arrays.  A numpy array, or a device array
    on another device than the current one, is refused -- unless ``copying`` (the explicit
    copies onto the current device: ``xp.array``, ``xp.asarray``)."""
    if isinstance(value, DeviceArray):
        if value._device != current_device() and not copying:
            raise ValueError(
                f"The device where the array resides ({value._device}) is different from "
                f"the current device ({current_device()}). Peer access is unavailable "
                f"between these devices.")
        return value._data
    if isinstance(value, numpy.ndarray) and not copying:
        raise _unsupported(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy_args(item, copying) for item in value)
    return value


def _to_device(value, device=None):
    """Results back on the device: arrays and numpy scalars become device arrays (on
    ``device``, else the current one)."""
    if isinstance(value, numpy.ndarray):
        return DeviceArray(value, device)
    if isinstance(value, numpy.generic):
        return DeviceArray(numpy.asarray(value), device)
    if isinstance(value, tuple):
        return tuple(_to_device(item, device) for item in value)
    if isinstance(value, list):
        return [_to_device(item, device) for item in value]
    if isinstance(value, (numpy.random.Generator, numpy.random.RandomState)):
        return _StrictNamespace(value, "cupy.random")
    return value


def _device_call(function, args, kwargs):
    out = kwargs.get("out")
    result = function(*_to_numpy_args(args),
                      **{key: _to_numpy_args(value) for key, value in kwargs.items()})
    if out is not None:         # ``x += y``, ``out=x``: x itself, as numpy and CuPy give
        return out[0] if isinstance(out, tuple) and len(out) == 1 else out
    return _to_device(result)


class DeviceArray(numpy.lib.mixins.NDArrayOperatorsMixin):
    """An array on a stand-in device: numpy's data, reachable only by an explicit copy."""

    __hash__ = None

    def __init__(self, data, device=None):
        self._data = data
        self._device = current_device() if device is None else device

    @property
    def device(self):
        return Device(self._device)

    # -- the explicit ways out --------------------------------------------------------
    def get(self, stream=None, order="C", out=None):
        """A copy on the host (``cupy.ndarray.get``)."""
        _copies_to_host[0] += 1
        if out is not None:
            out[...] = self._data
            return out
        return numpy.array(self._data, order=order, copy=True)

    def set(self, array):
        """Copy a host array into this one (``cupy.ndarray.set``)."""
        if not isinstance(array, numpy.ndarray) or array.shape != self.shape:
            raise ValueError("set() needs a numpy array of the same shape")
        self._data[...] = array

    def __array__(self, *args, **kwargs):
        raise TypeError(IMPLICIT_CONVERSION)

    # -- numpy's protocols: device arrays only ----------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _device_call(getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, function, types, args, kwargs):
        if function.__name__ in _NOT_IN_CUPY:
            return NotImplemented
        return _device_call(function, args, kwargs)

    # -- attributes, indexing, Python's conversions ------------------------------------
    shape = property(lambda self: self._data.shape, lambda self, v: self._set_shape(v))
    dtype = property(lambda self: self._data.dtype)
    ndim = property(lambda self: self._data.ndim)
    size = property(lambda self: self._data.size)
    itemsize = property(lambda self: self._data.itemsize)
    nbytes = property(lambda self: self._data.nbytes)
    strides = property(lambda self: self._data.strides)
    flags = property(lambda self: self._data.flags)
    T = property(lambda self: self._view(self._data.T))
    real = property(lambda self: self._view(self._data.real))
    imag = property(lambda self: self._view(self._data.imag))
    base = property(lambda self: None if self._data.base is None else self._view(self._data.base))

    def _view(self, data):
        return DeviceArray(data, self._device)

    def _set_shape(self, shape):
        self._data.shape = shape

    def __getattr__(self, name):
        if name.startswith("__") or name in ("ctypes", "data"):
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        attribute = getattr(self._data, name)
        if callable(attribute):
            return lambda *args, **kwargs: self._on_my_device(attribute, args, kwargs)
        return _to_device(attribute, self._device)

    def _on_my_device(self, method, args, kwargs):
        with use_device(self._device):       # a method's result stays on the array's device
            return _device_call(method, args, kwargs)

    def __getitem__(self, key):
        return _to_device(self._data[_index(key)], self._device)

    def __setitem__(self, key, value):
        if isinstance(value, numpy.ndarray) and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._data[_index(key)] = value._data if isinstance(value, DeviceArray) else value

    def __len__(self):
        return len(self._data)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        return bool(self._data)

    def __float__(self):
        return float(self._data)

    def __int__(self):
        return int(self._data)

    def __complex__(self):
        return complex(self._data)

    def __copy__(self):
        return self._view(self._data.copy())

    def __deepcopy__(self, memo):
        return self._view(self._data.copy())

    def __reduce__(self):
        return DeviceArray, (self._data, self._device)

    def __repr__(self):
        return repr(self._data)

    def __str__(self):
        return str(self._data)

    def __format__(self, spec):
        return format(self._data, spec)


def _index(key):
    """An index for the numpy data: host index arrays are copied over, as CuPy does."""
    if isinstance(key, tuple):
        return tuple(_index(part) for part in key)
    return key._data if isinstance(key, DeviceArray) else key


class _StrictNamespace:
    """numpy's functions (or a generator's methods) over device arrays."""

    def __init__(self, target, name):
        self._target, self._name = target, name

    def __getattr__(self, name):
        if name in _NOT_IN_CUPY or name.startswith("__"):
            raise AttributeError(f"module '{self._name}' has no attribute '{name}'")
        attribute = getattr(self._target, name)
        if name == "ndarray":
            return DeviceArray
        if isinstance(attribute, type(numpy)):
            return _StrictNamespace(attribute, f"{self._name}.{name}")
        if isinstance(attribute, type) or not callable(attribute):
            return attribute
        if name in _HOST_TO_DEVICE:
            return lambda *args, **kwargs: _to_device(
                attribute(*_to_numpy_args(args, copying=True),
                          **{k: _to_numpy_args(v, copying=True) for k, v in kwargs.items()}))
        if isinstance(attribute, numpy.ufunc):
            return _StrictUfunc(attribute)
        return lambda *args, **kwargs: _device_call(attribute, args, kwargs)

    def __repr__(self):
        return f"<strict stand-in for {self._name}>"


class _StrictUfunc:
    """A ufunc over device arrays, with its methods (``xp.add.at``, ``.reduce``)."""

    def __init__(self, ufunc):
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        return _device_call(self._ufunc, args, kwargs)

    def __getattr__(self, name):
        attribute = getattr(self._ufunc, name)
        if callable(attribute):
            return lambda *args, **kwargs: _device_call(attribute, args, kwargs)
        return attribute


class StrictStandIn(_StrictNamespace):
    """The module ``get_xp(mx.gpu(i))`` returns on a stand-in device."""

    __name__ = "minimx.backend_standin"

    def __init__(self):
        super().__init__(numpy, "cupy")

    @staticmethod
    def asnumpy(array, stream=None, order="C", out=None):
        """A host copy of ``array`` (``cupy.asnumpy``)."""
        if isinstance(array, DeviceArray):
            return array.get(order=order, out=out)
        return numpy.asarray(array, order=order)

    @staticmethod
    def get_array_module(*arrays):
        if any(isinstance(array, DeviceArray) for array in arrays):
            return STAND_IN
        return numpy


STAND_IN = StrictStandIn()
