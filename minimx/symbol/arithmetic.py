"""``+ - * / ** == ...`` on Symbols: element-wise operators, or scalar ones for numbers.

Lesson: 06-symbol.  As in MXNet, ``a + b`` on Symbols is ``elemwise_add``
(no broadcasting; use ``sym.broadcast_add`` for that) and ``a + 1`` is
``_plus_scalar``.  The hints give MXNet's automatic names (``_plus0``,
``_plusscalar0``).
"""
import numbers

from ..base import MXNetError
from ..op import get_op

__all__ = ["binary"]

# kind -> (symbol-symbol op, its name hint, symbol-scalar op, its hint, reflected scalar op, hint)
_TABLE = {
    "add": ("elemwise_add", "_plus", "_plus_scalar", "_plusscalar", None, None),
    "sub": ("elemwise_sub", "_minus", "_minus_scalar", "_minusscalar", None, None),
    "rsub": (None, None, "_rminus_scalar", "_rminusscalar", None, None),
    "mul": ("elemwise_mul", "_mul", "_mul_scalar", "_mulscalar", None, None),
    "div": ("elemwise_div", "_div", "_div_scalar", "_divscalar", None, None),
    "rdiv": (None, None, "_rdiv_scalar", "_rdivscalar", None, None),
    "mod": ("broadcast_mod", "_mod", "_mod_scalar", "_modscalar", None, None),
    "rmod": (None, None, "_rmod_scalar", "_rmodscalar", None, None),
    "pow": ("broadcast_power", "_power", "_power_scalar", "_powerscalar", None, None),
    "rpow": (None, None, "_rpower_scalar", "_rpower_scalar", None, None),
    "eq": ("broadcast_equal", "_equal", "_equal_scalar", "_equal_scalar", None, None),
    "ne": ("broadcast_not_equal", "_not_equal", "_not_equal_scalar", "_not_equal_scalar",
           None, None),
    "gt": ("broadcast_greater", "_greater", "_greater_scalar", "_greater_scalar", None, None),
    "ge": ("broadcast_greater_equal", "_greater_equal", "_greater_equal_scalar",
           "_greater_equal_scalar", None, None),
    "lt": ("broadcast_lesser", "_lesser", "_lesser_scalar", "_lesser_scalar", None, None),
    "le": ("broadcast_lesser_equal", "_lesser_equal", "_lesser_equal_scalar",
           "_lesser_equal_scalar", None, None),
}


def binary(symbol, other, kind):
    """``symbol <kind> other`` where ``other`` is a Symbol or a number."""
    from .symbol import Symbol, compose_op
    array_op, array_hint, scalar_op, scalar_hint, _, _ = _TABLE[kind]
    if isinstance(other, Symbol):
        if array_op is None:
            raise MXNetError(f"unsupported symbolic operation {kind} between two Symbols")
        return compose_op(get_op(array_op), (symbol, other), {}, array_hint)
    if isinstance(other, numbers.Number):
        return compose_op(get_op(scalar_op), (symbol,), {"scalar": other}, scalar_hint)
    raise MXNetError(f"unsupported operand type for Symbol arithmetic: {type(other).__name__}")
