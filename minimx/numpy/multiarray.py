"""``mx.np.ndarray``: an NDArray with NumPy's semantics.

Lesson: 03-two-frontends-one-engine.  Mirrors ``python/mxnet/numpy/multiarray.py``.

The class adds no storage and no engine path: an ``np.ndarray`` is an ``NDArray`` (same
chunk, var, tape entry and context), and every operation on it goes through the same
dispatcher, which gives results the class of their first input.  What this class changes is
what NumPy means differently from MXNet's ``nd``:

- a full index ``x[i, j]``, a reduction without ``axis`` and a vector ``dot`` are
  zero-dimensional (shape ``()``), where ``nd`` gives ``(1,)``;
- comparisons give ``bool`` arrays, where ``nd`` gives 1.0/0.0 in the input's dtype;
- indexing takes boolean masks (a sync point: the result's shape depends on the mask's
  values) besides ints, slices, ``None``, ``...`` and integer (or float32) index arrays;
- ``reshape`` reads ``0`` as a zero-size axis, not MXNet's "copy this axis";
- ``repr`` prints ``array([...])``, as NumPy does.
"""
import numbers

import numpy as onp

from ..base import InvalidTypeError
from ..ndarray import NDArray
from ..ndarray import indexing as nd_indexing
from ..ndarray.register import call
from ..op.registry import get_op
from ..tape import recording
from ..util import np_shape

__all__ = ["ndarray", "as_np", "zero_dim"]


def _operator(name, reflected=False):
    """``x <op> y`` on np arrays: the ``np`` function ``name`` (``reflected``: ``y <op> x``)."""
    found = []                  # the np function, looked up at the first call (ufuncs
    #                             imports this module)

    def method(self, other):
        if not found:
            from . import ufuncs
            found.append(getattr(ufuncs, name))
        return found[0](other, self) if reflected else found[0](self, other)
    method.__name__ = name
    return method


def _inplace(name):
    """``x <op>= y`` on np arrays: the ``np`` function ``name`` written into ``x`` (``out=``),
    so NumPy's promotion applies (``w *= mask`` multiplies by a bool array)."""
    def method(self, other):
        from . import ufuncs
        other_dtype = other.dtype if isinstance(other, NDArray) else \
            onp.result_type(other) if isinstance(other, (bool, int, float)) else None
        floating_into_exact = (isinstance(other, NDArray)
                               and onp.issubdtype(other.dtype, onp.floating)
                               and not onp.issubdtype(self.dtype, onp.floating))
        # a number into a bool array (``mask += 1``): NumPy and MXNet refuse it, the bool
        # result would be [True, True]
        into_bool = self.dtype == onp.bool_ and other_dtype is not None and \
            other_dtype != onp.bool_
        if floating_into_exact or into_bool:
            raise InvalidTypeError(f"np.{name} (in place): a {other_dtype} operand cannot be "
                                   f"written into a {self.dtype} array (expected the "
                                   f"array's own type or one that casts to it)")
        return getattr(ufuncs, name)(self, other, out=self)
    method.__name__ = name
    return method


class ndarray(NDArray):  # noqa: N801 (MXNet's name)
    """An n-dimensional array with NumPy's semantics, computed by minimx's engine."""

    __slots__ = ()

    # -- description --------------------------------------------------------------------
    @property
    def dtype(self):
        """The element type as a ``numpy.dtype`` (``nd`` returns the type), as MXNet's."""
        return self._dtype

    @property
    def T(self):
        return self.transpose()

    def __repr__(self):
        value = self.asnumpy()
        body = onp.array2string(value, separator=", ", prefix="array(")
        extras = "" if value.dtype in (onp.float32, onp.bool_) else f", dtype={value.dtype}"
        if self.context.device_type != "cpu":
            extras += f", ctx={self.context}"
        return f"array({body}{extras})"

    def __str__(self):
        return str(self.asnumpy())

    __hash__ = None        # as NumPy's arrays: unhashable, since == is element-wise

    def __format__(self, spec):
        """A zero-dimensional array formats as its number; others only without a spec."""
        if self.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError(f"unsupported format string {spec!r} passed to np.ndarray.__format__"
                            f" (only zero-dimensional arrays take one)")
        return str(self)

    def copy(self, order="C"):
        """A deep copy on the same device (C order only)."""
        if order != "C":
            raise NotImplementedError(f"copy: order={order!r}; only 'C' is supported")
        return self.copyto(self.context)

    def item(self, *args):
        """The element as a Python number (waits for the value)."""
        return self.asnumpy().item(*args)

    def tolist(self):
        return self.asnumpy().tolist()

    def as_nd_ndarray(self):
        """The same buffer as an ``nd.NDArray`` (no copy)."""
        return self._as_class(NDArray)

    def as_np_ndarray(self):
        return self

    def as_in_ctx(self, ctx):
        return self.as_in_context(ctx)

    def to_device(self, device):
        return self.as_in_context(device)

    @property
    def device(self):
        return self.context

    @property
    def grad(self):
        """The gradient buffer, or None where there is none, as MXNet's (``nd`` raises).
        A variable with ``grad_req='null'`` has none: MXNet 1.9.1 gives None after a
        backward (minimx from ``attach_grad`` on, where MXNet shows a zero buffer)."""
        entry = self._autograd
        if self._grad is None or (entry is not None and
                                  getattr(entry[0], "grad_req", None) == "null"):
            return None
        return self._grad

    # -- shape -------------------------------------------------------------------------------
    def reshape(self, *shape, order="C", **kwargs):
        """NumPy's reshape: ``-1`` is inferred, ``0`` is a zero-size axis."""
        if order != "C":
            raise NotImplementedError(f"reshape: order={order!r}; only 'C' is supported")
        if "newshape" in kwargs or "shape" in kwargs:
            shape = (kwargs.pop("newshape", None) or kwargs.pop("shape"),)
        if kwargs:
            raise TypeError(f"reshape: unexpected arguments {sorted(kwargs)}")
        target = numpy_reshape_target(self._shape, shape[0] if len(shape) == 1 else shape)
        if target == self._shape:
            return self
        if recording.is_recording() and self._autograd is not None:
            return call("_np_reshape", self, newshape=target)
        return ndarray(self._chunk, target, self._dtype, (self._view or ()) + (target,))

    def __iter__(self):
        """A zero-dimensional array iterates as an empty sequence, as MXNet 1.9.1's (its
        ``np.ndarray`` iterates by indexing until ``IndexError``, and ``x[0]`` of a scalar
        raises one): plotting libraries then take it for a number (d2l-en's statistics
        page: ``plt.axvline(x=np.mean(xs))``)."""
        if not self._shape:
            return iter(())
        return super().__iter__()

    # -- indexing ------------------------------------------------------------------------------
    def __getitem__(self, key):
        view = nd_indexing.basic_view(self, key)    # x[i, j], x[0, 0, 2:5]: a view
        if view is not None:
            return view
        if not _is_plain(key):
            if _is_bool_list(key):  # a list of bools is a mask (as MXNet's, in reads only)
                key = onp.asarray(key)
            if _is_mask(key) and key.ndim == 0:      # x[True] is x[None]; x[False] is empty
                return self[None] if bool(key) else self[None][0:0]
            key = mask_to_indices(key, self._shape)
        if _is_full_index(key, self.ndim):       # x[i], a recorded x[i, j]: shape ()
            return zero_dim(nd_indexing.getitem(self, key))
        with np_shape(True):                     # the indexing operator shapes as NumPy
            return nd_indexing.getitem(self, key)

    def __setitem__(self, key, value):
        # nd's rule while recording (ndarray/indexing.py): writing into an array of the graph
        # is refused, an array outside it may be written, as in MXNet's np
        if not _is_plain(key):
            if isinstance(key, tuple) and any(_is_bool(k) and not k for k in key):
                return              # a False among the indices selects nothing to write
            key = mask_to_indices(key, self._shape)
        nd_indexing.setitem(self, key, value)

    # -- operators are the np functions (dtype promotion; comparisons give bool) ------------
    __eq__ = _operator("equal")
    __ne__ = _operator("not_equal")
    __gt__ = _operator("greater")
    __ge__ = _operator("greater_equal")
    __lt__ = _operator("less")
    __le__ = _operator("less_equal")
    __add__, __radd__ = _operator("add"), _operator("add", reflected=True)
    __sub__, __rsub__ = _operator("subtract"), _operator("subtract", reflected=True)
    __mul__, __rmul__ = _operator("multiply"), _operator("multiply", reflected=True)
    __truediv__ = _operator("true_divide")
    __rtruediv__ = _operator("true_divide", reflected=True)
    __mod__, __rmod__ = _operator("mod"), _operator("mod", reflected=True)
    __pow__, __rpow__ = _operator("power"), _operator("power", reflected=True)

    def __neg__(self):
        """``-x``; a bool array negates as int64, as MXNet's np (``-mask`` is [-1, 0])."""
        return super().__neg__() if self._dtype != onp.bool_ else \
            super(ndarray, self.astype(onp.int64)).__neg__()

    __iadd__, __isub__ = _inplace("add"), _inplace("subtract")
    __imul__, __itruediv__ = _inplace("multiply"), _inplace("true_divide")

    # -- official NumPy functions on np arrays (NEP 18 and NEP 13) ----------------------------
    def __array_function__(self, func, types, args, kwargs):
        """``numpy.<f>(x)`` calls ``mx.np.<f>(x)``; host NumPy computes what minimx lacks."""
        from .host import call_on_host
        function = _own_function(func)
        result = call_on_host(func, args, kwargs) if function is None else \
            function(*args, **kwargs)
        if type(result) is list and func.__name__ in _TUPLES_ON_HOST:
            return tuple(result)        # the host NumPy's container, as its own call gives
        if type(result) is tuple and func.__name__ in _NAMED_ON_HOST:
            return _host_result_type(func)(result)
        return result

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """``numpy.exp(x)``, ``host_array + x``: the ``mx.np`` ufunc of the same name."""
        from .host import call_on_host
        function = _own_function(ufunc) if method == "__call__" else None
        if function is None:
            return call_on_host(getattr(ufunc, method), inputs, kwargs)
        return function(*inputs, **kwargs)

    def __matmul__(self, other):
        from .products import matmul
        return matmul(self, other)


# NumPy 2 gives tuples where NumPy 1 (and MXNet 1.9.1's mx.np, called directly) give lists
_TUPLES_ON_HOST = () if int(onp.__version__.split(".")[0]) < 2 else (
    "broadcast_arrays", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d")


# linalg functions of several results: NumPy 2 returns them as named tuples (``EigResult``
# with ``.eigenvalues`` ...), NumPy 1 and MXNet 1.9.1's mx.np as plain tuples
_NAMED_ON_HOST = ("eig", "eigh", "slogdet", "svd", "qr")
_RESULT_TYPES = {}


def _host_result_type(func):
    """A function turning a tuple of results into the container host NumPy's ``func`` returns
    (its type, asked of the host's own answer for a 1x1 matrix: NumPy keeps those types
    private)."""
    name = func.__name__
    if name not in _RESULT_TYPES:
        kind = type(func(onp.ones((1, 1))))
        _RESULT_TYPES[name] = tuple if kind is tuple else (lambda parts: kind(*parts))
    return _RESULT_TYPES[name]


def _own_function(func):
    """The ``mx.np`` function standing for NumPy's ``func`` (None: minimx has none)."""
    from .. import numpy as mx_np
    module = mx_np.linalg if (getattr(func, "__module__", None) or "").endswith("linalg") \
        else mx_np
    function = getattr(module, func.__name__, None)
    if not callable(function) or getattr(function, "on_host", False):
        return None
    return function


def as_np(array):
    """``array`` (an NDArray or a list/tuple of them) as ``np.ndarray``: same buffers."""
    if isinstance(array, (list, tuple)):
        return type(array)(as_np(item) for item in array)
    return array._as_class(ndarray) if isinstance(array, NDArray) else array


def zero_dim(array):
    """NumPy's zero-dimensional form of a one-element result MXNet's operator shapes ``(1,)``."""
    if recording.is_recording() and array._autograd is not None:
        return as_np(call("_np_reshape", array, newshape=()))
    return ndarray(array._chunk, (), array._dtype, (array._view or ()) + ((),))


def numpy_reshape_target(shape, newshape):
    """The shape NumPy's ``reshape`` gives ``shape`` for ``newshape`` (one ``-1`` inferred):
    the ``_np_reshape`` operator's own rule, so a size that does not fit raises its error
    (MXNet's ``MXNetError``, naming the operator and the shape asked for)."""
    if isinstance(newshape, (numbers.Integral, onp.integer)):
        newshape = (newshape,)
    newshape = tuple(int(size) for size in newshape)
    return tuple(get_op("_np_reshape").create(newshape=newshape).infer_shape(tuple(shape)))


def _is_plain(key):
    """Whether ``key`` is Python ints and slices only, which NumPy and ``nd`` read alike (no
    mask, bool, list or range to convert first)."""
    for item in key if type(key) is tuple else (key,):
        if type(item) is not int and type(item) is not slice:
            return False
    return True


def _is_full_index(key, ndim):
    """Whether ``key`` picks one element by an int per axis (NumPy gives shape ``()``)."""
    items = key if isinstance(key, tuple) else (key,)
    return len(items) == ndim and all(
        isinstance(item, (numbers.Integral, onp.integer)) and not isinstance(item, bool)
        for item in items)


def mask_to_indices(key, shape):
    """Boolean masks in ``key`` replaced by the integer index arrays of their true places
    (and ``range`` objects by integer arrays).

    A value-dependent shape: how many places are true is known only from the mask's values,
    so this waits for the mask (a sync point), as MXNet does."""
    if isinstance(key, range):
        key = onp.arange(key.start, key.stop, key.step)
    if isinstance(key, tuple):
        key = tuple(onp.arange(k.start, k.stop, k.step) if isinstance(k, range) else
                    None if _is_bool(k) and k else k for k in key)   # True: a new axis
        if not any(_is_mask(item) for item in key):
            return key
        parts = []
        for item in key:
            axis = sum(1 for part in parts if part is not None and part is not Ellipsis)
            parts.extend(_mask_positions(item, shape[axis:]) if _is_mask(item) else (item,))
        return tuple(parts)
    return tuple(_mask_positions(key, shape)) if _is_mask(key) else key


def _is_bool(item):
    return isinstance(item, (bool, onp.bool_))


def _is_bool_list(item):
    """Whether ``item`` is a (nested) Python list of bools, a mask written as a list."""
    return isinstance(item, list) and bool(item) and all(
        _is_bool_list(value) if isinstance(value, list) else
        isinstance(value, (bool, onp.bool_)) for value in item)


def _is_mask(item):
    if isinstance(item, NDArray):
        return item._dtype == onp.bool_
    if isinstance(item, onp.ndarray):
        return item.dtype == onp.bool_
    return False


def _mask_positions(mask, shape):
    from .value_shapes import wait_for_values
    if tuple(mask.shape) != tuple(shape[:mask.ndim]):
        raise IndexError(f"boolean index did not match indexed array: the mask has shape "
                         f"{tuple(mask.shape)}, the array's axes there are {tuple(shape)}")
    return [onp.asarray(positions) for positions in wait_for_values(mask).nonzero()]
