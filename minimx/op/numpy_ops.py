"""Operators the NumPy frontend needs and ``nd`` has no operator for: cumulative sums and
linear solves.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/numpy/np_cumsum.cc`` and
``src/operator/numpy/linalg/np_solve.cc`` (MXNet's names ``_np_cumsum``,
``_npi_solve``).  Declared like every other operator, so ``nd._internal``, ``sym``, autograd
and the generated per-operator tests know them too.
"""
import math

import numpy as np

from .common import normalize_axes
from .shape import NewShape, Squeeze
from .registry import OpDef, TestHints, register_op
from .params import Param, Shape


@register_op
class Cumsum(OpDef):
    """Running sums along ``axis`` (the output has the input's shape)."""

    name = "_np_cumsum"
    params = {"axis": Param(int, default=0, doc="the axis to sum along")}
    test = TestHints(shapes=((3, 4),), params={"axis": 1},
                     cases=(({"axis": 0}, ((5,),)),),
                     reference=lambda np, x, axis=0: np.cumsum(x, axis=axis))

    def forward(self, xp, data):
        return xp.cumsum(data, axis=self._axis(data.ndim), dtype=data.dtype)

    def backward(self, xp, out_grad):
        # each input adds into every later output: the gradient is the reversed running sum
        axis = self._axis(out_grad.ndim)
        flipped = xp.flip(out_grad, axis=axis)
        return xp.flip(xp.cumsum(flipped, axis=axis), axis=axis)

    def _axis(self, ndim):
        return normalize_axes(self, self.axis, ndim)[0]


@register_op
class Solve(OpDef):
    """``x`` with ``a @ x = b`` for square ``a`` (batched over leading axes)."""

    name = "_npi_solve"
    inputs = ("a", "b")
    saves = ("a", "output")
    test = TestHints(shapes=((3, 3), (3, 2)), inputs=lambda rng, shapes, dtype: [
        (rng.uniform(-1, 1, shapes[0]) + 4 * np.eye(3)).astype(dtype),
        rng.uniform(-1, 1, shapes[1]).astype(dtype)],
        cases=(({}, ((2, 3, 3), (2, 3))),),
        reference=lambda np, a, b: np.linalg.solve(a, b) if b.ndim == a.ndim else
        np.linalg.solve(a, b[..., None])[..., 0])

    def infer_shape(self, a, b):
        a, b = tuple(a), tuple(b)
        square = len(a) >= 2 and a[-1] == a[-2]
        if not square or (b != a[:-1] and (b[:-2] != a[:-2] or b[-2:-1] != a[-1:])):
            raise self.shape_error(f"a must be square (..., n, n) and b (..., n[, k]); "
                                   f"got a {tuple(a)} and b {tuple(b)}")
        return b

    def forward(self, xp, a, b):
        if b.ndim == a.ndim - 1:                  # a batch of vectors
            return xp.linalg.solve(a, b[..., None])[..., 0]
        return xp.linalg.solve(a, b)

    def backward(self, xp, out_grad, a, output):
        # x = a^-1 b: grad_b = a^-T g, grad_a = -grad_b x^T
        vector = output.ndim == a.ndim - 1
        x = output[..., None] if vector else output
        grad = out_grad[..., None] if vector else out_grad
        grad_b = xp.linalg.solve(xp.swapaxes(a, -1, -2), grad)
        grad_a = -grad_b @ xp.swapaxes(x, -1, -2)
        return grad_a, grad_b[..., 0] if vector else grad_b


def _dot_subscripts(lhs_ndim, rhs_ndim):
    """NumPy's ``dot`` as einsum subscripts: the last axis of ``lhs`` meets the only axis of
    a vector ``rhs``, else its second-to-last (``(['ik', 'kj'], 'ij')`` for matrices)."""
    letters = iter("abcdefghijlmnopqrstuvwxyz")
    kept_lhs = "".join(next(letters) for _ in range(lhs_ndim - 1))
    if rhs_ndim == 1:
        return [kept_lhs + "k", "k"], kept_lhs
    kept_rhs = "".join(next(letters) for _ in range(rhs_ndim - 2))
    last = next(letters)
    return [kept_lhs + "k", kept_rhs + "k" + last], kept_lhs + kept_rhs + last


@register_op
class NumpyDot(OpDef):
    """NumPy's ``dot``: a scalar multiplies; otherwise the last axis of ``a`` meets the only
    axis of a vector ``b``, else its second-to-last.  The result has NumPy's shape (``()``
    for two vectors), so a graph needs no shape to give it (``mx.sym.np.dot``)."""

    name = "_np_dot"
    inputs = ("a", "b")
    saves = ("a", "b")
    test = TestHints(shapes=((2, 3), (3, 4)),
                     cases=(({}, ((2, 3, 4), (5, 4, 2))), ({}, ((2, 3), (3,))),
                            ({}, ((3,), (3, 2)))),
                     reference=lambda np, a, b: np.dot(a, b))

    def infer_input_shapes(self, a, b):
        """The contracted size of one operand from the other (0: unknown), as Gluon's
        deferred ``w`` in ``np.dot(x, w)`` learns its first axis from ``x``."""
        if a and b is None:         # a Parameter still unknown: taken as a matrix (k, ?)
            return [a, (a[-1], 0)]
        if not a or not b:
            return [a, b]
        a, b = list(a), list(b)
        inner = 0 if len(b) == 1 else len(b) - 2
        if a[-1] == 0:
            a[-1] = b[inner]
        elif b[inner] == 0:
            b[inner] = a[-1]
        return [tuple(a), tuple(b)]

    def infer_shape(self, a, b):
        a, b = tuple(a), tuple(b)
        if not a or not b:
            return a or b
        inner = b[0] if len(b) == 1 else b[-2]
        if a[-1] != inner:
            raise self.shape_error(f"shapes {a} and {b} not aligned: {a[-1]} (dim "
                                   f"{len(a) - 1}) != {inner}")
        return a[:-1] + (b[:-2] + b[-1:] if len(b) > 1 else ())

    def infer_type(self, a, b):
        if a != b:
            raise self.type_error(f"a and b dtypes differ: {a} vs {b}")
        return a

    def blas_work(self, a, b):
        """Multiply-adds: every element of ``a`` meets a row of ``b`` (the engine's thread
        budget reads it; without it a product ran with BLAS's every thread, which on a busy
        machine made a 256x784x256 ``np.dot`` 10x slower than ``nd.dot``)."""
        if not a or not b:
            return 0
        return int(np.prod(a)) * int(np.prod(b)) // max(a[-1], 1)

    def forward(self, xp, a, b):
        return xp.asarray(xp.dot(a, b))

    def backward(self, xp, out_grad, a, b):
        if a.ndim == 0 or b.ndim == 0:
            scalar, other = (a, b) if a.ndim == 0 else (b, a)
            grad_scalar = xp.asarray((out_grad * other).sum(), dtype=scalar.dtype)
            grad_other = out_grad * scalar
            return (grad_scalar, grad_other) if a.ndim == 0 else (grad_other, grad_scalar)
        (a_term, b_term), out_term = _dot_subscripts(a.ndim, b.ndim)
        out_grad = out_grad.reshape(self.infer_shape(a.shape, b.shape))
        # optimize=True: each contraction becomes one BLAS product (tensordot), not
        # einsum's own loop (11 ms against 1 ms for a 256x784x256 layer's gradient)
        return (xp.einsum(f"{out_term},{b_term}->{a_term}", out_grad, b, optimize=True),
                xp.einsum(f"{out_term},{a_term}->{b_term}", out_grad, a, optimize=True))


@register_op
class NumpySqueeze(Squeeze):
    """NumPy's ``squeeze``: removing every axis gives a zero-dimensional result (``squeeze``
    gives ``(1,)``), so a graph drops reduced axes without knowing the shape."""

    name = "_np_squeeze"
    method = False
    aliases = ()
    test = TestHints(shapes=((1, 3, 1),),
                     reference=lambda np, x, axis=None, **_: np.squeeze(x, axis),
                     cases=(({"axis": (0, 1)}, ((1, 1),)),))

    def infer_shape(self, data):
        if not len(data):               # NumPy squeezes a 0-d array (axis 0 or -1) to itself
            return ()
        if all(size == 1 for size in data) and (self.axis is None or
                                                len(normalize_axes(self, self.axis, len(data)))
                                                == len(data)):
            return ()
        return super().infer_shape(data)


@register_op
class NumpyReshape(NewShape):
    """NumPy's ``reshape``: one ``-1`` is inferred and ``0`` is an axis of size zero
    (``Reshape`` reads 0 as "copy this dim", MXNet's legacy code)."""

    name = "_np_reshape"
    params = {"newshape": Param(Shape, doc="the target shape; one -1 is inferred"),
              "order": Param(str, default="C", doc="only 'C' (row-major) is supported")}
    test = TestHints(shapes=((2, 3, 4),), params={"newshape": (4, -1)},
                     cases=(({"newshape": (3, -1, 2)}, ((2, 3, 2),)),
                            ({"newshape": ()}, ((1, 1),))),
                     reference=lambda np, x, newshape, **_: x.reshape(newshape))

    def infer_shape(self, data):
        if self.order != "C":
            raise self.param_error(f"order={self.order!r}: only 'C' is supported")
        size, newshape = math.prod(data), tuple(self.newshape)
        known = math.prod(s for s in newshape if s != -1)
        if newshape.count(-1) == 1 and known:
            newshape = tuple(size // known if s == -1 else s for s in newshape)
        if -1 in newshape or math.prod(newshape) != size:
            raise self.shape_error(f"cannot reshape array of size {size} (shape "
                                   f"{tuple(data)}) into shape {tuple(self.newshape)}")
        return newshape
