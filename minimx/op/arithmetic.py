"""Element-wise arithmetic: tensor-tensor (broadcasting) and tensor-scalar.

Lesson: 02-ndarray-and-context.
Mirrors ``src/operator/tensor/elemwise_binary_broadcast_op_basic.cc``
and ``elemwise_binary_scalar_op_basic.cc``.  ``a + b`` on NDArrays calls
``broadcast_add``; ``a + 1`` calls ``_plus_scalar``.  The comparisons, built on the
same base classes, are in ``compare.py``.
"""
import math

import numpy

from .common import (broadcast_shape, holds_negative_zero, numpy_keeps_right_zero, scalar_in,
                     sum_to_shape)
from .params import Param
from .registry import ALL_NEEDED, OpDef, TestHints, register_op


def extremum(xp, lhs, rhs, larger):
    """MXNet's ``maximum`` (``larger``; else ``minimum``): ``isnan(a) ? a : (a > b ? a : b)``
    (``a < b`` for the minimum), so of two equal values the right-hand one, ``b``.

    numpy's ``maximum`` gives the same values but for +0 against -0, where its loops pick
    differently (float16's the left one, float32's vector loop the right one).  Only an
    input holding a -0 can tie two zeros of opposite signs: one integer ``min`` over its
    bits tells (``holds_negative_zero``), and then every zero of the result is chosen
    again by MXNet's rule.  ``rhs`` may be a scalar of ``lhs``'s dtype."""
    result = (xp.maximum if larger else xp.minimum)(lhs, rhs)
    if result.dtype.kind == "f" and not (xp is numpy and numpy_keeps_right_zero(
            result.dtype, larger, numpy.ndim(rhs) == 0)) and (
                holds_negative_zero(xp, rhs) or holds_negative_zero(xp, lhs)):
        zero = result == 0
        beats = (lhs > rhs) if larger else (lhs < rhs)
        result = xp.asarray(result)
        result[zero] = xp.broadcast_to(xp.where(beats, lhs, rhs), result.shape)[zero]
    return result


def broadcast_hints(reference, **hints):
    """TestHints for two inputs that broadcast: (2, 3) with (1, 3), and (3, 1, 2) with (4, 2)."""
    return TestHints(shapes=((2, 3), (1, 3)), cases=(({}, ((3, 1, 2), (4, 2))),),
                     reference=reference, **hints)


def _same_shape_hints(reference, **hints):
    return TestHints(shapes=((2, 3), (2, 3)), reference=reference, **hints)


def _needed(xp, needs, *grads_and_shapes):
    """Each gradient summed down to its input's shape, or None where nobody needs it.

    Inputs of two shapes take MXNet's broadcast backward, which sums every gradient, the
    one of the full-shape input too, over its broadcast axes (none for that one) starting
    from +0: so a -0 gradient (a -0 head, or a head times a 0 mask) comes back +0 on both
    sides (``-0 + 0``); numpy's sum keeps it.  Inputs of one shape take the element-wise
    backward, which keeps it, and so do MXNet's scalar operators: the np frontend hands
    this operator a Python number as a 0-d array (``np.mod(x, 2.0)``; MXNet's
    ``_npi_mod_scalar``), so a 0-d operand counts as a scalar -- unless its own gradient
    is needed: a number has none, so that operand is a 0-d array of the program's
    (``w * x`` with ``w = np.array(2.0)`` and ``w.attach_grad()``), and MXNet's broadcast
    backward sums its gradient over every axis."""
    (_, lhs_shape), (_, rhs_shape) = grads_and_shapes
    broadcast = tuple(lhs_shape) != tuple(rhs_shape) and (
        (len(lhs_shape) and len(rhs_shape))
        or any(needs[position] and not len(shape)
               for position, (_, shape) in enumerate(grads_and_shapes)))
    return tuple((_from_plus_zero(sum_to_shape(xp, grad, shape)) if broadcast else grad)
                 if needs[position] else None
                 for position, (grad, shape) in enumerate(grads_and_shapes))


def _from_plus_zero(grad):
    """``0 + grad``: a -0 becomes +0, every other value stays."""
    if grad.dtype.kind not in "fc":
        return grad
    return grad + 0


def half_in_float32(function, *arrays):
    """``function(*arrays)``, for float16 arrays in float32 and rounded to float16 once:
    MXNet's binary gradient functors (``DType(expr)`` of ``math::`` functions) compute in
    float for half_t."""
    if arrays[0].dtype != "float16":
        return function(*arrays)
    return function(*(a.astype("float32") for a in arrays)).astype("float16")


class BroadcastBinary(OpDef):
    """Two inputs broadcast against each other; subclasses give ``compute`` and ``grads``.

    Backward reduces (``sum_to_shape``) only the gradients someone ``needs``.
    """

    inputs = ("lhs", "rhs")
    saves = ("lhs", "rhs", "lhs_shape", "rhs_shape")

    def infer_shape(self, lhs, rhs):
        return broadcast_shape(self, lhs, rhs)

    def infer_type(self, lhs, rhs):
        if lhs != rhs:
            raise self.type_error(f"lhs and rhs dtypes differ: {lhs} vs {rhs}")
        return lhs

    def forward(self, xp, lhs, rhs):
        return self.compute(xp, lhs, rhs)

    def backward(self, xp, out_grad, lhs, rhs, lhs_shape, rhs_shape, needs=ALL_NEEDED):
        grad_lhs, grad_rhs = self.grads(xp, out_grad, lhs, rhs)
        return _needed(xp, needs, (grad_lhs, lhs_shape), (grad_rhs, rhs_shape))


@register_op
class BroadcastAdd(BroadcastBinary):
    """``lhs + rhs`` with broadcasting."""
    name = "broadcast_add"
    aliases = ("broadcast_plus",)
    saves = ("lhs_shape", "rhs_shape")
    test = broadcast_hints(lambda np, a, b: a + b)

    def compute(self, xp, lhs, rhs):
        return lhs + rhs

    def backward(self, xp, out_grad, lhs_shape, rhs_shape, needs=ALL_NEEDED):
        return _needed(xp, needs, (out_grad, lhs_shape), (out_grad, rhs_shape))


@register_op
class BroadcastSub(BroadcastBinary):
    """``lhs - rhs`` with broadcasting."""
    name = "broadcast_sub"
    aliases = ("broadcast_minus",)
    saves = ("lhs_shape", "rhs_shape")
    test = broadcast_hints(lambda np, a, b: a - b)

    def compute(self, xp, lhs, rhs):
        return lhs - rhs

    def backward(self, xp, out_grad, lhs_shape, rhs_shape, needs=ALL_NEEDED):
        return _needed(xp, needs, (out_grad, lhs_shape), (-out_grad if needs[1] else None,
                                                          rhs_shape))


@register_op
class BroadcastMul(BroadcastBinary):
    """``lhs * rhs`` with broadcasting."""
    name = "broadcast_mul"
    test = broadcast_hints(lambda np, a, b: a * b)

    def compute(self, xp, lhs, rhs):
        return lhs * rhs

    def grads(self, xp, out_grad, lhs, rhs):
        return out_grad * rhs, out_grad * lhs


def quotient(xp, op, lhs, rhs):
    """``lhs / rhs``; integers (which divide toward zero, as C's ``/``) refuse a zero
    divisor: MXNet's kernel stops the process with SIGFPE, numpy would give INT_MIN."""
    if xp.result_type(lhs, rhs).kind in "iu" and bool((rhs == 0).any()):
        raise ZeroDivisionError(f"operator {op.name}: integer division by zero")
    with numpy.errstate(divide="ignore", invalid="ignore"):    # floats: inf and NaN, silently
        return lhs / rhs


@register_op
class BroadcastDiv(BroadcastBinary):
    """``lhs / rhs`` with broadcasting."""
    name = "broadcast_div"
    test = broadcast_hints(lambda np, a, b: a / b, low=0.5, high=2.0)

    def compute(self, xp, lhs, rhs):
        return quotient(xp, self, lhs, rhs)

    def grads(self, xp, out_grad, lhs, rhs):
        # MXNet's div_grad and div_rgrad, each times the head gradient: g * (1 / b) and
        # g * (-a / (b * b)) (not g / b and -g * a / (b * b), which round differently)
        return (out_grad * half_in_float32(lambda b: 1.0 / b, rhs),
                out_grad * half_in_float32(lambda a, b: -a / (b * b), lhs, rhs))


def floor_mod(xp, lhs, rhs):
    """``lhs % rhs`` as MXNet computes it: the remainder takes the sign of the divisor (Python's
    ``%``, numpy's ``mod``; not C's ``fmod``, which keeps the dividend's), and a divisor of 0
    gives 0.  Floats are computed in float64 and rounded back to their dtype, as MXNet does.
    A zero remainder has the sign MXNet's branches give it (``fmod`` of the magnitudes, plus
    a +0 for mixed signs): -0 only from a -0 over a positive divisor or a negative over a
    negative one, where numpy's ``mod`` gives the divisor's sign."""
    dtype = xp.result_type(lhs, rhs)
    work = xp.float64 if dtype.kind == "f" else dtype
    by_zero = rhs == 0
    with numpy.errstate(invalid="ignore"):      # an infinite dividend gives NaN, silently
        remainder = xp.mod(xp.asarray(lhs, dtype=work), xp.where(by_zero, 1, rhs).astype(work))
    if dtype.kind == "f":
        negative = ((rhs > 0) & (lhs == 0) & xp.signbit(lhs)) | ((rhs < 0) & (lhs < 0))
        remainder = xp.where(remainder == 0, xp.where(negative, -0.0, 0.0), remainder)
    return xp.where(by_zero, 0, remainder).astype(dtype)


def mod_grad_lhs(xp, out_grad, lhs):
    """d(lhs % rhs)/d(lhs) is 1; MXNet gives integer inputs a gradient of 0."""
    return out_grad if lhs.dtype.kind == "f" else xp.zeros_like(out_grad)


def mod_grad_rhs(xp, out_grad, lhs, rhs):
    """d(lhs % rhs)/d(rhs) is ``-floor(lhs / rhs)``, divided in the inputs' dtype (inf where
    ``rhs`` is 0, as MXNet's); 0 for integer inputs."""
    if rhs.dtype.kind != "f":
        return xp.zeros_like(out_grad)
    return -out_grad * xp.floor(lhs / rhs)


@register_op
class BroadcastMod(BroadcastBinary):
    """``lhs % rhs`` with broadcasting; the sign follows the divisor (``floor_mod``)."""
    name = "broadcast_mod"
    test = broadcast_hints(lambda np, a, b: np.mod(a, b), low=0.6, high=2.0, grad=False)

    def compute(self, xp, lhs, rhs):
        return floor_mod(xp, lhs, rhs)

    def grads(self, xp, out_grad, lhs, rhs):
        return mod_grad_lhs(xp, out_grad, lhs), mod_grad_rhs(xp, out_grad, lhs, rhs)


def integer_safe_power(xp, base, exponent):
    """``xp.power(base, exponent)``, and where both are integers and an exponent is
    negative, MXNet's answer instead of numpy's error: the real power truncated toward zero,
    in the integer dtype (``2 ** -1 == 0``, ``(-1) ** -1 == -1``, ``1 ** -2 == 1``)."""
    kinds = (getattr(base, "dtype", None), getattr(exponent, "dtype", None))
    if (all(kind is not None and kind.kind in "iu" for kind in kinds)
            and bool((xp.asarray(exponent) < 0).any())):
        real = xp.power(xp.asarray(base, dtype="float64"), xp.asarray(exponent, dtype="float64"))
        return xp.trunc(real).astype(xp.result_type(base, exponent))
    return xp.power(base, exponent)


@register_op
class BroadcastPower(BroadcastBinary):
    """``lhs ** rhs`` with broadcasting."""
    name = "broadcast_power"
    xp_name = "power"
    test = broadcast_hints(lambda np, a, b: a ** b, low=0.5, high=2.0)

    def compute(self, xp, lhs, rhs):
        return integer_safe_power(xp, lhs, rhs)

    def grads(self, xp, out_grad, lhs, rhs):
        # MXNet's power_grad and power_rgrad, each times the head gradient:
        # g * (a ** (b - 1) * b) and g * (a ** b * log(a))
        return (out_grad * half_in_float32(lambda a, b: xp.power(a, b - 1) * b, lhs, rhs),
                out_grad * half_in_float32(lambda a, b: xp.power(a, b) * xp.log(a),
                                                lhs, rhs))


@register_op
class BroadcastMaximum(BroadcastBinary):
    """Element-wise maximum with broadcasting."""
    name = "broadcast_maximum"
    xp_name = "maximum"
    test = broadcast_hints(lambda np, a, b: np.maximum(a, b))

    def compute(self, xp, lhs, rhs):
        return extremum(xp, lhs, rhs, larger=True)

    def grads(self, xp, out_grad, lhs, rhs):
        mask = (lhs >= rhs).astype(out_grad.dtype)
        return out_grad * mask, out_grad * (1 - mask)


@register_op
class BroadcastMinimum(BroadcastBinary):
    """Element-wise minimum with broadcasting."""
    name = "broadcast_minimum"
    xp_name = "minimum"
    test = broadcast_hints(lambda np, a, b: np.minimum(a, b))

    def compute(self, xp, lhs, rhs):
        return extremum(xp, lhs, rhs, larger=False)

    def grads(self, xp, out_grad, lhs, rhs):
        mask = (lhs <= rhs).astype(out_grad.dtype)
        return out_grad * mask, out_grad * (1 - mask)


@register_op
class BroadcastHypot(BroadcastBinary):
    """``sqrt(lhs**2 + rhs**2)`` with broadcasting."""
    name = "broadcast_hypot"
    xp_name = "hypot"
    test = broadcast_hints(lambda np, a, b: np.sqrt(a * a + b * b), low=0.5, high=2.0)

    def compute(self, xp, lhs, rhs):
        return xp.hypot(lhs, rhs)

    def grads(self, xp, out_grad, lhs, rhs):
        # MXNet's hypot_grad_left/right, each times the head gradient: g * (a / hypot(a, b))
        return (out_grad * half_in_float32(lambda a, b: a / xp.hypot(a, b), lhs, rhs),
                out_grad * half_in_float32(lambda a, b: b / xp.hypot(a, b), lhs, rhs))


class ElemwiseBinary(BroadcastBinary):
    """Like the broadcast version, but both inputs must have the same shape."""

    def shaped_like_output(self):
        return (0, 1)

    def infer_shape(self, lhs, rhs):
        if tuple(lhs) != tuple(rhs):
            raise self.shape_error(f"inputs must have the same shape, got lhs {tuple(lhs)} "
                                   f"and rhs {tuple(rhs)}")
        return lhs


@register_op
class ElemwiseAdd(ElemwiseBinary, BroadcastAdd):
    """``lhs + rhs`` for inputs of equal shape."""
    name = "elemwise_add"
    aliases = ("_plus", "_add", "_Plus")
    test = _same_shape_hints(lambda np, a, b: a + b)


@register_op
class ElemwiseSub(ElemwiseBinary, BroadcastSub):
    """``lhs - rhs`` for inputs of equal shape."""
    name = "elemwise_sub"
    aliases = ("_minus", "_sub", "_Minus")
    test = _same_shape_hints(lambda np, a, b: a - b)


@register_op
class ElemwiseMul(ElemwiseBinary, BroadcastMul):
    """``lhs * rhs`` for inputs of equal shape."""
    name = "elemwise_mul"
    aliases = ("_mul", "_Mul")
    test = _same_shape_hints(lambda np, a, b: a * b)


@register_op
class ElemwiseDiv(ElemwiseBinary, BroadcastDiv):
    """``lhs / rhs`` for inputs of equal shape."""
    name = "elemwise_div"
    aliases = ("_div", "_Div")
    test = _same_shape_hints(lambda np, a, b: a / b, low=0.5, high=2.0)


# MXNet's same-shape versions of five more broadcast ops: what ``a ** b``, ``a % b`` and
# ``sym.maximum(a, b)`` write into a Symbol graph (``_Power`` is their name before 1.0).
@register_op
class ElemwiseMod(ElemwiseBinary, BroadcastMod):
    """``lhs % rhs`` for inputs of equal shape."""
    name = "_mod"
    aliases = ("_Mod",)
    test = _same_shape_hints(lambda np, a, b: np.mod(a, b), low=0.6, high=2.0, grad=False)


@register_op
class ElemwisePower(ElemwiseBinary, BroadcastPower):
    """``lhs ** rhs`` for inputs of equal shape."""
    name = "_power"
    aliases = ("_Power",)
    test = _same_shape_hints(lambda np, a, b: a ** b, low=0.5, high=2.0)


@register_op
class ElemwiseMaximum(ElemwiseBinary, BroadcastMaximum):
    """Element-wise maximum of inputs of equal shape."""
    name = "_maximum"
    aliases = ("_Maximum",)
    test = _same_shape_hints(lambda np, a, b: np.maximum(a, b))


@register_op
class ElemwiseMinimum(ElemwiseBinary, BroadcastMinimum):
    """Element-wise minimum of inputs of equal shape."""
    name = "_minimum"
    aliases = ("_Minimum",)
    test = _same_shape_hints(lambda np, a, b: np.minimum(a, b))


@register_op
class ElemwiseHypot(ElemwiseBinary, BroadcastHypot):
    """``sqrt(lhs**2 + rhs**2)`` for inputs of equal shape."""
    name = "_hypot"
    aliases = ("_Hypot",)
    test = _same_shape_hints(lambda np, a, b: np.sqrt(a * a + b * b), low=0.5, high=2.0)


# -- tensor and scalar -------------------------------------------------------------------------
def _scalar_hints(reference, scalar=1.5, low=0.5, high=2.0, **hints):
    """TestHints for a tensor-scalar operator: ``scalar`` and inputs in ``[low, high]``."""
    return TestHints(params={"scalar": scalar}, low=low, high=high, reference=reference, **hints)


class ScalarOp(OpDef):
    """One tensor input and a Python number ``scalar``."""

    params = {"scalar": Param(float, default=1.0, doc="the scalar operand")}
    saves = ("data",)

    def shaped_like_output(self):
        return (0,)

    def backward(self, xp, out_grad, data):
        return out_grad * half_in_float32(lambda x: self.derivative(xp, x), data)


def _cast_like(xp, value, data):
    return value.astype(data.dtype, copy=False) if hasattr(value, "astype") else value


@register_op
class PlusScalar(ScalarOp):
    """``data + scalar``."""
    name = "_plus_scalar"
    aliases = ("_PlusScalar",)
    test = _scalar_hints(lambda np, x, scalar: x + scalar)
    saves = ()

    def forward(self, xp, data):
        return data + scalar_in(data.dtype, self.scalar)

    def backward(self, xp, out_grad):
        return out_grad


@register_op
class MinusScalar(PlusScalar):
    """``data - scalar``."""
    name = "_minus_scalar"
    aliases = ("_MinusScalar",)
    test = _scalar_hints(lambda np, x, scalar: x - scalar)

    def forward(self, xp, data):
        return data - scalar_in(data.dtype, self.scalar)


@register_op
class RMinusScalar(ScalarOp):
    """``scalar - data``."""
    name = "_rminus_scalar"
    aliases = ("_RMinusScalar",)
    test = _scalar_hints(lambda np, x, scalar: scalar - x)
    saves = ()

    def forward(self, xp, data):
        return scalar_in(data.dtype, self.scalar) - data

    def backward(self, xp, out_grad):
        return -out_grad


@register_op
class MulScalar(ScalarOp):
    """``data * scalar``."""
    name = "_mul_scalar"
    aliases = ("_MulScalar",)
    test = _scalar_hints(lambda np, x, scalar: x * scalar)
    saves = ()

    def forward(self, xp, data):
        return data * scalar_in(data.dtype, self.scalar)

    def backward(self, xp, out_grad):
        return out_grad * self.scalar


@register_op
class DivScalar(ScalarOp):
    """``data / scalar``."""
    name = "_div_scalar"
    aliases = ("_DivScalar",)
    test = _scalar_hints(lambda np, x, scalar: x / scalar)
    saves = ()

    def forward(self, xp, data):
        return _cast_like(xp, quotient(xp, self, data, scalar_in(data.dtype, self.scalar)), data)

    def backward(self, xp, out_grad):
        return out_grad / self.scalar


@register_op
class RDivScalar(ScalarOp):
    """``scalar / data``."""
    name = "_rdiv_scalar"
    aliases = ("_RDivScalar",)
    test = _scalar_hints(lambda np, x, scalar: scalar / x)

    def forward(self, xp, data):
        return _cast_like(xp, quotient(xp, self, scalar_in(data.dtype, self.scalar), data), data)

    def derivative(self, xp, data):
        return -self.scalar / (data * data)


@register_op
class ModScalar(ScalarOp):
    """``data % scalar`` (``floor_mod``; the scalar is first cast to the data's dtype)."""
    name = "_mod_scalar"
    aliases = ("_ModScalar",)
    test = _scalar_hints(lambda np, x, scalar: np.mod(x, scalar), scalar=0.7, low=0.1,
                         grad=False)

    def forward(self, xp, data):
        return floor_mod(xp, data, xp.asarray(self.scalar).astype(data.dtype))

    def backward(self, xp, out_grad, data):
        return mod_grad_lhs(xp, out_grad, data)


@register_op
class RModScalar(ScalarOp):
    """``scalar % data`` (``floor_mod``; the scalar is first cast to the data's dtype)."""
    name = "_rmod_scalar"
    aliases = ("_RModScalar",)
    test = _scalar_hints(lambda np, x, scalar: np.mod(scalar, x), scalar=1.7, low=0.6,
                         grad=False)

    def forward(self, xp, data):
        return floor_mod(xp, xp.asarray(self.scalar).astype(data.dtype), data)

    def backward(self, xp, out_grad, data):
        return mod_grad_rhs(xp, out_grad, xp.asarray(self.scalar).astype(data.dtype), data)


@register_op
class PowerScalar(ScalarOp):
    """``data ** scalar``."""
    name = "_power_scalar"
    aliases = ("_PowerScalar",)
    test = _scalar_hints(lambda np, x, scalar: x ** scalar)

    def forward(self, xp, data):
        return _cast_like(xp, integer_safe_power(xp, data, scalar_in(data.dtype, self.scalar)),
                          data)

    def derivative(self, xp, data):
        # a Python float exponent keeps data's dtype, and also works on NDArrays (2nd order)
        return self.scalar * xp.power(data, self.scalar - 1)


@register_op
class RPowerScalar(ScalarOp):
    """``scalar ** data``."""
    name = "_rpower_scalar"
    aliases = ("_RPowerScalar",)
    test = _scalar_hints(lambda np, x, scalar: scalar ** x)
    saves = ("output",)

    def forward(self, xp, data):
        return _cast_like(xp, integer_safe_power(xp, scalar_in(data.dtype, self.scalar), data),
                          data)

    def backward(self, xp, out_grad, output):
        # MXNet's rpower_grad: g * (y * log(scalar)), log in the dtype's precision (logf of
        # the float scalar below float64; float16 computes in float)
        if output.dtype == "float64":
            return out_grad * (output * math.log(self.scalar))
        log = float(numpy.log(numpy.float32(self.scalar)))
        return out_grad * half_in_float32(lambda y: y * log, output)


def _scalar_extremum(xp, data, scalar, larger):
    """``extremum(data, scalar)``; a scalar other than 0 cannot tie a zero: numpy's alone."""
    scalar = scalar_in(data.dtype, scalar)
    if scalar == 0 and data.dtype.kind == "f":
        return extremum(xp, data, scalar, larger)
    return (xp.maximum if larger else xp.minimum)(data, scalar)


@register_op
class MaximumScalar(ScalarOp):
    """``maximum(data, scalar)``."""
    name = "_maximum_scalar"
    aliases = ("_MaximumScalar",)
    test = _scalar_hints(lambda np, x, scalar: np.maximum(x, scalar), scalar=0.1, low=-1.0,
                         high=1.0)

    def forward(self, xp, data):
        # MXNet's maximum(data, scalar) (``maximum(0, x)`` too): of equal values the scalar
        return _scalar_extremum(xp, data, self.scalar, larger=True)

    def derivative(self, xp, data):
        return (data >= self.scalar).astype(data.dtype)


@register_op
class MinimumScalar(ScalarOp):
    """``minimum(data, scalar)``."""
    name = "_minimum_scalar"
    aliases = ("_MinimumScalar",)
    test = _scalar_hints(lambda np, x, scalar: np.minimum(x, scalar), scalar=0.1, low=-1.0,
                         high=1.0)

    def forward(self, xp, data):
        return _scalar_extremum(xp, data, self.scalar, larger=False)

    def derivative(self, xp, data):
        return (data <= self.scalar).astype(data.dtype)


@register_op
class HypotScalar(ScalarOp):
    """``sqrt(data**2 + scalar**2)``."""
    name = "_hypot_scalar"
    aliases = ("_HypotScalar",)
    test = _scalar_hints(lambda np, x, scalar: np.hypot(x, scalar))

    def forward(self, xp, data):
        return xp.hypot(data, scalar_in(data.dtype, self.scalar))

    def derivative(self, xp, data):
        return data / xp.hypot(data, self.scalar)
