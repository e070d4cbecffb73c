"""``np.dot``, ``matmul``, ``tensordot``, ``inner``, ``outer``, ``einsum``: products as
compositions of the registered ``dot``, ``batch_dot``, ``transpose``, ``Reshape`` and
``broadcast_to`` operators, so autograd and every device get them for free.

Lesson: 03-two-frontends-one-engine.  NumPy's ``dot`` of two vectors is zero-dimensional;
``matmul`` broadcasts the leading (batch) axes; ``tensordot`` (and ``inner``, over the last
axes) is its own operator, ``_npi_tensordot``, as in MXNet.
"""
import numbers

import numpy as onp

from ..base import InvalidShapeError
from ..op.numpy_einsum import einsum_parts
from .adapter import call_np, is_symbolic, numpy_shaped, operand, promote
from .manipulation import broadcast_to

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
    ``a`` with the first of ``b``; else two sequences of paired axes).  One operator, which
    resolves the axes against the shapes itself, so a Symbol needs no shape."""
    a, b = operand(a), operand(b)
    if isinstance(axes, numbers.Integral):
        return call_np("_npi_tensordot_int_axes", a, b, axes=axes)
    if len(axes) != 2:
        raise ValueError("tensordot: axes must consist of two sequences, got "
                         f"{len(axes)} items")
    a_axes, b_axes = ([x] if isinstance(x, numbers.Integral) else list(x) for x in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: axes length mismatch: {len(a_axes)} axes of a and "
                         f"{len(b_axes)} of b")
    return call_np("_npi_tensordot", a, b, a_axes_summed=a_axes, b_axes_summed=b_axes)


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
    """The sum of products over the last axes (a zero-dimensional operand multiplies)."""
    a, b = operand(a), operand(b)
    if not is_symbolic(a) and not is_symbolic(b) and (a.ndim == 0 or b.ndim == 0):
        return a * b
    return tensordot(a, b, axes=([-1], [-1]))


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
