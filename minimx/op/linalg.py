"""Matrix products: dot, batch_dot and linalg_gemm2.

Lesson: 02-ndarray-and-context (dot).  Mirrors
``src/operator/tensor/dot.cc`` and ``src/operator/tensor/la_op.cc``.

MXNet's ``dot`` of N-D arrays is a matrix product of 2-D views: ``lhs`` is seen as
(all but its last axis) x (its last axis), ``rhs`` as (its first axis) x (the rest).
``transpose_a`` instead splits ``lhs`` after its *first* axis and contracts that
one; ``transpose_b`` splits ``rhs`` before its *last* axis and contracts that one.
The gradient of ``C = A @ B`` is ``dA = dC @ B.T`` and ``dB = A.T @ dC``.
"""
import math

from .params import Optional, Param
from .registry import ALL_NEEDED, OpDef, TestHints, register_op

_TRANSPOSE_A = Param(bool, default=False, doc="use the transpose of the first input")
_TRANSPOSE_B = Param(bool, default=False, doc="use the transpose of the second input")
_FORWARD_STYPE = Param(Optional(str), default=None, doc="storage type of the result (nd.sparse.dot converts to it)")


def _same_dtype(op, lhs, rhs):
    if lhs != rhs:
        raise op.type_error(f"both inputs must have one dtype, got {lhs} and {rhs}")
    return lhs


def _reference_dot(np, a, b, transpose_a=False, transpose_b=False, **_):
    lhs_axis = 0 if transpose_a else a.ndim - 1
    rhs_axis = b.ndim - 1 if transpose_b else 0
    result = np.tensordot(a, b, axes=([lhs_axis], [rhs_axis]))
    return result.reshape(1) if result.ndim == 0 else result


@register_op
class Dot(OpDef):
    """Matrix product (see the module docstring for N-D inputs); 1-D with 1-D gives (1,)."""
    name = "dot"
    xp_name = "dot"      # for 2-D inputs (the gradients that use xp.dot) numpy's dot is this
    inputs = ("lhs", "rhs")
    params = {"transpose_a": _TRANSPOSE_A, "transpose_b": _TRANSPOSE_B,
              "forward_stype": _FORWARD_STYPE}
    saves = ("lhs", "rhs")
    test = TestHints(shapes=((2, 3), (3, 4)), reference=_reference_dot,
                     cases=(({"transpose_a": True}, ((3, 2), (3, 4))),
                            ({"transpose_b": True}, ((2, 3, 4), (5, 4))),
                            ({"transpose_a": True, "transpose_b": True}, ((2, 3, 2), (4, 2))),
                            ({}, ((2, 3, 2), (2, 2, 3))),
                            ({}, ((3,), (3,)))))

    def _matrix_shapes(self, lhs, rhs):
        """The 2-D views of both inputs, after the transposes: (M, K) and (K, N)."""
        lhs, rhs = tuple(lhs), tuple(rhs)
        if not lhs or not rhs:
            raise self.shape_error(f"inputs must have at least 1 dim, got {lhs} and {rhs}")
        if self.transpose_a:
            left = (math.prod(lhs[1:]), lhs[0])
        else:
            left = (math.prod(lhs[:-1]), lhs[-1])
        if self.transpose_b:
            right = (rhs[-1], math.prod(rhs[:-1]))
        else:
            right = (rhs[0], math.prod(rhs[1:]))
        if left[1] != right[0]:
            raise self.shape_error(f"cannot multiply {lhs} by {rhs} (transpose_a="
                                   f"{self.transpose_a}, transpose_b={self.transpose_b}): "
                                   f"{left[1]} != {right[0]}")
        return left, right

    def blas_work(self, lhs, rhs):
        (rows, inner), (_, cols) = self._matrix_shapes(lhs, rhs)
        return rows * inner * cols

    def infer_shape(self, lhs, rhs):
        self._matrix_shapes(lhs, rhs)
        kept_lhs = () if len(lhs) == 1 else (tuple(lhs[1:]) if self.transpose_a else
                                             tuple(lhs[:-1]))
        kept_rhs = () if len(rhs) == 1 else (tuple(rhs[:-1]) if self.transpose_b else
                                             tuple(rhs[1:]))
        return (kept_lhs + kept_rhs) or (1,)

    def infer_type(self, lhs, rhs):
        return _same_dtype(self, lhs, rhs)

    def _matrices(self, lhs, rhs):
        left, right = self._matrix_shapes(lhs.shape, rhs.shape)
        a = lhs.reshape(left[::-1]).T if self.transpose_a else lhs.reshape(left)
        b = rhs.reshape(right[::-1]).T if self.transpose_b else rhs.reshape(right)
        return a, b

    def forward(self, xp, lhs, rhs):
        a, b = self._matrices(lhs, rhs)
        return xp.matmul(a, b).reshape(self.infer_shape(lhs.shape, rhs.shape))

    def backward(self, xp, out_grad, lhs, rhs, needs=ALL_NEEDED):
        a, b = self._matrices(lhs, rhs)
        grad = out_grad.reshape(a.shape[0], b.shape[1])
        grad_lhs = grad_rhs = None
        # undo the views: a transposed view's gradient is transposed back first
        if needs[0]:
            grad_a = xp.matmul(grad, b.T)
            grad_lhs = (grad_a.T if self.transpose_a else grad_a).reshape(lhs.shape)
        if needs[1]:
            grad_b = xp.matmul(a.T, grad)
            grad_rhs = (grad_b.T if self.transpose_b else grad_b).reshape(rhs.shape)
        return grad_lhs, grad_rhs


def _swap_last(xp, array, swap):
    return xp.swapaxes(array, -1, -2) if swap else array


def _reference_batch_dot(np, a, b, transpose_a=False, transpose_b=False, **_):
    a = np.swapaxes(a, -1, -2) if transpose_a else a
    b = np.swapaxes(b, -1, -2) if transpose_b else b
    return np.einsum("...ij,...jk->...ik", a, b)


@register_op
class BatchDot(OpDef):
    """One matrix product per batch entry: (B, M, K) x (B, K, N) -> (B, M, N); leading
    batch axes may be several, and must be equal in both inputs."""
    name = "batch_dot"
    inputs = ("lhs", "rhs")
    params = {"transpose_a": _TRANSPOSE_A, "transpose_b": _TRANSPOSE_B,
              "forward_stype": _FORWARD_STYPE}
    saves = ("lhs", "rhs")
    test = TestHints(shapes=((2, 2, 3), (2, 3, 4)), reference=_reference_batch_dot,
                     cases=(({"transpose_a": True, "transpose_b": True},
                             ((2, 3, 2), (2, 4, 3))),
                            ({}, ((2, 1, 2, 3), (2, 1, 3, 2)))))

    def blas_work(self, lhs, rhs):
        """One batch entry's product: the batched call runs them one after another."""
        rows, inner = (lhs[-1], lhs[-2]) if self.transpose_a else (lhs[-2], lhs[-1])
        cols = rhs[-2] if self.transpose_b else rhs[-1]
        return rows * inner * cols

    def infer_shape(self, lhs, rhs):
        lhs, rhs = tuple(lhs), tuple(rhs)
        if len(lhs) < 3 or len(lhs) != len(rhs) or lhs[:-2] != rhs[:-2]:
            raise self.shape_error(f"expected inputs of >= 3 dims with equal batch axes, "
                                   f"got {lhs} and {rhs}")
        rows, inner = lhs[-2:][::-1] if self.transpose_a else lhs[-2:]
        inner_b, cols = rhs[-2:][::-1] if self.transpose_b else rhs[-2:]
        if inner != inner_b:
            raise self.shape_error(f"cannot multiply {lhs} by {rhs} (transpose_a="
                                   f"{self.transpose_a}, transpose_b={self.transpose_b})")
        return lhs[:-2] + (rows, cols)

    def infer_type(self, lhs, rhs):
        return _same_dtype(self, lhs, rhs)

    def forward(self, xp, lhs, rhs):
        return xp.matmul(_swap_last(xp, lhs, self.transpose_a),
                         _swap_last(xp, rhs, self.transpose_b))

    def backward(self, xp, out_grad, lhs, rhs, needs=ALL_NEEDED):
        a = _swap_last(xp, lhs, self.transpose_a)
        b = _swap_last(xp, rhs, self.transpose_b)
        grad_lhs = grad_rhs = None
        if needs[0]:
            grad_a = xp.matmul(out_grad, xp.swapaxes(b, -1, -2))
            grad_lhs = _swap_last(xp, grad_a, self.transpose_a)
        if needs[1]:
            grad_b = xp.matmul(xp.swapaxes(a, -1, -2), out_grad)
            grad_rhs = _swap_last(xp, grad_b, self.transpose_b)
        return grad_lhs, grad_rhs


def _reference_gemm2(np, a, b, transpose_a=False, transpose_b=False, alpha=1.0, axis=-2, **_):
    a, b = np.moveaxis(a, axis, -2), np.moveaxis(b, axis, -2)
    result = alpha * _reference_batch_dot(np, a, b, transpose_a, transpose_b)
    return np.moveaxis(result, -2, axis)


@register_op
class LinalgGemm2(OpDef):
    """``alpha * op(A) @ op(B)`` on the last two axes (``axis`` names the row axis; the
    column axis is always the last), batched over the others."""
    name = "_linalg_gemm2"
    aliases = ("linalg_gemm2",)
    inputs = ("A", "B")
    params = {"transpose_a": _TRANSPOSE_A, "transpose_b": _TRANSPOSE_B,
              "alpha": Param(float, default=1.0, doc="scale of the product"),
              "axis": Param(int, default=-2, doc="the row axis")}
    saves = ("A", "B")
    test = TestHints(shapes=((2, 3), (3, 4)), params={"alpha": 2.0}, reference=_reference_gemm2,
                     cases=(({"alpha": 2.0, "transpose_b": True}, ((2, 2, 3), (2, 4, 3))),
                            ({"alpha": 2.0, "axis": -3}, ((3, 2, 4), (4, 2, 5)))))

    def _batch(self):
        return BatchDot.create(transpose_a=self.transpose_a, transpose_b=self.transpose_b)

    def blas_work(self, A, B):
        rows, inner = (A[-1], A[self.axis]) if self.transpose_a else (A[self.axis], A[-1])
        cols = B[self.axis] if self.transpose_b else B[-1]
        return rows * inner * cols

    def infer_shape(self, A, B):
        ndim = len(A)
        axis = self.axis - ndim if self.axis >= 0 else self.axis
        if ndim < 2 or len(B) != ndim or not -ndim <= axis < -1:
            raise self.shape_error(f"expected inputs of one rank >= 2 and axis in "
                                   f"[-{ndim}, -2], got {tuple(A)}, {tuple(B)}, {self.axis}")
        moved = [self._moved(shape) for shape in (A, B)]
        rows_first = (1,) if ndim == 2 else ()
        product = self._batch().infer_shape(*(rows_first + m for m in moved))
        return self._moved_back(product[len(rows_first):])

    def _moved(self, shape):
        shape = list(shape)
        rows = shape.pop(self.axis)
        shape.insert(len(shape) - 1, rows)
        return tuple(shape)

    def _moved_back(self, shape):
        shape = list(shape)
        rows = shape.pop(-2)
        shape.insert(self.axis % (len(shape) + 1), rows)
        return tuple(shape)

    def infer_type(self, A, B):
        return _same_dtype(self, A, B)

    def forward(self, xp, A, B):
        a, b = xp.moveaxis(A, self.axis, -2), xp.moveaxis(B, self.axis, -2)
        product = xp.matmul(_swap_last(xp, a, self.transpose_a),
                            _swap_last(xp, b, self.transpose_b))
        return xp.moveaxis(self.alpha * product, -2, self.axis)

    def backward(self, xp, out_grad, A, B):
        a, b = xp.moveaxis(A, self.axis, -2), xp.moveaxis(B, self.axis, -2)
        grad = self.alpha * xp.moveaxis(out_grad, self.axis, -2)
        grad_a, grad_b = self._batch().backward(xp, grad, a, b)
        return xp.moveaxis(grad_a, -2, self.axis), xp.moveaxis(grad_b, -2, self.axis)
