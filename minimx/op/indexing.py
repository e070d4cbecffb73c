"""Operators that select elements by index: take, pick, one_hot, gather/scatter, Embedding, sort.

Lesson: 02-ndarray-and-context (and 12-training-with-module for ``Embedding``).  Mirrors
``src/operator/tensor/indexing_op.cc``, ``broadcast_reduce_op_index.cc`` (pick),
``control_flow_op.cc`` (where) and ``ordering_op.cc`` (topk, sort, argsort).

The lesson of the family: the gradient of a *read* by index is a *scatter-add*
into zeros (``xp.add.at``), because one element may be read several times.
Index inputs are float arrays in MXNet; they are truncated to integers and get
no gradient.
"""
import math

from .common import normalize_axes
from .params import Choice, DType, Optional, Param, Shape
from .registry import OpDef, TestHints, register_op
from .sparse_values import RowSparse
from .scatter_kernels import add_rows


def _integers(xp, indices):
    return indices.astype("int64")


def _bound(xp, indices, size, mode):
    """Bring indices into ``[0, size)``: clip them, or wrap them around (``mode='wrap'``).
    (Clipped by two ufuncs: ``xp.clip``'s Python checks cost more than a loss layer's
    whole ``pick`` of 64 labels.)"""
    if mode == "wrap":
        return xp.mod(indices, size)
    return xp.minimum(xp.maximum(indices, 0), size - 1)


def _axis(op, axis, ndim):
    return normalize_axes(op, axis, ndim)[0]


@register_op
class Take(OpDef):
    """Rows (slices along ``axis``) of ``a`` at ``indices``: ``a.shape[:axis] +
    indices.shape + a.shape[axis+1:]``; out-of-range indices are clipped or wrapped."""
    name = "take"
    inputs = ("a", "indices")
    params = {"axis": Param(int, default=0),
              "mode": Param(Choice("clip", "raise", "wrap"), default="clip")}
    no_grad_inputs = ("indices",)
    saves = ("indices", "a_shape")
    method = True
    test = TestHints(shapes=((4, 3), (2, 2)), integer_inputs={"indices": 4},
                     reference=lambda np, a, i, axis=0, mode="clip", **_:
                     np.take(a, i.astype(int), axis=axis, mode=mode),
                     cases=(({"axis": -1, "mode": "wrap"}, ((2, 3), (5,))),))

    def infer_shape(self, a, indices):
        axis = _axis(self, self.axis, len(a))
        return tuple(a[:axis]) + tuple(indices) + tuple(a[axis + 1:])

    def infer_type(self, a, indices):
        return a

    def _indices(self, xp, indices, size):
        indices = _integers(xp, indices)
        if self.mode == "raise":      # as MXNet's: a negative index is out of range too
            if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= size):
                raise IndexError(f"operator take: an index is out of range [0, {size})")
            return indices
        return _bound(xp, indices, size, self.mode)

    def forward(self, xp, a, indices):
        axis = _axis(self, self.axis, a.ndim)
        return xp.take(a, self._indices(xp, indices, a.shape[axis]), axis=axis)

    def backward(self, xp, out_grad, indices, a_shape):
        axis = _axis(self, self.axis, len(a_shape))
        indices = self._indices(xp, indices, a_shape[axis]).ravel()
        # put the indexed axis first in both arrays, then add each row where it was read
        rows = out_grad.reshape(a_shape[:axis] + (indices.size,) + a_shape[axis + 1:])
        grad = add_rows(xp, a_shape[axis], indices, xp.moveaxis(rows, axis, 0))
        return xp.ascontiguousarray(xp.moveaxis(grad, 0, axis)), None


def _reference_pick(np, x, index, axis=-1, keepdims=False, mode="clip", **_):
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    chosen = np.take(np.arange(rows.shape[1]), index.astype(int).ravel(), mode=mode)
    picked = rows[np.arange(len(rows)), chosen].reshape(moved.shape[:-1])
    return np.expand_dims(picked, axis) if keepdims else picked


@register_op
class Pick(OpDef):
    """One element per position along ``axis``: ``out[i, j] = data[i, index[i, j], j]``."""
    name = "pick"
    inputs = ("data", "index")
    params = {"axis": Param(Optional(int), default=-1),
              "keepdims": Param(bool, default=False),
              "mode": Param(Choice("clip", "wrap"), default="clip")}
    no_grad_inputs = ("index",)
    saves = ("index", "data_shape")
    method = True
    test = TestHints(shapes=((3, 4), (3,)), integer_inputs={"index": 4},
                     reference=_reference_pick,
                     cases=(({"axis": 0, "keepdims": True}, ((3, 4), (4,))),))

    def check_params(self):
        if self.axis is None:
            raise self.param_error("axis=None is not supported (as in MXNet); give an axis")

    def _kept_shape(self, data):
        axis = _axis(self, self.axis, len(data))
        return axis, tuple(1 if i == axis else size for i, size in enumerate(data))

    def infer_shape(self, data, index):
        axis, kept = self._kept_shape(data)
        if math.prod(index) != math.prod(kept):
            raise self.shape_error(f"index shape {tuple(index)} does not fit data "
                                   f"{tuple(data)} with axis {self.axis}")
        if self.keepdims:
            return kept
        return tuple(size for i, size in enumerate(data) if i != axis) or (1,)

    def _chosen(self, xp, index, shape):
        axis, kept = self._kept_shape(shape)
        return axis, _bound(xp, _integers(xp, index).reshape(kept), shape[axis], self.mode)

    def forward(self, xp, data, index):
        axis, chosen = self._chosen(xp, index, data.shape)
        picked = xp.take_along_axis(data, chosen, axis=axis)     # the kept shape
        if self.keepdims:
            return picked
        return picked.reshape(tuple(n for i, n in enumerate(data.shape) if i != axis) or (1,))

    def backward(self, xp, out_grad, index, data_shape):
        axis, chosen = self._chosen(xp, index, data_shape)
        # as MXNet's: zeros, and the gradient added at the picked positions (so a -0
        # gradient gives +0, 0 + -0) -- selected, not a 0/1 mask times the gradient, which
        # would put 0 * inf = NaN beside an infinite gradient and -0 beside a negative one
        positions = xp.arange(data_shape[axis]).reshape(
            tuple(-1 if i == axis else 1 for i in range(len(data_shape))))
        zero = xp.zeros((), dtype=out_grad.dtype)
        return xp.where(positions == chosen, out_grad.reshape(chosen.shape) + zero,
                        zero), None


@register_op
class OneHot(OpDef):
    """A new last axis of length ``depth``: ``on_value`` at each index, ``off_value``
    elsewhere (indices outside ``[0, depth)`` give a row of ``off_value``)."""
    name = "one_hot"
    inputs = ("indices",)
    params = {"depth": Param(int), "on_value": Param(float, default=1.0),
              "off_value": Param(float, default=0.0),
              "dtype": Param(DType, default="float32")}
    method = True
    differentiable = False
    test = TestHints(shapes=((2, 3),), params={"depth": 4, "on_value": 2.0},
                     integer_inputs={"indices": 4}, grad=False,
                     reference=lambda np, i, depth, on_value=1.0, off_value=0.0, **_:
                     np.eye(depth)[i.astype(int)] * (on_value - off_value) + off_value)

    def infer_shape(self, indices):
        return tuple(indices) + (self.depth,)

    def infer_type(self, indices):
        return self.dtype

    def forward(self, xp, indices):
        hits = _integers(xp, indices)[..., None] == xp.arange(self.depth)
        return xp.where(hits, self.on_value, self.off_value).astype(self.dtype)


@register_op
class Where(OpDef):
    """``x`` where ``condition`` is non-zero, else ``y``; ``condition`` has the shape of
    ``x`` or is 1-D, choosing whole rows."""
    name = "where"
    xp_name = "where"
    partial_shapes = False        # MXNet infers nothing until the condition is known
    inputs = ("condition", "x", "y")
    no_grad_inputs = ("condition",)
    saves = ("condition",)
    test = TestHints(shapes=((2, 3), (2, 3), (2, 3)), integer_inputs={"condition": 2},
                     reference=lambda np, c, x, y, **_:
                     np.where(c.reshape(c.shape + (1,) * (x.ndim - c.ndim)) != 0, x, y),
                     cases=(({}, ((2,), (2, 3), (2, 3))),))

    def infer_input_shapes(self, condition, x=None, y=None):
        """Once the condition's shape is known, ``x`` and ``y`` have one shape: each
        completes the other (a zoneout cell's ``where(mask, new, zeros((0, 0)))``)."""
        if condition is None or not all(condition):
            return [condition, x, y]
        known = x if x is not None and all(x) else y if y is not None and all(y) else None
        return [condition, x if x is not None and all(x) else known,
                y if y is not None and all(y) else known]

    def infer_shape(self, condition, x, y):
        if tuple(x) != tuple(y):
            raise self.shape_error(f"x and y must have one shape, got {tuple(x)} and {tuple(y)}")
        if tuple(condition) != tuple(x) and tuple(condition) != tuple(x[:1]):
            raise self.shape_error(f"condition must have shape {tuple(x)} or {tuple(x[:1])}, "
                                   f"got {tuple(condition)}")
        return x

    def infer_type(self, condition, x, y):
        return x

    def _mask(self, xp, condition, ndim):
        return (condition != 0).reshape(condition.shape + (1,) * (ndim - condition.ndim))

    def forward(self, xp, condition, x, y):
        return xp.where(self._mask(xp, condition, x.ndim), x, y)

    def backward(self, xp, out_grad, condition):
        mask = self._mask(xp, condition, out_grad.ndim)
        zero = xp.zeros_like(out_grad)      # zeros_like: differentiable again (xp_name)
        return None, xp.where(mask, out_grad, zero), xp.where(mask, zero, out_grad)


@register_op
class GatherND(OpDef):
    """``data[indices[0], indices[1], ...]``: the first axis of ``indices`` indexes the
    first ``indices.shape[0]`` axes of ``data``."""
    name = "gather_nd"
    inputs = ("data", "indices")
    no_grad_inputs = ("indices",)
    saves = ("indices", "data_shape")
    test = TestHints(shapes=((3, 4), (2, 5)), integer_inputs={"indices": 3},
                     reference=lambda np, x, i, **_: x[tuple(i.astype(int))],
                     cases=(({}, ((3, 4, 2), (1, 2, 2))),))

    def infer_shape(self, data, indices):
        if not indices or indices[0] > len(data):
            raise self.shape_error(f"indices {tuple(indices)} must start with at most "
                                   f"{len(data)} (the dims of data {tuple(data)})")
        return (tuple(indices[1:]) + tuple(data[indices[0]:])) or (1,)

    def infer_type(self, data, indices):
        return data

    def forward(self, xp, data, indices):
        return data[tuple(_integers(xp, indices))]

    def backward(self, xp, out_grad, indices, data_shape):
        grad = xp.zeros(data_shape, dtype=out_grad.dtype)
        key = tuple(_integers(xp, indices))
        xp.add.at(grad, key, out_grad.reshape(grad[key].shape))
        return grad, None


def _reference_scatter_nd(np, data, indices, shape, **_):
    out = np.zeros(shape, dtype=data.dtype)
    for position, target in enumerate(zip(*indices.astype(int))):
        out[target] = data[position]
    return out


@register_op
class ScatterND(OpDef):
    """The reverse of ``gather_nd``: zeros of ``shape`` with ``data`` written at ``indices``
    (where an index repeats, which write wins is not specified)."""
    name = "scatter_nd"
    inputs = ("data", "indices")
    params = {"shape": Param(Shape, doc="shape of the output")}
    no_grad_inputs = ("indices",)
    saves = ("indices",)
    # random indices may repeat, and then only one write counts: gradients are tested directly
    test = TestHints(shapes=((2,), (2, 2)), params={"shape": (3, 4)}, grad=False,
                     integer_inputs={"indices": 3}, reference=_reference_scatter_nd)

    def infer_shape(self, data, indices):
        if not indices or indices[0] > len(self.shape):
            raise self.shape_error(f"indices {tuple(indices)} must start with at most "
                                   f"{len(self.shape)} (the dims of shape {self.shape})")
        expected = tuple(indices[1:]) + tuple(self.shape[indices[0]:])
        if tuple(data) != (expected or (1,)):
            raise self.shape_error(f"data must have shape {expected}, got {tuple(data)}")
        return self.shape

    def infer_type(self, data, indices):
        return data

    def forward(self, xp, data, indices):
        out = xp.zeros(self.shape, dtype=data.dtype)
        key = tuple(_integers(xp, indices))
        out[key] = data.reshape(out[key].shape)
        return out

    def backward(self, xp, out_grad, indices):
        return out_grad[tuple(_integers(xp, indices))], None


@register_op
class Embedding(OpDef):
    """Rows of ``weight`` (``input_dim`` x ``output_dim``) looked up by the integer ids in
    ``data``; ids are clipped to ``[0, input_dim)``.  The weight gradient adds each
    output row's gradient into the row it came from."""
    name = "Embedding"
    inputs = ("data", "weight")
    params = {"input_dim": Param(int, doc="vocabulary size (rows of weight)"),
              "output_dim": Param(int, doc="embedding size (columns of weight)"),
              "dtype": Param(DType, default="float32"),
              "sparse_grad": Param(bool, default=False,
                                   doc="the weight's gradient is row_sparse: only the rows "
                                       "looked up")}
    no_grad_inputs = ("data",)
    saves = ("data",)
    test = TestHints(shapes=((2, 3), (5, 4)), params={"input_dim": 5, "output_dim": 4},
                     integer_inputs={"data": 5},
                     reference=lambda np, d, w, **_: w[d.astype(int)])

    def infer_input_shapes(self, data, weight):
        return [data, (self.input_dim, self.output_dim)]

    def infer_shape(self, data, weight):
        if tuple(weight) != (self.input_dim, self.output_dim):
            raise self.shape_error(f"weight must have shape ({self.input_dim}, "
                                   f"{self.output_dim}), got {tuple(weight)}")
        return tuple(data) + (self.output_dim,)

    def infer_type(self, data, weight):
        return weight

    def forward(self, xp, data, weight):
        return weight[_bound(xp, _integers(xp, data), self.input_dim, "clip")]

    def input_grad_stypes(self):
        return ("default", "row_sparse" if self.sparse_grad else "default")

    def backward(self, xp, out_grad, data):
        rows = _bound(xp, _integers(xp, data), self.input_dim, "clip").ravel()
        if self.sparse_grad:        # one stored row per distinct id: the rows looked up
            ids, position = xp.unique(rows, return_inverse=True)
            stored = add_rows(xp, len(ids), position.ravel(),
                              out_grad.reshape(-1, self.output_dim))
            return None, RowSparse(stored, ids, (self.input_dim, self.output_dim))
        return None, add_rows(xp, self.input_dim, rows, out_grad.reshape(-1, self.output_dim))


@register_op
class SparseEmbedding(Embedding):
    """``contrib.SparseEmbedding``: MXNet's older name for an Embedding whose weight gradient
    is always row_sparse (``Embedding(sparse_grad=True)``).  ``deterministic`` chose between
    two GPU kernels in MXNet; the result is the same."""
    name = "_contrib_SparseEmbedding"
    params = {**{key: value for key, value in Embedding.params.items() if key != "sparse_grad"},
              "deterministic": Param(bool, default=False,
                                     doc="MXNet's choice of GPU kernel (no effect here)")}
    sparse_grad = True
    # the row_sparse gradient lives on the CPU only, so the generated (device) cases check
    # the forward; MXNet's test_contrib_sparse_embedding checks the gradient (tools/)
    test = TestHints(shapes=((2, 3), (5, 4)), params={"input_dim": 5, "output_dim": 4},
                     integer_inputs={"data": 5}, grad=False,
                     reference=lambda np, d, w, **_: w[d.astype(int)])


def _sorted_positions(np, x, axis, is_ascend):
    keys = x.reshape(-1) if axis is None else x
    order = np.argsort(keys if is_ascend else -keys, axis=-1 if axis is None else axis,
                       kind="stable")
    return keys, order, -1 if axis is None else axis


def _reference_topk(np, x, axis=-1, k=1, ret_typ="indices", is_ascend=False,
                    dtype="float32", **_):
    keys, order, axis = _sorted_positions(np, x, axis, is_ascend)
    top = np.take(order, np.arange(k), axis=axis)
    if ret_typ == "mask":
        mask = np.zeros(keys.shape, dtype=x.dtype)
        np.put_along_axis(mask, top, 1, axis=axis)
        return mask.reshape(x.shape)
    values = np.take_along_axis(keys, top, axis=axis)
    results = {"value": values, "indices": top.astype(dtype),
               "both": (values, top.astype(dtype))}
    return results[ret_typ]


def _reference_sort(np, x, axis=-1, is_ascend=True, **_):
    keys, order, axis = _sorted_positions(np, x, axis, is_ascend)
    return np.take_along_axis(keys, order, axis=axis)


# -- ordering -------------------------------------------------------------------------------
class Ordering(OpDef):
    """Operators built on one sort along ``axis`` (None: of the flattened array)."""

    def _flat(self, data_shape):
        """(shape the data is viewed as, axis of that view)."""
        if self.axis is None:
            return (math.prod(data_shape),), 0
        return tuple(data_shape), _axis(self, self.axis, len(data_shape))

    def _order(self, xp, data):
        """Sorted positions along the axis, and each element's rank in that order.  The
        sort is stable, as MXNet's (a stable sort by key on the CPU, thrust's on a GPU):
        equal elements keep their order, descending too (a stable ascending sort of the
        negated keys), so ``topk`` of ``[1, 3, 3]`` is index 1 before index 2."""
        shape, axis = self._flat(data.shape)
        keys = data.reshape(shape).astype("float64")
        order = xp.argsort(keys if self.is_ascend else -keys, axis=axis, kind="stable")
        return order, xp.argsort(order, axis=axis), axis


@register_op
class TopK(Ordering):
    """The ``k`` largest (or smallest, ``is_ascend``) elements along ``axis``: their
    values, their indices (float32 by default), a 0/1 mask, or ``both`` [values, indices]."""
    name = "topk"
    outputs = ("output", "indices")
    params = {"axis": Param(Optional(int), default=-1), "k": Param(int, default=1),
              "ret_typ": Param(Choice("both", "indices", "mask", "value"), default="indices"),
              "is_ascend": Param(bool, default=False),
              "dtype": Param(DType, default="float32")}
    saves = ("data",)
    method = True
    test = TestHints(shapes=((3, 4),), params={"k": 2, "ret_typ": "value"},
                     reference=_reference_topk,
                     cases=(({"k": 2, "ret_typ": "both", "axis": 0, "is_ascend": True},
                             ((3, 4),)),
                            ({"k": 3, "ret_typ": "mask", "axis": None}, ((3, 4),))))

    def list_outputs(self):
        return self.outputs if self.ret_typ == "both" else self.outputs[:1]

    def graph_output_names(self):
        """``topk0_output0`` for values: MXNet keeps the indices as a hidden output."""
        return ["output0"] if self.ret_typ == "value" else super().graph_output_names()

    def _k(self, size):
        return size if self.k < 1 else min(self.k, size)

    def infer_shape(self, data):
        shape, axis = self._flat(data)
        if self.ret_typ == "mask":
            return tuple(data)
        shape = list(shape)
        shape[axis] = self._k(shape[axis])
        return [tuple(shape)] * len(self.list_outputs())

    def infer_type(self, data):
        types = {"value": [data], "mask": [data], "indices": [self.dtype],
                 "both": [data, self.dtype]}
        return types[self.ret_typ]

    def forward(self, xp, data):
        order, rank, axis = self._order(xp, data)
        k = self._k(order.shape[axis])
        if self.ret_typ == "mask":
            return (rank < k).astype(data.dtype).reshape(data.shape)
        indices = xp.take(order, xp.arange(k), axis=axis)
        values = xp.take_along_axis(data.reshape(order.shape), indices, axis=axis)
        outputs = {"value": values, "indices": indices.astype(self.dtype),
                   "both": (values, indices.astype(self.dtype))}
        return outputs[self.ret_typ]

    def backward(self, xp, out_grad, *index_grad, data):
        if self.ret_typ not in ("value", "both"):
            return xp.zeros(data.shape, dtype=out_grad.dtype)
        order, rank, axis = self._order(xp, data)
        # pad the k gradients with zeros to the full axis, then undo the sort
        missing = list(order.shape)
        missing[axis] -= out_grad.shape[axis]
        full = xp.concatenate([out_grad, xp.zeros(missing, dtype=out_grad.dtype)], axis=axis)
        return xp.take_along_axis(full, rank, axis=axis).reshape(data.shape)


@register_op
class Sort(Ordering):
    """The elements sorted along ``axis`` (ascending by default; None: flattened)."""
    name = "sort"
    params = {"axis": Param(Optional(int), default=-1),
              "is_ascend": Param(bool, default=True)}
    saves = ("data",)
    method = True
    # axis is given explicitly: MXNet 1.9.1 cannot differentiate sort with the default axis
    test = TestHints(shapes=((3, 4),), params={"axis": -1, "is_ascend": False},
                     reference=_reference_sort,
                     cases=(({"axis": None, "is_ascend": True}, ((2, 3),)),
                            ({"axis": 0, "is_ascend": False}, ((3, 2),))))

    def graph_output_names(self):
        """``sort0_output0``: MXNet keeps the indices as a hidden output."""
        return ["output0"]

    def infer_shape(self, data):
        return self._flat(data)[0]

    def forward(self, xp, data):
        order, _, axis = self._order(xp, data)
        return xp.take_along_axis(data.reshape(order.shape), order, axis=axis)

    def backward(self, xp, out_grad, data):
        _, rank, axis = self._order(xp, data)
        return xp.take_along_axis(out_grad, rank, axis=axis).reshape(data.shape)


@register_op
class Argsort(Ordering):
    """The indices that sort ``data`` along ``axis`` (float32 by default)."""
    name = "argsort"
    params = {"axis": Param(Optional(int), default=-1),
              "is_ascend": Param(bool, default=True),
              "dtype": Param(DType, default="float32")}
    method = True
    differentiable = False
    test = TestHints(shapes=((3, 4),), grad=False,
                     reference=lambda np, x, axis=-1, is_ascend=True, **_:
                     _sorted_positions(np, x, axis, is_ascend)[1].astype("float32"),
                     cases=(({"axis": 0, "is_ascend": False}, ((3, 2),)),))

    def infer_shape(self, data):
        return self._flat(data)[0]

    def infer_type(self, data):
        return self.dtype

    def forward(self, xp, data):
        order, _, _ = self._order(xp, data)
        return order.astype(self.dtype)


# -- MXNet's older names for picking by row -------------------------------------------------------
def _row_indices(op, xp, index, rows, cols):
    if index.ndim != 1 or index.shape[0] != rows:
        raise op.shape_error(f"the index must be a vector of {rows} entries, got shape "
                             f"{tuple(index.shape)}")
    return xp.clip(index.astype("int64"), 0, cols - 1)


@register_op
class ChooseElement0Index(OpDef):
    """``out[i] = lhs[i, rhs[i]]`` for a matrix ``lhs`` (MXNet's older ``pick``)."""
    name = "choose_element_0index"
    inputs = ("lhs", "rhs")
    refuses_unknown_params = True     # MXNet's is pick's alias, with pick's parameters
    no_grad_inputs = ("rhs",)
    saves = ("rhs", "lhs_shape")
    test = TestHints(shapes=((3, 4), (3,)), integer_inputs={"rhs": 4},
                     reference=lambda np, lhs, rhs: lhs[np.arange(len(rhs)), rhs.astype(int)])

    def infer_shape(self, lhs, rhs):
        if len(lhs) != 2 or tuple(rhs) != (lhs[0],):
            raise self.shape_error(f"expected a matrix and a vector of its rows, got "
                                   f"{tuple(lhs)} and {tuple(rhs)}")
        return (lhs[0],)

    def forward(self, xp, lhs, rhs):
        rows = xp.arange(lhs.shape[0])
        return lhs[rows, _row_indices(self, xp, rhs, *lhs.shape)]

    def backward(self, xp, out_grad, rhs, lhs_shape):
        grad = xp.zeros(lhs_shape, dtype=out_grad.dtype)
        grad[xp.arange(lhs_shape[0]), _row_indices(self, xp, rhs, *lhs_shape)] = out_grad
        return grad, None


@register_op
class FillElement0Index(OpDef):
    """``lhs`` with ``out[i, rhs[i]] = mhs[i]`` (MXNet's older scatter by row)."""
    name = "fill_element_0index"
    inputs = ("lhs", "mhs", "rhs")
    no_grad_inputs = ("rhs",)
    saves = ("rhs", "lhs_shape")
    test = TestHints(shapes=((3, 4), (3,), (3,)), integer_inputs={"rhs": 4},
                     reference=lambda np, lhs, mhs, rhs: _reference_fill(np, lhs, mhs, rhs))

    def infer_shape(self, lhs, mhs, rhs):
        if len(lhs) != 2 or tuple(mhs) != (lhs[0],) or tuple(rhs) != (lhs[0],):
            raise self.shape_error(f"expected a matrix and two vectors of its rows, got "
                                   f"{tuple(lhs)}, {tuple(mhs)} and {tuple(rhs)}")
        return tuple(lhs)

    def forward(self, xp, lhs, mhs, rhs):
        out = lhs.copy()
        out[xp.arange(lhs.shape[0]), _row_indices(self, xp, rhs, *lhs.shape)] = mhs
        return out

    def backward(self, xp, out_grad, rhs, lhs_shape):
        where = (xp.arange(lhs_shape[0]), _row_indices(self, xp, rhs, *lhs_shape))
        grad_lhs = out_grad.copy()
        grad_lhs[where] = 0
        return grad_lhs, out_grad[where], None


def _reference_fill(np, lhs, mhs, rhs):
    out = lhs.copy()
    for i, j in enumerate(rhs.astype(int)):
        out[i, j] = mhs[i]
    return out


@register_op
class BatchTake(ChooseElement0Index):
    """``out[i] = a[i, indices[i]]`` (deprecated in MXNet for ``pick``); the indices must be
    integers."""
    name = "batch_take"
    inputs = ("a", "indices")
    no_grad_inputs = ("indices",)
    saves = ("indices", "a_shape")
    test = TestHints(shapes=((3, 4), (3,)), integer_inputs={"indices": 4}, dtypes=("float32",),
                     input_dtypes={"indices": "int32"},
                     grad=False,
                     reference=lambda np, a, indices: a[np.arange(len(indices)),
                                                        indices.astype(int)])
    differentiable = False
    has_gradient = False          # MXNet registers none (``pick`` has one)

    def infer_type(self, a, indices):
        if not str(indices).startswith(("int", "uint")):
            raise self.type_error(f"indices must be integers, got {indices}")
        return a


# -- positions as numbers: index_array, ravel_multi_index, unravel_index -------------------------
def _index_array_reference(np, data, axes=None):
    grids = np.indices(data.shape, dtype=np.int64)
    chosen = range(data.ndim) if axes is None else axes
    return np.stack([grids[axis] for axis in chosen], axis=-1)


@register_op
class IndexArray(OpDef):
    """The position of every element: ``data.shape + (len(axes),)`` int64, where
    ``out[i1, ..., in, j] == i_{axes[j]}`` (every axis when ``axes`` is None)."""
    name = "_contrib_index_array"
    params = {"axes": Param(Optional(Shape), default=None,
                            doc="the axes whose positions are listed (default: all)")}
    differentiable = False
    test = TestHints(shapes=((2, 3),), grad=False, reference=_index_array_reference,
                     cases=(({"axes": (1, 0)}, ((3, 2, 2),)),))

    def chosen_axes(self, ndim):
        if self.axes is None:
            return tuple(range(ndim))
        return tuple(normalize_axes(self, axis, ndim)[0] for axis in self.axes)

    def infer_shape(self, data):
        return tuple(data) + (len(self.chosen_axes(len(data))),)

    def infer_type(self, data):
        return "int64"

    def forward(self, xp, data):
        grids = xp.indices(data.shape, dtype="int64")
        chosen = [grids[axis] for axis in self.chosen_axes(data.ndim)]
        if not chosen:
            return xp.zeros(data.shape + (0,), dtype="int64")
        return xp.stack(chosen, axis=-1)


def _strides(shape):
    """Row-major strides of ``shape`` in elements (the first size may be -1: unknown)."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


class _FlatIndex(OpDef):
    """Between multi-indices and flat indices of an array of ``shape`` (its first size may
    be -1, unknown); indices are floats as MXNet's, and get no gradient."""
    params = {"shape": Param(Shape, doc="the shape the indices address")}
    differentiable = False

    def check_params(self):
        if not self.shape or any(size < 1 for size in self.shape[1:]) or self.shape[0] == 0:
            raise self.param_error(f"shape {self.shape} must have positive sizes (the first "
                                   f"may be -1)")


@register_op
class RavelMultiIndex(_FlatIndex):
    """Flat indices of the columns of ``data`` (``len(shape)`` rows of indices), as
    ``numpy.ravel_multi_index`` without its range check."""
    name = "_ravel_multi_index"
    aliases = ("ravel_multi_index",)
    test = TestHints(shapes=((2, 5),), params={"shape": (3, 4)}, grad=False,
                     integer_inputs={"data": 3},
                     reference=lambda np, x, shape: np.ravel_multi_index(
                         x.astype(int), shape).astype(x.dtype))

    def infer_shape(self, data):
        if not data or data[0] != len(self.shape):
            raise self.shape_error(f"data {tuple(data)} must have {len(self.shape)} rows, one "
                                   f"per axis of shape {self.shape}")
        return tuple(data[1:]) or (1,)

    def forward(self, xp, data):
        strides = xp.asarray(_strides(self.shape), dtype="int64")
        flat = xp.tensordot(strides, data.astype("int64"), axes=1)
        return flat.reshape(self.infer_shape(data.shape)).astype(data.dtype)


@register_op
class UnravelIndex(_FlatIndex):
    """Multi-indices of flat indices: one row per axis of ``shape``, as
    ``numpy.unravel_index`` without its range check (an index past the end gives a first
    index past the first size, as MXNet's)."""
    name = "_unravel_index"
    aliases = ("unravel_index",)
    test = TestHints(shapes=((5,),), params={"shape": (3, 4)}, grad=False,
                     integer_inputs={"data": 12},
                     reference=lambda np, x, shape: np.stack(np.unravel_index(
                         x.astype(int), shape)).astype(x.dtype))

    def infer_shape(self, data):
        return (len(self.shape),) + tuple(data)

    def forward(self, xp, data):
        rest = data.astype("int64")
        rows = []
        for position, size in reversed(list(enumerate(self.shape))):
            if position == 0:             # as MXNet: the first axis does not wrap
                rows.append(rest)
            else:
                rows.append(rest % size)
                rest = rest // size
        return xp.stack(rows[::-1]).astype(data.dtype)


def _reference_index_copy(np, old, index, new):
    out = old.copy()
    out[index.astype(int)] = new
    return out


def _distinct_rows(rng, shapes, dtype):
    old, index, new = shapes
    rows = rng.permutation(old[0])[:index[0]]
    return [rng.uniform(-1, 1, old).astype(dtype), rows.astype(dtype),
            rng.uniform(-1, 1, new).astype(dtype)]


@register_op
class IndexCopy(OpDef):
    """``old`` with its rows ``index`` replaced by the rows of ``new``
    (``nd.contrib.index_copy``)."""
    name = "_contrib_index_copy"
    inputs = ("old_tensor", "index_vector", "new_tensor")
    no_grad_inputs = ("index_vector",)
    saves = ("index_vector",)
    test = TestHints(shapes=((5, 3), (2,), (2, 3)), reference=_reference_index_copy,
                     inputs=_distinct_rows)

    def infer_shape(self, old, index, new):
        if len(index) != 1 or tuple(new) != (index[0],) + tuple(old[1:]):
            raise self.shape_error(f"index_vector {tuple(index)} must be 1-D and new_tensor "
                                   f"{tuple(new)} must be ({index[0] if index else '?'},) + "
                                   f"old_tensor's rows {tuple(old[1:])}")
        return tuple(old)

    def forward(self, xp, old, index, new):
        out = old.copy()
        out[_integers(xp, index)] = new
        return out

    def backward(self, xp, out_grad, index_vector):
        rows = _integers(xp, index_vector)
        old_grad = out_grad.copy()
        old_grad[rows] = 0
        return old_grad, None, out_grad[rows]
