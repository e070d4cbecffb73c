"""Piecewise-constant functions: sign, rounding and logical not, element-wise.

Lesson: 04-autograd.  Mirrors the rounding part of
``src/operator/tensor/elemwise_unary_op_basic.cc``.  Their gradient is zero
everywhere (``ZeroGradient``), as in MXNet, even at the jumps.  MXNet's
``round`` sends halves away from zero while ``rint`` sends them down.
"""
from .elemwise import ZeroGradient
from .registry import TestHints, register_op


@register_op
class Sign(ZeroGradient):
    """-1, 0 or 1 by the sign of ``x``; zero gradient.  NaN gives 0, as MXNet's
    (``x > 0 ? 1 : x < 0 ? -1 : 0``), where numpy's ``sign`` gives NaN."""
    name = "sign"
    xp_name = "sign"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.sign(x))

    def compute(self, xp, data):
        return mxnet_sign(xp, data)

    def backward(self, xp, out_grad):
        # MXNet's _backward_sign multiplies the head gradient by sign_grad's 0: a negative
        # (or -0) head gives -0, an infinite or NaN one NaN (the other rounding functions
        # give a plain +0 zero gradient)
        return out_grad * 0


def mxnet_sign(xp, data):
    """MXNet's sign kernel: ``x > 0 ? 1 : x < 0 ? -1 : 0``, so 0 for NaN (also the sign
    that ``signsgd_update`` and ``signum_update`` step by)."""
    signs = xp.asarray(xp.sign(data))      # (numpy gives a scalar for a 0-d array)
    if signs.dtype.kind in "fc":
        signs[xp.isnan(signs)] = 0
    return signs


# -- rounding: zero gradient ----------------------------------------------------------------------
@register_op
class Floor(ZeroGradient):
    """The largest integer ``<= x``, element-wise."""
    name = "floor"
    xp_name = "floor"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.floor(x))

    def compute(self, xp, data):
        return xp.floor(data)


@register_op
class Ceil(ZeroGradient):
    """The smallest integer ``>= x``, element-wise."""
    name = "ceil"
    xp_name = "ceil"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.ceil(x))

    def compute(self, xp, data):
        return xp.ceil(data)


@register_op
class Round(ZeroGradient):
    """Round to the nearest integer, halves away from zero (``round(2.5) == 3``)."""
    name = "round"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.where(
        np.abs(x - np.trunc(x)) >= 0.5, np.trunc(x) + np.sign(x), np.trunc(x)))

    def compute(self, xp, data):
        whole = xp.trunc(data)
        return xp.where(xp.abs(data - whole) >= 0.5, whole + xp.sign(data), whole)


@register_op
class Rint(ZeroGradient):
    """Round to the nearest integer, halves to the lower one (``rint(2.5) == 2``)."""
    name = "rint"
    xp_name = "rint"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.where(
        x - np.floor(x) <= np.ceil(x) - x, np.floor(x), np.ceil(x)))

    def compute(self, xp, data):
        below, above = xp.floor(data), xp.ceil(data)
        return xp.where(data - below <= above - data, below, above)


@register_op
class Trunc(ZeroGradient):
    """Drop the fractional part (round towards zero), element-wise."""
    name = "trunc"
    xp_name = "trunc"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.trunc(x))

    def compute(self, xp, data):
        return xp.trunc(data)


@register_op
class Fix(Trunc):
    """Round towards zero, element-wise (``trunc`` under numpy's other name)."""
    name = "fix"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.fix(x))


@register_op
class LogicalNot(ZeroGradient):
    """1 where ``x == 0``, else 0, in the input's dtype."""
    name = "logical_not"
    method = False
    test = TestHints(reference=lambda np, x: (x == 0).astype(x.dtype))

    def compute(self, xp, data):
        return (data == 0).astype(data.dtype)


# -- straight-through estimators: a piecewise-constant forward, the identity as gradient ------
@register_op
class RoundSTE(Round):
    """``round`` forward; the gradient passes straight through unchanged (the
    straight-through estimator of quantization-aware training).  The numeric check would
    see the true, zero derivative, so the generated tests check values only; the gradient
    is checked against MXNet (tests/op/test_edge_values_vs_mxnet.py)."""
    name = "_contrib_round_ste"
    test = TestHints(low=-3.0, high=3.0, grad=False, reference=Round.test.reference)

    def backward(self, xp, out_grad):
        return out_grad


@register_op
class SignSTE(Sign):
    """``sign`` forward; the gradient passes straight through unchanged (see RoundSTE)."""
    name = "_contrib_sign_ste"
    xp_name = None
    test = TestHints(low=-3.0, high=3.0, grad=False, reference=lambda np, x: np.sign(x))

    def backward(self, xp, out_grad):
        return out_grad
