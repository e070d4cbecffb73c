"""NDArray: a lazily computed array on a device, ordered by the engine.

Lesson: 02-ndarray-and-context, 05-lazy-evaluation.  Mirrors ``python/mxnet/ndarray/ndarray.py``
and ``include/mxnet/ndarray.h``.

An NDArray is a view on a ``Chunk``: one backend buffer plus the engine var
that orders every read and write of it.  Shape and dtype are known at once;
the buffer is filled when the engine runs the operation that writes it.
Slicing the first axis and ``reshape`` give views sharing the chunk, as in
MXNet; every other operation makes a new chunk.
"""
import math
import sys
import warnings

import numpy as np

from .. import backend, engine
from ..base import GradientError, InvalidShapeError, InvalidTypeError, MXNetError
from ..context import Context
from ..tape import recording

__all__ = ["NDArray", "Chunk", "py_slice"]

py_slice = slice          # MXNet's name for the built-in slice (``nd.slice`` is an operator)
# MXNet's storage type ids
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {value: key for key, value in _STORAGE_TYPE_STR_TO_ID.items()}
# What asnumpy() hands back: numpy's own array, or -- while minimx.compat runs MXNet 1.x code
# on numpy 2 -- a view of it as a subclass that converts one element to a number as numpy 1 did
_asnumpy_view_type = None


def set_asnumpy_view_type(array_type):
    """Make ``asnumpy()`` return its copies viewed as ``array_type`` (a numpy.ndarray
    subclass), or as plain numpy arrays again with ``None``.  ``minimx.compat`` uses it."""
    global _asnumpy_view_type
    _asnumpy_view_type = array_type


def _sole_view(value):
    """Whether ``value``, a view, may be stored as a chunk's buffer without a copy: it is a
    numpy view of *all* of a writable numpy array that owns its memory and that nothing
    but this view refers to -- a temporary the operator made and handed back reshaped
    (``fmax(x.reshape(-1, 256), row).reshape(x.shape)``).  No other array or chunk can see
    that memory, so the view owns it as a chunk must.  (``getrefcount`` counts the view's
    ``base`` link, the name ``base`` here and its own argument: 3.  A view of an input
    chunk's buffer, of an array an operator keeps, or of one returned twice has more and
    is copied.)"""
    base = value.base
    return (type(base) is np.ndarray and type(value) is np.ndarray
            and sys.getrefcount(base) == 3 and base.flags.owndata
            and base.nbytes == value.nbytes and value.flags.writeable)


class Chunk:
    """One buffer on one device and the engine var that guards it.

    Invariant: ``data`` is C-contiguous and owned by this chunk alone, so
    writing into it in place never changes another chunk -- except a ``pinned``
    chunk, whose memory is shared with another library through DLPack on purpose.
    """

    __slots__ = ("data", "var", "ctx", "pinned")

    def __init__(self, ctx, data=None, pinned=False):
        self.data = data
        self.var = engine.new_var()
        self.ctx = ctx
        # shared with another library through DLPack: results are written into ``data``
        # instead of replacing it, so both sides keep seeing one memory
        self.pinned = pinned


class NDArray:
    """An n-dimensional array on a device; operations on it run in the engine.

    Examples
    --------
    >>> x = nd.ones((2, 3))
    >>> (x * 2 + 1).asnumpy()
    array([[3., 3., 3.],
           [3., 3., 3.]], dtype=float32)
    """

    __slots__ = ("_chunk", "_shape", "_dtype", "_view", "_autograd", "_grad", "_reader",
                 "__weakref__")
    __array_priority__ = 1000.0      # numpy defers to NDArray's reflected operators

    def __init__(self, chunk, shape, dtype, view=None):
        self._chunk = chunk
        self._shape = shape if type(shape) is tuple else tuple(shape)
        self._dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self._view = view             # None, or steps on chunk.data: an int/slice, a shape
        #                               tuple, or a basic key tuple ending in ... (np views)
        self._autograd = None         # (tape node, output index) while in a recorded graph
        self._grad = None
        self._reader = None           # weak reference to the last recorded call that read it

    @classmethod
    def _empty(cls, shape, dtype, ctx):
        """A new NDArray whose buffer some operation will write."""
        return cls(Chunk(ctx), shape, dtype)

    # -- raw buffer access, used inside engine operations ---------------------------
    def _read(self):
        data = self._chunk.data
        if self._view is None:
            return data
        for step in self._view:     # a shape tuple reshapes; a key (ending in ...) indexes
            data = data.reshape(step) if isinstance(step, tuple) and Ellipsis not in step \
                else data[step]
        return data

    def _write(self, value):
        """Store ``value`` (a backend array of this shape) into the buffer."""
        chunk = self._chunk
        if not hasattr(value, "dtype") or not hasattr(value, "flags"):
            value = backend.get_xp(chunk.ctx).asarray(value)
        if value.dtype != self._dtype:
            value = value.astype(self._dtype)
        if self._view is not None:
            self._read()[...] = value.reshape(self._shape)
            return
        if value.shape != self._shape:
            value = value.reshape(self._shape)
        if chunk.pinned:
            chunk.data[...] = value
            return
        if (value.base is not None and not _sole_view(value)) or not value.flags.c_contiguous:
            value = value.copy()
        chunk.data = value

    def _detached(self):
        """Another NDArray on the same buffer, outside any recorded graph."""
        return type(self)(self._chunk, self._shape, self._dtype, self._view)

    # -- description -------------------------------------------------------------------
    @property
    def shape(self):
        """Tuple of dimensions."""
        return self._shape

    @property
    def size(self):
        """Number of elements."""
        return int(math.prod(self._shape))      # (np.prod of a tuple costs 20x more)

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def dtype(self):
        """The numpy type of the elements, e.g. ``numpy.float32`` (MXNet returns the type)."""
        return self._dtype.type

    @property
    def context(self):
        """The device this array lives on."""
        return self._chunk.ctx

    ctx = context

    stype = "default"      # storage type; CSRNDArray and RowSparseNDArray say 'csr', 'row_sparse'

    @property
    def T(self):
        """The transpose (2-D and beyond: all axes reversed)."""
        return self.transpose()

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d NDArray")
        return self._shape[0]

    def __repr__(self):
        shape = "x".join(str(size) for size in self._shape)
        return f"\n{self.asnumpy()}\n<NDArray {shape} @{self.context}>"

    __str__ = __repr__

    def __hash__(self):
        return id(self)

    # -- sync points: leaving the engine ---------------------------------------------------
    def wait_to_read(self):
        """Block until the value is computed; raise the error of the op that failed to."""
        engine.wait_for_var(self._chunk.var)

    def to_dlpack_for_read(self):
        """A DLPack capsule over this buffer once its writes are done (``nd.to_dlpack_for_read``)."""
        from .dlpack import to_dlpack_for_read
        return to_dlpack_for_read(self)

    def to_dlpack_for_write(self):
        """A DLPack capsule over this buffer once its reads and writes are done."""
        from .dlpack import to_dlpack_for_write
        return to_dlpack_for_write(self)

    def asnumpy(self):
        """A numpy copy of the value (waits for it)."""
        self.wait_to_read()
        engine.raise_if_no_value(self._chunk.var)
        value = backend.to_numpy(self._read())
        return value if _asnumpy_view_type is None else value.view(_asnumpy_view_type)

    def asscalar(self):
        """The value of a one-element array as a Python/numpy scalar (waits for it)."""
        if self.size != 1:
            raise InvalidShapeError(f"asscalar() needs an array of one element, got shape "
                                    f"{self._shape}")
        return self.asnumpy().reshape(())[()]

    def __array__(self, dtype=None, copy=None):
        value = self.asnumpy()
        return value if dtype is None else value.astype(dtype)

    def __bool__(self):
        if self.size == 0:
            return False          # MXNet: an empty array is false
        if self.size != 1:
            raise ValueError("the truth value of an NDArray with more than one element is "
                             "ambiguous; use a.asnumpy().any() or .all()")
        return bool(self.asscalar())

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __index__(self):
        if not np.issubdtype(self._dtype, np.integer):
            raise TypeError("only integer NDArrays can be used as an index")
        return int(self.asscalar())

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]

    def __getstate__(self):
        """MXNet's pickled state: ``{'handle': bytearray}``, the array as ``nd.save`` writes
        one record (so an NDArray pickled by MXNet unpickles here, and the reverse)."""
        from .utils import encode_one
        return {"handle": bytearray(encode_one(self))}

    def __setstate__(self, state):
        from .utils import decode_one
        value = decode_one(state["handle"])
        self.__init__(value._chunk, value._shape, value._dtype)

    # -- devices and copies -----------------------------------------------------------------
    def copyto(self, other):
        """Copy into ``other`` (an NDArray, possibly on another device) or onto a Context."""
        if isinstance(other, Context):
            target = type(self)._empty(self._shape, self._dtype, other)
            if recording.is_recording() and self._in_live_graph() and other == self.context:
                from .dispatch import recorded_copy      # (dispatch imports this module)
                return recorded_copy(self, target)      # ``x.copy()``: the gradient flows
        elif isinstance(other, NDArray):
            if other is self:           # as MXNet: a warning, and nothing to copy
                warnings.warn("You are attempting to copy an array to itself", stacklevel=2)
                return other
            if other._shape != self._shape:
                raise MXNetError(f"copyto: shape mismatch, source {self._shape} vs "
                                 f"target {other._shape}")
            other._check_grad_free_write()
            if (recording.is_recording() and self._in_live_graph()
                    and other.context == self.context):
                from .dispatch import recorded_copy      # (dispatch imports this module)
                return recorded_copy(self, other)
            target = other
        else:
            raise InvalidTypeError(f"copyto: expected an NDArray or Context, got {type(other)}")
        source = self
        backend.get_xp(target.context)      # an unavailable device fails here, not at a sync

        def copy():
            target._write(backend.from_numpy(source._read(), target.context))

        engine.push(copy, [source._chunk.var], [target._chunk.var], target.context,
                    f"_copyto({self.context}->{target.context})",
                    small=engine.is_small([self._shape]))
        return target

    def as_in_context(self, context):
        """This array if it is on ``context`` already, else a copy there."""
        if self.context == context:
            return self
        return self.copyto(context)

    def copy(self):
        """A deep copy on the same device."""
        return self.copyto(self.context)

    def astype(self, dtype, copy=True):
        """A copy converted to ``dtype`` (``copy=False`` returns self when it already is)."""
        from . import register
        if not copy and np.dtype(dtype) == self._dtype:
            return self
        return register.call("Cast", self, dtype=np.dtype(dtype).name)

    def as_nd_ndarray(self):
        """This array as an ``nd`` NDArray (itself: it is one)."""
        return self

    def as_np_ndarray(self):
        """The same buffer as an ``mx.np.ndarray`` (no copy), as MXNet's."""
        from ..numpy.multiarray import ndarray
        return self._as_class(ndarray)

    def _as_class(self, cls):
        """This array's buffer, view and place in a recorded graph, as an array of ``cls``
        (``nd.NDArray`` or ``np.ndarray``: two frontends' classes over one buffer)."""
        if type(self) is cls:
            return self
        other = cls(self._chunk, self._shape, self._dtype, self._view)
        other._autograd, other._grad = self._autograd, self._grad
        return other

    def split_v2(self, indices_or_sections, axis=0, squeeze_axis=False):
        """``nd.split_v2(self, ...)``: equal parts or parts between positions."""
        from .functions import split_v2
        return split_v2(self, indices_or_sections, axis=axis, squeeze_axis=squeeze_axis)

    def tostype(self, stype):
        """A copy in storage type ``stype`` ('default', 'csr', 'row_sparse')."""
        from .sparse_array import cast_storage
        return cast_storage(self, stype)

    @property
    def engine_var(self):
        """The engine ``Var`` that orders every read and write of this array's buffer (views
        of one buffer share it).  Engine events name vars by ``var.id``."""
        return self._chunk.var

    # -- autograd ------------------------------------------------------------------------------
    def attach_grad(self, grad_req="write", stype=None):
        """Allocate a gradient buffer (zeros) and mark this array as a variable."""
        from ..autograd import mark_variables
        from .sparse import zeros
        from .sparse_array import check_host_context
        check_host_context("attach_grad", stype or self.stype, self.context)
        gradient = zeros(stype or self.stype, self._shape, ctx=self.context, dtype=self._dtype)
        if gradient.stype == "default" and self.stype == "default":
            gradient = gradient._as_class(type(self))
        mark_variables([self], [gradient], grad_reqs=grad_req)

    @property
    def grad(self):
        """The gradient buffer attached by ``attach_grad``.

        MXNet returns None when there is none; minimx raises, so the mistake
        is found where it is made rather than at a later ``None`` error.
        """
        if self._grad is None:
            raise GradientError(
                f"this NDArray (shape {self._shape}) has no gradient buffer: call "
                f"x.attach_grad() before autograd.record() to get x.grad")
        return self._grad

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Compute gradients of this array with respect to the marked variables."""
        from ..autograd import backward
        backward([self], None if out_grad is None else [out_grad], retain_graph, train_mode)

    def detach(self):
        """The same values, cut off from the recorded graph."""
        return self._detached()

    # -- shape views ------------------------------------------------------------------------
    def reshape(self, *shape, **kwargs):
        """A view with a new shape; MXNet's codes 0, -1, -2, -3, -4 and ``reverse`` work."""
        from . import shape_view
        return shape_view.reshape(self, shape, **kwargs)

    # ``inplace=True`` gives a view sharing this array's buffer (MXNet's methods do so)
    def flatten(self, inplace=False):
        """``(batch, -1)``: every axis but the first folded into one."""
        if inplace:
            return self.reshape((self._shape[0] if self._shape else 1, -1))
        from . import op
        return op.Flatten(self)

    def expand_dims(self, axis, inplace=False):
        """A new axis of size 1 at ``axis``."""
        if not inplace:
            from . import op
            return op.expand_dims(self, axis=axis)
        shape = list(self._shape)
        shape.insert(axis if axis >= 0 else len(shape) + 1 + axis, 1)
        return self.reshape(shape)

    def squeeze(self, axis=None, inplace=False):
        """The axes of size 1 removed (or just ``axis``)."""
        if not inplace:
            from . import op
            return op.squeeze(self, axis=axis)
        axes = range(len(self._shape)) if axis is None else \
            [a % len(self._shape) for a in (axis if isinstance(axis, (tuple, list)) else [axis])]
        shape = [size for index, size in enumerate(self._shape)
                 if not (index in axes and size == 1)]
        return self.reshape(shape or [1])

    def __getitem__(self, key):
        from . import indexing
        return indexing.getitem(self, key)

    def __setitem__(self, key, value):
        from . import indexing
        indexing.setitem(self, key, value)

    def _in_live_graph(self):
        """Part of a recorded graph that a backward may still walk: a variable
        (``attach_grad``), the output of a recorded call, or an array a recorded call read
        (its gradient may need the value read), until a backward frees that call."""
        entry = self._autograd
        if entry is not None and not entry[0].freed:
            return True
        reader = self._reader() if self._reader is not None else None
        return reader is not None and not reader.freed

    def _check_grad_free_write(self, reason=None):
        """The rule of MXNet's autograd: while recording, no in-place write (``+=``,
        ``x[i] = y``, ``out=x``, ``copyto(x)``) into an array of the recorded graph -- the
        gradient would be computed from a value that is gone.  ``reason``: another cause
        the caller found (the value written comes from the graph)."""
        if not recording.is_recording():
            return
        if reason is None and self._in_live_graph():
            reason = "it is part of the recorded graph"
        if reason is not None:
            raise GradientError(
                f"Inplace operations (+=, -=, x[:]=, etc) are not supported when recording "
                f"with autograd: cannot write in place into this NDArray (shape {self._shape}) "
                f"because {reason}; write outside autograd.record() or after backward(), or "
                f"compute a new array (y = x + 1) instead")

    # -- arithmetic: see arithmetic.py ------------------------------------------------------------
    def __add__(self, other):
        return _arith.add(self, other)

    def __radd__(self, other):
        return _arith.add(self, other)

    def __sub__(self, other):
        return _arith.subtract(self, other)

    def __rsub__(self, other):
        return _arith.subtract(other, self)

    def __mul__(self, other):
        return _arith.multiply(self, other)

    def __rmul__(self, other):
        return _arith.multiply(self, other)

    def __truediv__(self, other):
        return _arith.divide(self, other)

    def __rtruediv__(self, other):
        return _arith.divide(other, self)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __floordiv__(self, other):
        return _arith.floor_divide(self, other)

    def __mod__(self, other):
        return _arith.modulo(self, other)

    def __rmod__(self, other):
        return _arith.modulo(other, self)

    def __pow__(self, other):
        return _arith.power(self, other)

    def __rpow__(self, other):
        return _arith.power(other, self)

    def __neg__(self):
        return _arith.negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _arith.absolute(self)

    def __eq__(self, other):
        return _arith.equal(self, other)

    def __ne__(self, other):
        return _arith.not_equal(self, other)

    def __gt__(self, other):
        return _arith.greater(self, other)

    def __ge__(self, other):
        return _arith.greater_equal(self, other)

    def __lt__(self, other):
        return _arith.lesser(self, other)

    def __le__(self, other):
        return _arith.lesser_equal(self, other)

    def __iadd__(self, other):
        return _arith.add(self, other, out=self)

    def __isub__(self, other):
        return _arith.subtract(self, other, out=self)

    def __imul__(self, other):
        return _arith.multiply(self, other, out=self)

    def __itruediv__(self, other):
        return _arith.divide(self, other, out=self)

    def __imod__(self, other):
        return _arith.modulo(self, other, out=self)


from . import arithmetic as _arith  # noqa: E402  (arithmetic needs NDArray defined first)
