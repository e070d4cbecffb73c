"""Comparisons and logical operators, tensor-tensor (broadcasting) and tensor-scalar.

Lesson: 02-ndarray-and-context.
Mirrors ``src/operator/tensor/elemwise_binary_broadcast_op_logic.cc``
and ``elemwise_binary_scalar_op_logic.cc``.  ``a > b`` on NDArrays calls
``broadcast_greater``; ``a > 1`` calls ``_greater_scalar``.  The result is 0/1 in the
input's dtype, as in MXNet, and has no gradient.  Each relation is written once and
declared in three forms: broadcasting, same-shape (``_greater``: what ``a > b`` writes
into a Symbol graph) and with a scalar.
"""
import operator

from .arithmetic import BroadcastBinary, ElemwiseBinary, ScalarOp, broadcast_hints
from .common import scalar_in
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
        return self.relation(data, scalar_in(data.dtype, self.scalar)).astype(data.dtype)


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
    """Declare ``broadcast_<relation>``, ``_<relation>`` and ``_<relation>_scalar``, with
    the names MXNet used before 1.0 as aliases (``_Greater_Equal``, ``_GreaterEqualScalar``);
    returns the three classes."""
    function, ufunc, symbol = _RELATIONS[relation]
    parts = [part.capitalize() for part in relation.split("_")]
    words = "".join(parts)
    # small whole numbers, so that equality holds now and then
    hints = {"grad": False, "integer_inputs": {"lhs": (-1, 2), "rhs": (-1, 2), "data": (-1, 2)}}
    broadcast = declare_op(
        f"Broadcast{words}", (BroadcastCompare,), name=f"broadcast_{relation}",
        __doc__=f"``lhs {symbol} rhs`` as 0/1, with broadcasting.",
        relation=staticmethod(function),
        test=broadcast_hints(lambda np, a, b: getattr(np, ufunc)(a, b), **hints))
    same_shape = declare_op(
        words, (ElemwiseBinary, broadcast), name=f"_{relation}",
        aliases=("_" + "_".join(parts),), __doc__=f"``lhs {symbol} rhs`` as 0/1, equal shapes.",
        test=TestHints(shapes=((2, 3), (2, 3)),
                       reference=lambda np, a, b: getattr(np, ufunc)(a, b), **hints))
    scalar = declare_op(
        f"{words}Scalar", (ScalarCompare,), name=f"_{relation}_scalar",
        aliases=(f"_{words}Scalar",),
        __doc__=f"``data {symbol} scalar`` as 0/1.", relation=staticmethod(function),
        test=TestHints(params={"scalar": 1.0}, cases=(({"scalar": 0.0}, ((2, 3),)),),
                       reference=lambda np, x, scalar: getattr(np, ufunc)(x, scalar), **hints))
    return broadcast, same_shape, scalar


BroadcastEqual, Equal, EqualScalar = _comparisons("equal")
BroadcastNotEqual, NotEqual, NotEqualScalar = _comparisons("not_equal")
BroadcastGreater, Greater, GreaterScalar = _comparisons("greater")
BroadcastGreaterEqual, GreaterEqual, GreaterEqualScalar = _comparisons("greater_equal")
BroadcastLesser, Lesser, LesserScalar = _comparisons("lesser")
BroadcastLesserEqual, LesserEqual, LesserEqualScalar = _comparisons("lesser_equal")
BroadcastLogicalAnd, LogicalAnd, LogicalAndScalar = _comparisons("logical_and")
BroadcastLogicalOr, LogicalOr, LogicalOrScalar = _comparisons("logical_or")
BroadcastLogicalXor, LogicalXor, LogicalXorScalar = _comparisons("logical_xor")
