"""``+ - * / ** == ...`` on Symbols: element-wise operators, or scalar ones for numbers.

Lesson: 07-symbolic-programming.  Mirrors the operators of ``python/mxnet/symbol/symbol.py``.
As in MXNet, ``a + b`` on Symbols is ``elemwise_add`` and ``a ** b`` is ``_power``
(same shapes, no broadcasting; use ``sym.broadcast_add`` for that) and ``a + 1``
is ``_plus_scalar``.  The hints give MXNet's automatic names (``_plus0``,
``_plusscalar0``).  ``sym.pow``/``maximum``/``minimum``/``hypot`` take Symbols or
numbers on either side.
"""
import math
import numbers

from ..base import InvalidTypeError
from ..op import get_op

__all__ = ["binary", "pow", "power", "maximum", "minimum", "hypot"]

# kind -> (symbol-symbol op, its name hint, symbol-scalar op, its hint, reflected scalar op, hint)
_TABLE = {
    "add": ("elemwise_add", "_plus", "_plus_scalar", "_plusscalar", None, None),
    "sub": ("elemwise_sub", "_minus", "_minus_scalar", "_minusscalar", None, None),
    "rsub": (None, None, "_rminus_scalar", "_rminusscalar", None, None),
    "mul": ("elemwise_mul", "_mul", "_mul_scalar", "_mulscalar", None, None),
    "div": ("elemwise_div", "_div", "_div_scalar", "_divscalar", None, None),
    "rdiv": (None, None, "_rdiv_scalar", "_rdivscalar", None, None),
    "mod": ("_mod", "_mod", "_mod_scalar", "_modscalar", None, None),
    "rmod": (None, None, "_rmod_scalar", "_rmodscalar", None, None),
    "pow": ("_power", "_power", "_power_scalar", "_powerscalar", None, None),
    "rpow": (None, None, "_rpower_scalar", "_rpower_scalar", None, None),
    "eq": ("_equal", "_equal", "_equal_scalar", "_equal_scalar", None, None),
    "ne": ("_not_equal", "_not_equal", "_not_equal_scalar", "_not_equal_scalar",
           None, None),
    "gt": ("_greater", "_greater", "_greater_scalar", "_greater_scalar", None, None),
    "ge": ("_greater_equal", "_greater_equal", "_greater_equal_scalar",
           "_greater_equal_scalar", None, None),
    "lt": ("_lesser", "_lesser", "_lesser_scalar", "_lesser_scalar", None, None),
    "le": ("_lesser_equal", "_lesser_equal", "_lesser_equal_scalar",
           "_lesser_equal_scalar", None, None),
}


def binary(symbol, other, kind):
    """``symbol <kind> other`` where ``other`` is a Symbol or a number."""
    from .symbol import Symbol, compose_op
    array_op, array_hint, scalar_op, scalar_hint, _, _ = _TABLE[kind]
    if isinstance(other, Symbol):
        if array_op is None:
            raise InvalidTypeError(f"unsupported symbolic operation {kind} between two "
                                   f"Symbols")
        return compose_op(get_op(array_op), (symbol, other), {}, array_hint)
    if isinstance(other, numbers.Number):
        return compose_op(get_op(scalar_op), (symbol,), {"scalar": other}, scalar_hint)
    raise InvalidTypeError(f"unsupported operand type for Symbol arithmetic: "
                           f"{type(other).__name__}")


def _either_side(lhs, rhs, names, for_numbers):
    """``lhs op rhs`` where either may be a number: ``names`` are MXNet's pre-1.0 op names
    (symbol-symbol, symbol-scalar, scalar-symbol), whose lower case is the name hint."""
    from .symbol import Symbol, compose_op
    array_op, scalar_op, reflected_op = names
    if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
        return compose_op(get_op(array_op), (lhs, rhs), {}, array_op.lower())
    if isinstance(lhs, Symbol) and isinstance(rhs, numbers.Number):
        return compose_op(get_op(scalar_op), (lhs,), {"scalar": rhs}, scalar_op.lower())
    if isinstance(lhs, numbers.Number) and isinstance(rhs, Symbol):
        return compose_op(get_op(reflected_op), (rhs,), {"scalar": lhs}, reflected_op.lower())
    if isinstance(lhs, numbers.Number) and isinstance(rhs, numbers.Number):
        return for_numbers(lhs, rhs)
    raise TypeError(f"types ({type(lhs).__name__}, {type(rhs).__name__}) not supported")


def power(base, exp):
    """``base ** exp``, element-wise; either may be a number.

    Examples
    --------
    >>> mx.sym.pow(mx.sym.var('x'), 2).eval(x=nd.array([3.0]))[0].asnumpy()
    array([9.], dtype=float32)
    """
    return _either_side(base, exp, ("_Power", "_PowerScalar", "_RPowerScalar"),
                        lambda a, b: a ** b)


pow = power     # noqa: A001 - MXNet's name


def maximum(left, right):
    """The larger of ``left`` and ``right``, element-wise; either may be a number."""
    return _either_side(left, right, ("_Maximum", "_MaximumScalar", "_MaximumScalar"), max)


def minimum(left, right):
    """The smaller of ``left`` and ``right``, element-wise; either may be a number."""
    return _either_side(left, right, ("_Minimum", "_MinimumScalar", "_MinimumScalar"), min)


def hypot(left, right):
    """``sqrt(left**2 + right**2)``, element-wise; either may be a number."""
    return _either_side(left, right, ("_Hypot", "_HypotScalar", "_HypotScalar"), math.hypot)
