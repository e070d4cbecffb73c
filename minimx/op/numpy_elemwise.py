"""Element-wise operators NumPy has and ``nd`` had no operator for: the floating-point
predicates (``isnan`` ...), bitwise functions, ``around``, ``arctan2``, ``copysign``,
``ldexp`` and ``lcm``.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/numpy/np_elemwise_unary_op_basic.cc``
and ``np_elemwise_broadcast_op.cc`` under MXNet's names (``_npi_isnan``, ``_npi_arctan2``,
...).  The predicates give ``bool`` arrays; the bitwise functions and ``lcm`` take integers
(or bools); none of those, nor ``around``, has a gradient.  The binary ones broadcast like
every ``broadcast_*`` operator and, like them, need one dtype (``np.arctan2`` casts first).
"""
import math

import numpy

from ..base import normalize_dtype
from .arithmetic import BroadcastBinary, half_in_float32, broadcast_hints
from .elemwise import Unary, ZeroGradient
from .params import Param
from .registry import TestHints, declare_op, register_op


# -- one input ------------------------------------------------------------------------------------
class Predicate(Unary):
    """True where ``xp.<ufunc>`` holds, as ``bool``; no gradient."""

    differentiable = False
    method = False
    saves = ()
    ufunc = None

    def infer_type(self, data):
        return "bool"

    def forward(self, xp, data):
        return getattr(xp, self.ufunc)(data)


def _predicate_inputs(rng, shapes, dtype):
    """Values with a nan, +inf and -inf among them, so every predicate sees each case."""
    values = rng.uniform(-1, 1, shapes[0]).astype(dtype)
    values.flat[:3] = (float("nan"), float("inf"), float("-inf"))
    return [values]


for _ufunc in ("isnan", "isinf", "isfinite", "isposinf", "isneginf"):
    declare_op(f"Is{_ufunc[2:].capitalize()}", (Predicate,), name=f"_npi_{_ufunc}",
               ufunc=_ufunc, __doc__=f"``{_ufunc}``, element-wise, as ``bool``.",
               test=TestHints(grad=False, inputs=_predicate_inputs,
                              reference=lambda np, x, f=_ufunc: getattr(np, f)(x)))


@register_op
class BitwiseNot(Unary):
    """``~x``: the bits of an integer flipped (``not`` for bools); no gradient."""

    name = "_npi_bitwise_not"
    differentiable = False
    method = False
    saves = ()
    test = TestHints(grad=False, dtypes=("int32",), integer_inputs={"data": (-50, 50)},
                     reference=lambda np, x: np.invert(x))

    def infer_type(self, data):
        return _integer_only(self, data)

    def forward(self, xp, data):
        return xp.invert(data)


def _integer_only(op, *dtypes):
    """The dtype of integer (or bool) inputs; a float is refused, as NumPy refuses it."""
    for dtype in dtypes:
        if normalize_dtype(dtype).kind not in "biu":
            raise op.type_error(f"{op.name} takes integer or bool arrays, got {dtype}")
    return dtypes[0]


def _c_round(xp, values):
    """C's ``round``: halves away from zero (``floor`` of the magnitude plus its fraction's
    carry, exact where adding 0.5 would round)."""
    magnitude = xp.abs(values)
    whole = xp.floor(magnitude)
    return xp.copysign(whole + (magnitude - whole >= 0.5), values)


@register_op
class Around(ZeroGradient):
    """Round to ``decimals`` decimals, halves to the even neighbour, as MXNet's kernel does
    it: the value is scaled by 10 one decimal at a time in its own dtype (integers divide
    toward zero), rounded with C's ``round`` and moved to the even neighbour where that
    went half a unit the other way, then scaled back one decimal at a time.  NumPy's
    ``around`` scales once by ``10 ** decimals``: a last bit apart from 2 decimals on, and
    integers there round where MXNet's truncate (``around(15, -1)``: 20 against 10)."""

    name = "_npi_around"
    method = False
    params = {"decimals": Param(int, default=0, doc="decimal places (negative: tens, ...)")}
    test = TestHints(low=-30.0, high=30.0, params={"decimals": 1},
                     cases=(({"decimals": -1}, ((4, 3),)),),
                     reference=lambda np, x, decimals=0: np.around(x, decimals))

    def infer_type(self, data):
        if normalize_dtype(data) == numpy.float16:         # as MXNet's kernel
            raise self.type_error("float16 input is not supported")
        return super().infer_type(data)

    def compute(self, xp, data):
        steps, ten = abs(self.decimals), data.dtype.type(10)
        if data.dtype.kind in "biu":           # whole already, or cut to tens toward zero
            if self.decimals >= 0:
                return data.copy()
            power = ten ** steps
            return (xp.sign(data) * (xp.abs(data) // power) * power).astype(data.dtype)
        scaled = data
        for _ in range(steps):
            scaled = scaled * ten if self.decimals > 0 else scaled / ten
        half = data.dtype.type(0.5)
        with numpy.errstate(invalid="ignore"):         # (NaN and inf stay as they are)
            rounded = _c_round(xp, scaled.astype(xp.float64)).astype(data.dtype)
            odd = rounded.astype(xp.int64) % 2 != 0
            rounded = xp.where(odd & (rounded - scaled == half), rounded - 1,
                               xp.where(odd & (scaled - rounded == half), rounded + 1, rounded))
        for _ in range(steps):
            rounded = rounded / ten if self.decimals > 0 else rounded * ten
        return rounded.astype(data.dtype, copy=False)


# -- two inputs, broadcasting -------------------------------------------------------------------
@register_op
class Arctan2(BroadcastBinary):
    """The angle of the point ``(rhs, lhs)``: ``arctan(lhs / rhs)`` in the right quadrant."""

    name = "_npi_arctan2"
    test = broadcast_hints(lambda np, a, b: np.arctan2(a, b), low=0.2, high=1.0)

    def compute(self, xp, lhs, rhs):
        return xp.arctan2(lhs, rhs)

    def grads(self, xp, out_grad, lhs, rhs):
        # MXNet's arctan2_grad and arctan2_rgrad, each times the head gradient:
        # g * (b / (a * a + b * b)) and g * (-a / (a * a + b * b)), in float for float16
        return (out_grad * half_in_float32(lambda a, b: b / (a * a + b * b), lhs, rhs),
                out_grad * half_in_float32(lambda a, b: -a / (a * a + b * b), lhs, rhs))


def _signs_agree(xp, lhs, rhs):
    """MXNet's test for ``copysign``: both ``>= 0`` or both ``< 0`` (so -0 counts as
    positive, and a NaN agrees with nothing)."""
    return ((lhs >= 0) & (rhs >= 0)) | ((lhs < 0) & (rhs < 0))


@register_op
class Copysign(BroadcastBinary):
    """``lhs`` with the sign of ``rhs``, as MXNet's kernel decides it: ``lhs`` where the
    signs agree (both ``>= 0`` or both ``< 0``), else ``-lhs``.  A -0 counts as positive
    and a NaN agrees with nothing, so ``copysign(-0, 1)`` is -0 and ``copysign(1, nan)``
    is -1, where IEEE's (NumPy's) reads the sign bit.  The gradient reaches ``lhs`` only:
    +1 where the signs agree, -1 elsewhere."""

    name = "_npi_copysign"
    test = broadcast_hints(lambda np, a, b: np.copysign(a, b), low=-1.0, high=1.0)

    def compute(self, xp, lhs, rhs):
        return xp.where(_signs_agree(xp, lhs, rhs), lhs, -lhs)

    def grads(self, xp, out_grad, lhs, rhs):
        return xp.where(_signs_agree(xp, lhs, rhs), out_grad, -out_grad), out_grad * 0


@register_op
class Ldexp(BroadcastBinary):
    """``lhs * 2 ** rhs`` (in ``lhs``'s dtype)."""

    name = "_npi_ldexp"
    test = broadcast_hints(lambda np, a, b: a * 2.0 ** b, low=-2.0, high=2.0)

    def compute(self, xp, lhs, rhs):
        return (lhs * xp.power(2.0, rhs)).astype(lhs.dtype)

    def grads(self, xp, out_grad, lhs, rhs):
        scale = xp.power(2.0, rhs).astype(out_grad.dtype)
        # MXNet's ldexp_rgrad: g * (a * 2 ** b * log(2.0f)), logf's float32 log 2 in every
        # dtype (math::log of a float literal), float64 included
        log2 = float(numpy.log(numpy.float32(2.0)))
        return out_grad * scale, out_grad * half_in_float32(
            lambda a, s: a * s * log2, lhs, scale)


class IntegerBinary(BroadcastBinary):
    """A function of integers (or bools) with broadcasting: ``xp.<ufunc>``; no gradient."""

    differentiable = False
    saves = ()
    ufunc = None

    def infer_type(self, lhs, rhs):
        return _integer_only(self, super().infer_type(lhs, rhs))

    def forward(self, xp, lhs, rhs):
        return getattr(xp, self.ufunc)(lhs, rhs)


for _ufunc in ("lcm", "bitwise_and", "bitwise_or", "bitwise_xor"):
    declare_op("".join(part.capitalize() for part in _ufunc.split("_")), (IntegerBinary,),
               name=f"_npi_{_ufunc}", ufunc=_ufunc,
               __doc__=f"``{_ufunc}`` of integers, with broadcasting; no gradient.",
               test=broadcast_hints(lambda np, a, b, f=_ufunc: getattr(np, f)(a, b),
                                    grad=False, dtypes=("int32",),
                                    integer_inputs={"lhs": (-20, 20), "rhs": (-20, 20)}))

