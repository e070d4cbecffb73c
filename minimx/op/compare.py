"""Comparisons and logical operators, tensor-tensor (broadcasting) and tensor-scalar.

Lesson: 02-ndarray.  Mirrors ``src/operator/tensor/elemwise_binary_broadcast_op_logic.cc``
and ``elemwise_binary_scalar_op_logic.cc``.  ``a > b`` on NDArrays calls
``broadcast_greater``; ``a > 1`` calls ``_greater_scalar``.  The result is 0/1 in the
input's dtype, as in MXNet, and has no gradient.  Each relation is written once and
declared in both forms.
"""
import operator

from .arithmetic import BroadcastBinary, ScalarOp, broadcast_hints
from .registry import TestHints, declare_op


# -- the two bases ----------------------------------------------
class BroadcastCompare(BroadcastBinary):
    """A comparison with broadcasting: 1 where ``relation`` holds, else 0, in the inputs' dtype."""

    differentiable = False
    saves = ()
    relation = None         # a function of two arrays giving a boolean array

    def forward(self, xp, lhs, rhs):
        return self.relation(lhs, rhs).astype(lhs.dtype)


class ScalarCompare(ScalarOp):
    """A comparison with a scalar: 1 where ``relation`` holds, else 0, in the input's dtype."""

    differentiable = False
    saves = ()
    relation = None

    def forward(self, xp, data):
        return self.relation(data, data.dtype.type(self.scalar)).astype(data.dtype)


def _nonzero_both(combine):
    return lambda a, b: combine(a != 0, b != 0)


# MXNet's name: (the relation, the numpy ufunc the tests compare with, how the docs write it)
_RELATIONS = {
    "equal": (operator.eq, "equal", "=="),
    "not_equal": (operator.ne, "not_equal", "!="),
    "greater": (operator.gt, "greater", ">"),
    "greater_equal": (operator.ge, "greater_equal", ">="),
    "lesser": (operator.lt, "less", "<"),
    "lesser_equal": (operator.le, "less_equal", "<="),
    "logical_and": (_nonzero_both(operator.and_), "logical_and", "and"),
    "logical_or": (_nonzero_both(operator.or_), "logical_or", "or"),
    "logical_xor": (_nonzero_both(operator.xor), "logical_xor", "xor"),
}


def _comparisons(relation):
    """Declare ``broadcast_<relation>`` and ``_<relation>_scalar``; returns both classes."""
    function, ufunc, symbol = _RELATIONS[relation]
    words = "".join(part.capitalize() for part in relation.split("_"))
    # small whole numbers, so that equality holds now and then
    hints = {"grad": False, "integer_inputs": {"lhs": (-1, 2), "rhs": (-1, 2), "data": (-1, 2)}}
    broadcast = declare_op(
        f"Broadcast{words}", (BroadcastCompare,), name=f"broadcast_{relation}",
        aliases=(f"_{relation}",),      # MXNet's same-shape op; equal here for equal shapes
        __doc__=f"``lhs {symbol} rhs`` as 0/1, with broadcasting.",
        relation=staticmethod(function),
        test=broadcast_hints(lambda np, a, b: getattr(np, ufunc)(a, b), **hints))
    scalar = declare_op(
        f"{words}Scalar", (ScalarCompare,), name=f"_{relation}_scalar",
        __doc__=f"``data {symbol} scalar`` as 0/1.", relation=staticmethod(function),
        test=TestHints(params={"scalar": 1.0}, cases=(({"scalar": 0.0}, ((2, 3),)),),
                       reference=lambda np, x, scalar: getattr(np, ufunc)(x, scalar), **hints))
    return broadcast, scalar


BroadcastEqual, EqualScalar = _comparisons("equal")
BroadcastNotEqual, NotEqualScalar = _comparisons("not_equal")
BroadcastGreater, GreaterScalar = _comparisons("greater")
BroadcastGreaterEqual, GreaterEqualScalar = _comparisons("greater_equal")
BroadcastLesser, LesserScalar = _comparisons("lesser")
BroadcastLesserEqual, LesserEqualScalar = _comparisons("lesser_equal")
BroadcastLogicalAnd, LogicalAndScalar = _comparisons("logical_and")
BroadcastLogicalOr, LogicalOrScalar = _comparisons("logical_or")
BroadcastLogicalXor, LogicalXorScalar = _comparisons("logical_xor")
