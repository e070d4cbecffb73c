"""CSRNDArray and RowSparseNDArray: NDArrays whose buffer holds a compressed value.

Lesson: 13-optimizers (sparse gradients).  Mirrors ``python/mxnet/ndarray/sparse.py``.

A sparse array is an NDArray like any other -- a chunk, its engine var, a shape and a dtype --
but the chunk holds a CSR matrix or a ``RowSparse`` value (``op/sparse_values.py``) instead of
a dense buffer.  Every computation on it is an engine push that reads and writes those vars,
so sparse arrays are as lazy as dense ones; ``asnumpy`` is a sync point.
"""
import pickle

import numpy as np

from .. import engine
from ..base import InvalidShapeError, InvalidStorageTypeError, InvalidTypeError, MXNetError
from ..context import Context
from ..op.sparse_values import INDEX_DTYPE, astype, from_dense, to_dense
from ..tape import recording
from .ndarray import NDArray

__all__ = ["BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray", "class_of", "push_value",
           "cast_storage", "check_host_context"]

HOST_DEVICES = ("cpu", "cpu_pinned", "cpu_shared")


def check_host_context(operator, stype, ctx):
    """Refuse a sparse array of ``stype`` on a device: minimx keeps sparse values in
    scipy.sparse, in host memory (MXNet also has GPU sparse kernels; minimx does not)."""
    if stype != "default" and ctx.device_type not in HOST_DEVICES:
        raise MXNetError(f"{operator}: cannot put a {stype!r} array on {ctx}: minimx keeps "
                         f"sparse storage on the CPU (scipy.sparse). Make it on mx.cpu(), or "
                         f"compute on {ctx} with a dense copy (tostype('default'))")


def push_value(compute, sources, target, name):
    """Push ``target <- compute(*values of sources)``: one engine operation that reads the
    sources' vars and writes the target's."""
    def run():
        target._write(compute(*[source._read() for source in sources]))

    engine.push(run, [source._chunk.var for source in sources], [target._chunk.var],
                target.context, name)
    return target


class BaseSparseNDArray(NDArray):
    """What CSR and row-sparse arrays share: a compressed value in the chunk."""

    __slots__ = ()

    @classmethod
    def _empty(cls, shape, dtype, ctx, operator="sparse storage"):
        """A new sparse array on ``ctx``, which must be the host (``check_host_context``);
        ``operator`` names the call that makes it in the refusal."""
        check_host_context(operator, cls.stype, ctx)
        return super()._empty(shape, dtype, ctx)

    def _write(self, value):
        if isinstance(value, NDArray) or not hasattr(value, "toarray"):
            value = from_dense(np.asarray(value).reshape(self._shape), self.stype)
        if value.dtype != self._dtype:
            value = astype(value, self._dtype)
        self._chunk.data = value

    def __repr__(self):
        shape = "x".join(str(size) for size in self._shape)
        return f"\n<{type(self).__name__} {shape} @{self.context}>"

    __str__ = __repr__

    def asnumpy(self):
        self.wait_to_read()
        engine.raise_if_no_value(self._chunk.var)
        return to_dense(self._read()).astype(self._dtype, copy=False)

    def _component(self, name, dtype):
        """``.data``/``.indices``/``.indptr``: a dense copy of one part of the value.  Its
        shape depends on the values stored, so this waits for them (as MXNet's does)."""
        self.wait_to_read()
        size = np.shape(getattr(self._read(), name))
        target = NDArray._empty(size, dtype, self.context)
        return push_value(lambda v: np.array(getattr(v, name), dtype=dtype), [self], target,
                          f"_sparse_{name}")

    @property
    def data(self):
        """The stored values (a dense NDArray)."""
        return self._component("data", self._dtype)

    @property
    def indices(self):
        """Column numbers (csr) or row numbers (row_sparse) of the stored values."""
        return self._component("indices", INDEX_DTYPE)

    def tostype(self, stype):
        """A copy in storage type ``stype`` ('default', 'csr', 'row_sparse')."""
        return cast_storage(self, stype)

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == self._dtype:
            return self
        target = type(self)._empty(self._shape, np.dtype(dtype), self.context, "astype")
        return push_value(lambda v: astype(v, np.dtype(dtype)), [self], target, "Cast")

    def copyto(self, other):
        """Copy into ``other`` (an NDArray of any storage type) or onto a Context."""
        if isinstance(other, Context):
            other = type(self)._empty(self._shape, self._dtype, other, "copyto")
        elif not isinstance(other, NDArray):
            raise InvalidTypeError(f"copyto: expected an NDArray or Context, got {type(other)}")
        elif other is self:
            return other
        if other._shape != self._shape:
            raise MXNetError(f"copyto: shape mismatch, source {self._shape} vs "
                             f"target {other._shape}")
        if other.stype == "default":
            return push_value(to_dense, [self], other, "_copyto")
        if other.stype != self.stype:
            return push_value(lambda v: from_dense(to_dense(v), other.stype), [self], other,
                              "cast_storage")
        return push_value(lambda v: astype(v, other._dtype), [self], other, "_copyto")

    def copy(self):
        return self.copyto(self.context)

    def __setitem__(self, key, value):
        """Only ``x[:] = value`` (an NDArray, numpy array or number), as in MXNet."""
        if not (isinstance(key, slice) and key == slice(None)):
            raise MXNetError(f"{type(self).__name__}: only x[:] = value is supported for "
                             f"assignment, got index {key!r}")
        if isinstance(value, NDArray):
            if value is not self:
                value.copyto(self)
            return
        dense = np.broadcast_to(np.asarray(value, dtype=self._dtype), self._shape)
        stype = self.stype
        push_value(lambda: from_dense(dense, stype), [], self, "_set_value")

    def check_format(self, full_check=True):
        """Raise if the stored value breaks its format's rules (as MXNet's check)."""
        self.wait_to_read()
        message = self._format_problem(self._read(), full_check)
        if message:
            raise MXNetError(f"{type(self).__name__}.check_format: {message}")

    def __getstate__(self):
        self.wait_to_read()
        return {"value": pickle.dumps(self._read()), "dtype": self._dtype.str,
                "ctx": (self.context.device_type, self.context.device_id)}

    def __setstate__(self, state):
        value = pickle.loads(state["value"])
        self.__init__(type(self)._empty(value.shape, state["dtype"], Context(*state["ctx"]),
                                        "unpickling")._chunk, value.shape, state["dtype"])
        self._chunk.data = value

    def _unsupported(self, what):
        raise MXNetError(f"{what} is not supported for {type(self).__name__} (storage type "
                         f"{self.stype!r}); convert with tostype('default') first")

    def reshape(self, *shape, **kwargs):
        self._unsupported("reshape")

    def __iadd__(self, other):
        return self._in_place("elemwise_add", other)

    def __isub__(self, other):
        return self._in_place("elemwise_sub", other)

    def __imul__(self, other):
        return self._in_place("elemwise_mul", other)

    def __itruediv__(self, other):
        return self._in_place("elemwise_div", other)

    def _in_place(self, name, other):
        from . import arithmetic
        operators = {"elemwise_add": arithmetic.add, "elemwise_sub": arithmetic.subtract,
                     "elemwise_mul": arithmetic.multiply, "elemwise_div": arithmetic.divide}
        operators[name](self, other).copyto(self)
        return self


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row format: ``data``, ``indices`` (columns) and
    ``indptr`` (row starts)."""

    __slots__ = ()
    stype = "csr"

    @property
    def indptr(self):
        return self._component("indptr", INDEX_DTYPE)

    def asscipy(self):
        """The value as a ``scipy.sparse.csr_matrix`` (a copy; waits for it)."""
        self.wait_to_read()
        return self._read().copy()

    def __getitem__(self, key):
        """Rows: ``x[i]`` or ``x[a:b]`` give a CSRNDArray of those rows."""
        from .sparse_dispatch import storage_call
        if isinstance(key, (int, np.integer)):
            index = int(key) + (self._shape[0] if key < 0 else 0)
            if not 0 <= index < self._shape[0]:
                raise IndexError(f"CSRNDArray: index {key} is out of bounds for axis 0 with "
                                 f"size {self._shape[0]}")
            key = slice(index, index + 1)
        if not isinstance(key, slice) or key.step not in (None, 1):
            raise MXNetError(f"CSRNDArray: only rows x[i] and x[a:b] can be taken, got "
                             f"index {key!r}")
        return storage_call("slice", [self], begin=(key.start,), end=(key.stop,))

    @staticmethod
    def _format_problem(value, full_check):
        indptr, indices = np.asarray(value.indptr), np.asarray(value.indices)
        if len(indptr) != value.shape[0] + 1:
            return f"indptr has {len(indptr)} entries, expected {value.shape[0] + 1}"
        if indptr[0] != 0 or indptr[-1] != len(indices) or np.any(np.diff(indptr) < 0):
            return "indptr must start at 0, end at nnz and never decrease"
        if full_check and len(indices):
            if np.any(indices < 0) or np.any(indices >= value.shape[1]):
                return f"indices must lie in [0, {value.shape[1]})"
            for row in range(value.shape[0]):
                if np.any(np.diff(indices[indptr[row]:indptr[row + 1]]) <= 0):
                    return f"the column indices of row {row} are not strictly ascending"
        return None


class RowSparseNDArray(BaseSparseNDArray):
    """An array of which only some rows are stored: ``data`` (those rows) and ``indices``
    (their row numbers, ascending)."""

    __slots__ = ()
    stype = "row_sparse"

    def retain(self, indices):
        """Keep only the stored rows whose numbers are in ``indices``."""
        from .sparse import retain
        return retain(self, indices)

    def __getitem__(self, key):
        if isinstance(key, slice) and key == slice(None):
            return self
        raise MXNetError(f"RowSparseNDArray: only x[:] can be taken, got index {key!r}")

    @staticmethod
    def _format_problem(value, full_check):
        indices = np.asarray(value.indices)
        if value.data.shape[0] != len(indices):
            return f"{value.data.shape[0]} stored rows but {len(indices)} indices"
        if full_check and len(indices):
            if np.any(np.diff(indices) <= 0):
                return "indices must be strictly ascending"
            if indices[0] < 0 or indices[-1] >= value.shape[0]:
                return f"indices must lie in [0, {value.shape[0]})"
        return None


_CLASSES = {"csr": CSRNDArray, "row_sparse": RowSparseNDArray, "default": NDArray}


def class_of(stype):
    """The NDArray class of a storage type ('default', 'csr', 'row_sparse')."""
    try:
        return _CLASSES[stype]
    except KeyError:
        raise InvalidStorageTypeError(f"unknown storage type {stype!r}; expected one of "
                         f"{sorted(_CLASSES)}") from None


def cast_storage(data, stype):
    """``nd.cast_storage``: the same values in storage type ``stype``."""
    target_class = class_of(stype)
    if stype == "csr" and len(data.shape) != 2:
        raise InvalidShapeError(f"cast_storage: csr storage needs a 2-D array, got shape "
                                f"{data.shape}")
    check_host_context("cast_storage", stype, data.context)
    if data._autograd is not None and recording.is_recording():
        return _recorded_cast(data, stype)
    target = target_class._empty(data.shape, data._dtype, data.context)
    if data.stype == stype:
        return data.copyto(target)
    if stype == "default":
        return push_value(to_dense, [data], target, "cast_storage")
    return push_value(lambda v: from_dense(to_dense(v), stype), [data], target, "cast_storage")



def _recorded_cast(data, stype):
    """``cast_storage`` of an array in a recorded graph: the cast stays in the graph, as
    MXNet records ``cast_storage``, and its gradient passes unchanged.  The recorded step
    is a dense copy (``_sparse_to_dense`` of a sparse array, ``cast_storage`` to 'default'
    of a dense one); a sparse result is that copy compressed, standing for the same graph
    value (the tape's operators compute on dense arrays)."""
    from ..op import get_op
    from . import dispatch
    from .sparse_dispatch import as_dense
    dense = as_dense(data) if data.stype != "default" else dispatch.invoke(
        get_op("cast_storage").create(stype="default"), [data])
    if stype == "default":
        return dense
    target = class_of(stype)._empty(dense.shape, dense._dtype, dense.context)
    push_value(lambda v: from_dense(v, stype), [dense], target, "cast_storage")
    target._autograd = dense._autograd
    return target
