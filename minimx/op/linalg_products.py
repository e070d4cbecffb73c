"""``linalg`` products: ``gemm``, ``syrk``, ``trmm`` and ``trsm``, on the last two axes,
batched over the others.

Lesson: 04-autograd (every gradient here is a small matrix identity).  Mirrors the BLAS
part of ``src/operator/tensor/la_op.cc``; ``gemm2`` lives in ``linalg.py`` with ``dot``,
the factorizations in ``linalg_factor.py``, the diagonal and triangle reshuffles in
``linalg_shapes.py``.  Triangular inputs (``trmm``, ``trsm``) read only their triangle,
so their gradients are masked to it.
"""
import numpy as np

from .params import Param
from .registry import OpDef, TestHints, register_op


def transposed(x):
    """The matrix transpose of the last two axes."""
    return x.swapaxes(-1, -2)


def triangle(xp, x, lower, offset=0):
    return xp.tril(x, offset) if lower else xp.triu(x, offset)


def square_check(op, shape):
    """Refuse anything but (batches of) square matrices."""
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise op.shape_error(f"expected square matrices in the last two axes, got {tuple(shape)}")


def well_conditioned(rng, shapes, dtype):
    """Test inputs: the first matrix plus ``n I`` (safe to solve with), the others random."""
    first = rng.uniform(-1, 1, shapes[0]) + shapes[0][-1] * np.eye(shapes[0][-1])
    return [first.astype(dtype)] + [rng.uniform(-1, 1, s).astype(dtype) for s in shapes[1:]]


class LinalgOp(OpDef):
    """A float-only matrix operator."""

    def infer_type(self, *dtypes):
        if dtypes[0] not in ("float32", "float64", "float16"):
            raise self.type_error(f"expected float matrices, got {dtypes[0]}")
        return dtypes[0]


# -- products -------------------------------------------------------------------------------------
def _op_matrix(x, transpose):
    return transposed(x) if transpose else x


@register_op
class Gemm(LinalgOp):
    """``alpha * op(A) @ op(B) + beta * C``; ``axis`` names the row axis."""
    name = "_linalg_gemm"
    aliases = ("linalg_gemm",)
    inputs = ("A", "B", "C")
    params = {"transpose_a": Param(bool, default=False), "transpose_b": Param(bool, default=False),
              "alpha": Param(float, default=1.0), "beta": Param(float, default=1.0),
              "axis": Param(int, default=-2, doc="the row axis")}
    saves = ("A", "B")
    test = TestHints(shapes=((2, 3), (3, 4), (2, 4)), params={"alpha": 2.0, "beta": 0.5},
                     reference=lambda np, a, b, c, alpha, beta, transpose_a=False, **_: alpha * (
                         a.swapaxes(-1, -2) if transpose_a else a) @ b + beta * c,
                     cases=(({"transpose_a": True, "alpha": 1.5, "beta": -1.0},
                             ((2, 3, 2), (2, 3, 4), (2, 2, 4))),))

    def infer_shape(self, A, B, C):
        a, b = list(A), list(B)
        a[self.axis], a[-1] = (a[-1], a[self.axis]) if self.transpose_a else (a[self.axis], a[-1])
        b[self.axis], b[-1] = (b[-1], b[self.axis]) if self.transpose_b else (b[self.axis], b[-1])
        if len(A) < 2 or len(A) != len(B) or a[-1] != b[self.axis] or tuple(C) != tuple(
                a[:-1] + b[-1:]):
            raise self.shape_error(f"op(A) {tuple(A)} @ op(B) {tuple(B)} must give C's shape "
                                   f"{tuple(C)}")
        return tuple(C)

    def _rows_last(self, xp, x):
        return xp.moveaxis(x, self.axis, -2)

    def forward(self, xp, A, B, C):
        a, b = self._rows_last(xp, A), self._rows_last(xp, B)
        product = _op_matrix(a, self.transpose_a) @ _op_matrix(b, self.transpose_b)
        return xp.moveaxis(self.alpha * product, -2, self.axis) + self.beta * C

    def backward(self, xp, out_grad, A, B):
        a, b = self._rows_last(xp, A), self._rows_last(xp, B)
        g = self.alpha * self._rows_last(xp, out_grad)
        op_a, op_b = _op_matrix(a, self.transpose_a), _op_matrix(b, self.transpose_b)
        grad_op_a, grad_op_b = g @ transposed(op_b), transposed(op_a) @ g
        grad_a = _op_matrix(grad_op_a, self.transpose_a)
        grad_b = _op_matrix(grad_op_b, self.transpose_b)
        return (xp.moveaxis(grad_a, -2, self.axis), xp.moveaxis(grad_b, -2, self.axis),
                self.beta * out_grad)


@register_op
class Syrk(LinalgOp):
    """``alpha * A @ A^T`` (``transpose``: ``alpha * A^T @ A``)."""
    name = "_linalg_syrk"
    aliases = ("linalg_syrk",)
    inputs = ("A",)
    params = {"transpose": Param(bool, default=False), "alpha": Param(float, default=1.0)}
    saves = ("A",)
    test = TestHints(shapes=((2, 3, 4),), params={"alpha": 1.5},
                     reference=lambda np, a, alpha, transpose=False: alpha * (
                         a.swapaxes(-1, -2) @ a if transpose else a @ a.swapaxes(-1, -2)),
                     cases=(({"transpose": True, "alpha": 1.0}, ((3, 2),)),))

    def infer_shape(self, A):
        size = A[-1] if self.transpose else A[-2]
        return tuple(A[:-2]) + (size, size)

    def forward(self, xp, A):
        return self.alpha * (transposed(A) @ A if self.transpose else A @ transposed(A))

    def backward(self, xp, out_grad, A):
        sym = out_grad + transposed(out_grad)
        return self.alpha * (A @ sym if self.transpose else sym @ A)


def _reference_op(np, a, transpose, lower):
    a = np.tril(a) if lower else np.triu(a)
    return a.swapaxes(-1, -2) if transpose else a


class _Triangular(LinalgOp):
    """``trmm``/``trsm``: ``A`` is triangular (``lower``), ``op(A)`` is it or its transpose,
    on the left of ``B`` or, with ``rightside``, on its right."""
    inputs = ("A", "B")
    params = {"transpose": Param(bool, default=False), "rightside": Param(bool, default=False),
              "lower": Param(bool, default=True), "alpha": Param(float, default=1.0)}

    def infer_shape(self, A, B):
        square_check(self, A)
        inner = B[-1] if self.rightside else B[-2]
        if len(A) != len(B) or A[-1] != inner:
            raise self.shape_error(f"A {tuple(A)} does not fit B {tuple(B)} "
                                   f"(rightside={self.rightside})")
        return tuple(B)

    def op_a(self, xp, A):
        return _op_matrix(triangle(xp, A, self.lower), self.transpose)

    def grad_of_a(self, xp, grad_op_a):
        """The gradient of op(A) as one of A, on A's triangle."""
        return triangle(xp, _op_matrix(grad_op_a, self.transpose), self.lower)


@register_op
class Trmm(_Triangular):
    """``alpha * op(A) @ B`` (``rightside``: ``alpha * B @ op(A)``) for triangular ``A``."""
    name = "_linalg_trmm"
    aliases = ("linalg_trmm",)
    saves = ("A", "B")
    test = TestHints(shapes=((3, 3), (3, 2)), params={"alpha": 2.0},
                     reference=lambda np, a, b, alpha, transpose=False, rightside=False,
                     lower=True: alpha * (b @ _reference_op(np, a, transpose, lower) if rightside
                                          else _reference_op(np, a, transpose, lower) @ b),
                     cases=(({"transpose": True, "rightside": True, "lower": False, "alpha": 1.0},
                             ((2, 3, 3), (2, 4, 3))),))

    def forward(self, xp, A, B):
        op_a = self.op_a(xp, A)
        return self.alpha * (B @ op_a if self.rightside else op_a @ B)

    def backward(self, xp, out_grad, A, B):
        op_a, g = self.op_a(xp, A), self.alpha * out_grad
        if self.rightside:
            return self.grad_of_a(xp, transposed(B) @ g), g @ transposed(op_a)
        return self.grad_of_a(xp, g @ transposed(B)), transposed(op_a) @ g


@register_op
class Trsm(_Triangular):
    """``alpha * op(A)^-1 @ B`` (``rightside``: ``alpha * B @ op(A)^-1``): solves with a
    triangular ``A``."""
    name = "_linalg_trsm"
    aliases = ("linalg_trsm",)
    saves = ("A", "output")
    test = TestHints(shapes=((3, 3), (3, 2)), params={"alpha": 2.0}, inputs=well_conditioned,
                     reference=lambda np, a, b, alpha, transpose=False, rightside=False,
                     lower=True: alpha * (b @ np.linalg.inv(_reference_op(np, a, transpose, lower))
                                          if rightside else np.linalg.solve(
                                              _reference_op(np, a, transpose, lower), b)),
                     cases=(({"transpose": True, "rightside": True, "lower": False, "alpha": 1.0},
                             ((2, 3, 3), (2, 4, 3))),))

    def forward(self, xp, A, B):
        op_a = self.op_a(xp, A)
        if self.rightside:           # X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T
            return transposed(xp.linalg.solve(transposed(op_a), self.alpha * transposed(B)))
        return xp.linalg.solve(op_a, self.alpha * B)

    def backward(self, xp, out_grad, A, output):
        op_a = self.op_a(xp, A)
        if self.rightside:
            grad_b = transposed(xp.linalg.solve(op_a, transposed(out_grad)))         # g op(A)^-T
            return self.grad_of_a(xp, -transposed(output) @ grad_b), self.alpha * grad_b
        grad_b = xp.linalg.solve(transposed(op_a), out_grad)                  # op(A)^-T g
        return self.grad_of_a(xp, -grad_b @ transposed(output)), self.alpha * grad_b


@register_op
class KhatriRao(OpDef):
    """The column-wise Kronecker product of matrices with one column count ``R``:
    ``(I_1, R), (I_2, R), ...`` -> ``(I_1 * I_2 * ..., R)``, column ``r`` the Kronecker
    product of the inputs' columns ``r``.  No gradient, as MXNet's."""
    name = "khatri_rao"
    variadic = True
    params = {"num_args": Param(int, default=1, doc="how many inputs")}
    differentiable = False
    test = TestHints(shapes=((2, 3), (4, 3)), grad=False,
                     reference=lambda np, *ms, **_: np.stack(
                         [np.kron(ms[0][:, r], ms[1][:, r]) for r in range(ms[0].shape[1])],
                         axis=1))

    def infer_shape(self, *shapes):
        if any(len(shape) != 2 for shape in shapes) or len({s[1] for s in shapes}) != 1:
            raise self.shape_error(f"expected matrices with one column count, got "
                                   f"{[tuple(s) for s in shapes]}")
        rows = 1
        for shape in shapes:
            rows *= shape[0]
        return (rows, shapes[0][1])

    def forward(self, xp, *matrices):
        result = matrices[0]
        for matrix in matrices[1:]:     # (rows so far, R) x (I, R) -> (rows so far * I, R)
            result = (result[:, None, :] * matrix[None, :, :]).reshape(-1, matrix.shape[1])
        return result if len(matrices) > 1 else result.copy()
