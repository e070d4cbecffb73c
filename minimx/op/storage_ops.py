"""Operators that exist for sparse storage: cast_storage, _square_sum, _sparse_retain.

Lesson: 13-optimizers (sparse gradients).  Mirrors ``src/operator/tensor/cast_storage.cc``,
``square_sum.cc`` and ``sparse_retain.cc``.  Each is declared, as every operator, by what it
computes on dense arrays (``forward``/``backward``), so a graph node or a dense fallback can
run it; ``sparse_kernels.storage_kernel`` says what each does on compressed values (which
storage type its result has), and graphs take their storage types from there too.
"""
from .params import Choice, Param
from .reduce import Reduce, _AXIS, _EXCLUDE, _KEEPDIMS
from .registry import OpDef, TestHints, register_op

__all__ = ["STORAGE_TYPES"]

STORAGE_TYPES = ("default", "row_sparse", "csr")


@register_op
class CastStorage(OpDef):
    """The same values in storage type ``stype`` (the gradient passes unchanged)."""
    name = "cast_storage"
    inputs = ("data",)
    params = {"stype": Param(Choice(*STORAGE_TYPES), doc="the storage type of the result")}
    test = TestHints(params={"stype": "default"}, reference=lambda np, x, **_: x)

    def forward(self, xp, data):
        return data.copy()

    def backward(self, xp, out_grad):
        return out_grad


def _reference_square_sum(np, x, axis=None, keepdims=False, exclude=False):
    result = np.asarray(np.sum(x * x, axis=axis, keepdims=keepdims))
    return result.reshape(1) if result.ndim == 0 else result


@register_op
class SquareSum(Reduce):
    """``sum(data ** 2, axis)`` in one pass: on a row_sparse ``data`` with ``axis=1`` it
    reads and gives only the stored rows (the factorization machine's self-interaction)."""
    name = "_square_sum"
    params = {"axis": _AXIS, "keepdims": _KEEPDIMS, "exclude": _EXCLUDE}
    method = False
    saves = ("data",)
    test = TestHints(params={"axis": 1}, reference=_reference_square_sum)

    def reduce(self, xp, data, axes):
        return xp.sum(data * data, axis=axes, keepdims=True)

    def backward(self, xp, out_grad, data):
        return 2 * data * out_grad.reshape(self.kept_shape(data.shape))


@register_op
class SparseRetain(OpDef):
    """The rows of ``data`` whose numbers are in ``indices``; every other row becomes zero
    (``nd.sparse.retain``; MXNet computes it on row_sparse data only)."""
    name = "_sparse_retain"
    inputs = ("data", "indices")
    no_grad_inputs = ("indices",)
    saves = ("indices",)
    test = TestHints(shapes=((4, 3), (2,)), integer_inputs={"indices": 4},
                     reference=lambda np, x, i: x * np.isin(np.arange(len(x)), i)[:, None])

    def infer_shape(self, data, indices):
        if len(indices) != 1:
            raise self.shape_error(f"indices must be 1-D, got shape {tuple(indices)}")
        return tuple(data)

    def infer_type(self, data, indices):
        return data

    def forward(self, xp, data, indices):
        keep = xp.isin(xp.arange(data.shape[0]), indices.astype("int64"))
        return data * keep.reshape((-1,) + (1,) * (data.ndim - 1)).astype(data.dtype)

    def backward(self, xp, out_grad, indices):
        return self.forward(xp, out_grad, indices), None
