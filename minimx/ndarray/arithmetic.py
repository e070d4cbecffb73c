"""``+ - * / % ** == < ...`` on NDArrays and scalars: pick the right operator.

Lesson: 02-ndarray-and-context.  Mirrors ``_ufunc_helper`` in MXNet's ``ndarray.py``:
two arrays use the broadcasting operator, an array and a number the scalar
operator (``x + 1`` is ``_plus_scalar(x, scalar=1)``), two numbers plain Python.
"""
import numbers

import numpy as np

from ..base import InvalidTypeError
from ..op import get_op
from . import dispatch
from .ndarray import NDArray

__all__ = ["add", "subtract", "multiply", "divide", "modulo", "power", "maximum", "minimum",
           "equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal",
           "logical_and", "logical_or", "logical_xor", "negative", "absolute", "floor_divide"]


def _apply(lhs, rhs, array_op, scalar_op, reflected_op, python_op, out=None):
    if isinstance(lhs, NDArray):
        if isinstance(rhs, NDArray):
            return dispatch.invoke(get_op(array_op).create(), [lhs, rhs], out=out)
        if _is_number(rhs):
            return dispatch.invoke(get_op(scalar_op).create(scalar=float(rhs)), [lhs], out=out)
        if isinstance(rhs, np.ndarray):
            from .creation import array
            return _apply(lhs, array(rhs, ctx=lhs.context, dtype=lhs.dtype), array_op,
                          scalar_op, reflected_op, python_op, out)
    elif isinstance(rhs, NDArray) and _is_number(lhs):
        return dispatch.invoke(get_op(reflected_op).create(scalar=float(lhs)), [rhs], out=out)
    elif _is_number(lhs) and _is_number(rhs):
        return python_op(lhs, rhs)
    symbolic = getattr(lhs, "_np_compose", None) or getattr(rhs, "_np_compose", None)
    if symbolic is not None:        # an np Symbol (mx.sym.np): compose a node instead
        if _is_number(lhs):
            return symbolic(reflected_op, [rhs], {"scalar": float(lhs)})
        if _is_number(rhs):
            return symbolic(scalar_op, [lhs], {"scalar": float(rhs)})
        return symbolic(array_op, [lhs, rhs], {})
    raise InvalidTypeError(f"operator {array_op}: unsupported operand types "
                           f"{type(lhs).__name__} and {type(rhs).__name__}")


def _is_number(value):
    return isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, complex)


def add(lhs, rhs, out=None):
    """``lhs + rhs`` for arrays (broadcasting) and scalars."""
    return _apply(lhs, rhs, "broadcast_add", "_plus_scalar", "_plus_scalar",
                  lambda a, b: a + b, out)


def subtract(lhs, rhs, out=None):
    """``lhs - rhs``."""
    return _apply(lhs, rhs, "broadcast_sub", "_minus_scalar", "_rminus_scalar",
                  lambda a, b: a - b, out)


def multiply(lhs, rhs, out=None):
    """``lhs * rhs``."""
    return _apply(lhs, rhs, "broadcast_mul", "_mul_scalar", "_mul_scalar",
                  lambda a, b: a * b, out)


def divide(lhs, rhs, out=None):
    """``lhs / rhs``."""
    return _apply(lhs, rhs, "broadcast_div", "_div_scalar", "_rdiv_scalar",
                  lambda a, b: a / b, out)


true_divide = divide


def modulo(lhs, rhs, out=None):
    """``lhs % rhs``."""
    return _apply(lhs, rhs, "broadcast_mod", "_mod_scalar", "_rmod_scalar",
                  lambda a, b: a % b, out)


def power(base, exp, out=None):
    """``base ** exp``."""
    return _apply(base, exp, "broadcast_power", "_power_scalar", "_rpower_scalar",
                  lambda a, b: a ** b, out)


def maximum(lhs, rhs, out=None):
    """Element-wise maximum of arrays and/or scalars."""
    return _apply(lhs, rhs, "broadcast_maximum", "_maximum_scalar", "_maximum_scalar",
                  max, out)


def minimum(lhs, rhs, out=None):
    """Element-wise minimum of arrays and/or scalars."""
    return _apply(lhs, rhs, "broadcast_minimum", "_minimum_scalar", "_minimum_scalar",
                  min, out)


def _comparison(array_op, scalar_op, reflected_op, python_op, doc):
    def compare(lhs, rhs, out=None):
        return _apply(lhs, rhs, array_op, scalar_op, reflected_op,
                      lambda a, b: float(python_op(a, b)), out)

    compare.__doc__ = doc
    return compare


equal = _comparison("broadcast_equal", "_equal_scalar", "_equal_scalar",
                    lambda a, b: a == b, "``lhs == rhs`` as 1/0.")
not_equal = _comparison("broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar",
                        lambda a, b: a != b, "``lhs != rhs`` as 1/0.")
greater = _comparison("broadcast_greater", "_greater_scalar", "_lesser_scalar",
                      lambda a, b: a > b, "``lhs > rhs`` as 1/0.")
greater_equal = _comparison("broadcast_greater_equal", "_greater_equal_scalar",
                            "_lesser_equal_scalar", lambda a, b: a >= b, "``lhs >= rhs`` as 1/0.")
lesser = _comparison("broadcast_lesser", "_lesser_scalar", "_greater_scalar",
                     lambda a, b: a < b, "``lhs < rhs`` as 1/0.")
lesser_equal = _comparison("broadcast_lesser_equal", "_lesser_equal_scalar",
                           "_greater_equal_scalar", lambda a, b: a <= b, "``lhs <= rhs`` as 1/0.")
logical_and = _comparison("broadcast_logical_and", "_logical_and_scalar", "_logical_and_scalar",
                          lambda a, b: a and b, "Logical and as 1/0.")
logical_or = _comparison("broadcast_logical_or", "_logical_or_scalar", "_logical_or_scalar",
                         lambda a, b: a or b, "Logical or as 1/0.")
logical_xor = _comparison("broadcast_logical_xor", "_logical_xor_scalar", "_logical_xor_scalar",
                          lambda a, b: bool(a) != bool(b), "Logical xor as 1/0.")


def negative(data, **kwargs):
    """``-data`` (other keywords are ignored, as by MXNet's operator without parameters)."""
    return dispatch.invoke(get_op("negative").create(), [data])


def absolute(data):
    """``abs(data)``."""
    return dispatch.invoke(get_op("abs").create(), [data])


def floor_divide(lhs, rhs):
    """``lhs // rhs``: the floor of the quotient."""
    return dispatch.invoke(get_op("floor").create(), [divide(lhs, rhs)])
