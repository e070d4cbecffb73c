"""``np.dot``, ``matmul``, ``tensordot``, ``inner``, ``outer``, ``einsum``: products as
compositions of the registered ``dot``, ``batch_dot``, ``transpose``, ``Reshape`` and
``broadcast_to`` operators, so autograd and every device get them for free.

Lesson: 03-two-frontends-one-engine.  NumPy's ``dot`` of two vectors is zero-dimensional;
``matmul`` broadcasts the leading (batch) axes; ``tensordot`` moves the summed axes to the
end of ``a`` and the front of ``b`` and makes one matrix product.
"""
import numbers

import numpy as onp

from ..base import InvalidShapeError
from ..op.numpy_einsum import einsum_parts
from .adapter import call_np, is_symbolic, numpy_shaped, operand, promote
from .manipulation import broadcast_to, transpose

__all__ = ["dot", "matmul", "tensordot", "inner", "outer", "vdot", "einsum"]


def dot(a, b, out=None):
    """NumPy's ``dot``: scalars multiply, the last axis of ``a`` meets the second-to-last of
    ``b`` (the only axis of a vector); two vectors give a zero-dimensional result.  One
    operator, ``_np_dot``, whose shape rule is NumPy's, so a Symbol needs no shape."""
    a = operand(a)
    b = operand(b) if is_symbolic(a) else operand(b, ctx=a.context)
    a, b = promote(a, b)
    return call_np("_np_dot", a, b, out=out)


def tensordot(a, b, axes=2):
    """The sum of products over ``axes`` of ``a`` and ``b`` (an int: the last ``axes`` of
    ``a`` with the first of ``b``)."""
    a, b = operand(a), operand(b)
    if isinstance(axes, numbers.Integral):
        a_axes, b_axes = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        a_axes, b_axes = ([x] if isinstance(x, numbers.Integral) else list(x) for x in axes)
    a_axes = [axis % a.ndim for axis in a_axes]
    b_axes = [axis % b.ndim for axis in b_axes]
    a_free = [axis for axis in range(a.ndim) if axis not in a_axes]
    b_free = [axis for axis in range(b.ndim) if axis not in b_axes]
    summed = int(onp.prod([a.shape[axis] for axis in a_axes], dtype=onp.int64))
    left_shape = tuple(a.shape[axis] for axis in a_free)
    right_shape = tuple(b.shape[axis] for axis in b_free)
    left = transpose(a, a_free + a_axes).reshape(int(onp.prod(left_shape)), summed)
    right = transpose(b, b_axes + b_free).reshape(summed, int(onp.prod(right_shape)))
    shape = left_shape + right_shape
    return call_np("dot", left, right).reshape(shape)


def matmul(a, b, out=None):
    """The matrix product, broadcast over leading axes (vectors gain and lose an axis)."""
    a, b = operand(a), operand(b)
    if a.ndim == 0 or b.ndim == 0:
        raise InvalidShapeError("matmul: Input operand does not have enough dimensions")
    if a.ndim <= 2 and b.ndim <= 2:
        return dot(a, b, out=out)
    left = a.reshape(1, -1) if a.ndim == 1 else a
    right = b.reshape(-1, 1) if b.ndim == 1 else b
    try:
        batch = onp.broadcast_shapes(left.shape[:-2], right.shape[:-2])
    except ValueError:
        raise InvalidShapeError(f"matmul: the batch axes of {a.shape} and {b.shape} do not "
                                f"broadcast") from None
    left = broadcast_to(left, batch + left.shape[-2:]).reshape(-1, *left.shape[-2:])
    right = broadcast_to(right, batch + right.shape[-2:]).reshape(-1, *right.shape[-2:])
    result = call_np("batch_dot", left, right)
    shape = batch + (() if a.ndim == 1 else a.shape[-2:-1]) + (() if b.ndim == 1 else
                                                                 b.shape[-1:])
    return result.reshape(shape)


def inner(a, b):
    a, b = operand(a), operand(b)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1])) if a.ndim and b.ndim else a * b


def outer(a, b):
    a, b = operand(a).reshape(-1, 1), operand(b).reshape(1, -1)
    return a * b


def vdot(a, b):
    return dot(operand(a).reshape(-1), operand(b).reshape(-1))


def einsum(subscripts, *operands, optimize=False):
    """Einstein summation: the ``_npi_einsum`` operator (``optimize``: True or False, as
    MXNet's; True lets NumPy choose the order of the pairwise contractions)."""
    arrays = [operand(x) for x in operands]
    result = call_np("_npi_einsum", *arrays, subscripts=subscripts, optimize=int(bool(optimize)))
    _, output = einsum_parts(subscripts)
    return numpy_shaped(result, ()) if not output and "." not in subscripts else result
