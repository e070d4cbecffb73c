"""Reductions: sum, mean, max, min, prod, nansum, nanprod, norm, argmax, argmin.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/broadcast_reduce_op_value.cc``,
``broadcast_reduce_op_index.cc`` and ``broadcast_reduce_norm_value.cc``.  MXNet's
conventions: ``axis=None`` or ``()`` reduces every axis, ``exclude=True`` reduces the
axes *not* listed, and a full reduction gives shape ``(1,)``, never ``()``.  Each
gradient spreads the output gradient back over the reduced axes by broadcasting.
"""
import math

from .common import first_zero_along, holds_negative_zero, normalize_axes, reduced_shape
from .params import Axis, DType, Optional, Param
from .registry import OpDef, TestHints, register_op


def _all_if_empty(axis):
    return None if axis is None or axis == () else axis


def _numpy_reduce(function):
    """A reference for the test generator: numpy's reduction with MXNet's parameters."""

    def reference(np, x, axis=None, keepdims=False, exclude=False):
        axes = _all_if_empty(axis)
        if axes is not None and exclude:
            listed = {a % x.ndim for a in ((axes,) if isinstance(axes, int) else axes)}
            axes = tuple(a for a in range(x.ndim) if a not in listed)
        result = np.asarray(function(np)(x, axis=axes, keepdims=keepdims))
        return result.reshape(1) if result.ndim == 0 else result

    return reference


_AXIS = Param(Axis, default=None, doc="axes to reduce; None or () reduces all of them")
_KEEPDIMS = Param(bool, default=False, doc="keep the reduced axes, with size 1")
_EXCLUDE = Param(bool, default=False, doc="reduce the axes NOT listed in axis")
_CASES = (({"axis": 1}, ((2, 3, 2),)),
          ({"axis": (0, 2), "keepdims": True}, ((2, 3, 2),)),
          ({"axis": 1, "exclude": True}, ((2, 3, 2),)))


def accumulator(dtype):
    """The dtype a sum adds up in: float16 in float32, as MXNet's reductions (its 11 bits
    would round every partial sum); other dtypes in their own (None: NumPy's choice)."""
    return "float32" if dtype == "float16" else None


class Reduce(OpDef):
    """A reduction over ``axis`` (MXNet's ``axis``/``keepdims``/``exclude``).

    Subclasses give ``reduce(xp, data, axes)``, which keeps the reduced axes
    (size 1); ``forward`` then drops them unless ``keepdims``.
    """

    params = {"axis": _AXIS, "keepdims": _KEEPDIMS, "exclude": _EXCLUDE}
    method = True

    def reduced_axes(self, ndim):
        """The sorted axes this instance reduces, for an input of ``ndim`` dimensions."""
        if self.axis is None or self.axis == ():
            return tuple(range(ndim))     # exclude has no effect on "every axis"
        return normalize_axes(self, self.axis, ndim, self.exclude)

    def kept_shape(self, shape):
        """The output shape with the reduced axes kept as size 1 (for broadcasting back)."""
        return reduced_shape(shape, self.reduced_axes(len(shape)), True)

    def infer_shape(self, data):
        return reduced_shape(data, self.reduced_axes(len(data)), self.keepdims)

    def forward(self, xp, data):
        axes = self.reduced_axes(data.ndim)
        result = self.reduce(xp, data, axes)
        return result.reshape(reduced_shape(data.shape, axes, self.keepdims))


@register_op
class Sum(Reduce):
    """The sum over ``axis``."""
    name = "sum"
    xp_name = "sum"
    aliases = ("sum_axis",)
    saves = ("data_shape",)
    test = TestHints(cases=_CASES, reference=_numpy_reduce(lambda np: np.sum))

    def reduce(self, xp, data, axes):
        return xp.sum(data, axis=axes, keepdims=True, dtype=accumulator(data.dtype)).astype(
            data.dtype, copy=False)

    def backward(self, xp, out_grad, data_shape):
        return xp.broadcast_to(out_grad.reshape(self.kept_shape(data_shape)), data_shape)


@register_op
class Mean(Reduce):
    """The mean over ``axis`` (integer inputs give a truncated integer mean)."""
    name = "mean"
    saves = ("data_shape",)
    test = TestHints(cases=_CASES, reference=_numpy_reduce(lambda np: np.mean))

    def reduce(self, xp, data, axes):
        if data.dtype.kind in "iu":
            # NumPy's (and MXNet's) integer mean: the sum wraps in the dtype, the quotient
            # is truncated
            total = xp.sum(data, axis=axes, keepdims=True).astype(data.dtype)
            count = max(data.size // max(total.size, 1), 1)
            return (total / count).astype(data.dtype)
        return xp.mean(data, axis=axes, keepdims=True, dtype=accumulator(data.dtype)).astype(
            data.dtype, copy=False)

    def backward(self, xp, out_grad, data_shape):
        kept = self.kept_shape(data_shape)
        count = max(math.prod(data_shape) // max(math.prod(kept), 1), 1)
        return xp.broadcast_to(out_grad.reshape(kept) / count, data_shape)


class Extremum(Reduce):
    """max or min: the gradient goes to every element equal to the result (ties share it)."""

    saves = ("data", "output")

    def infer_shape(self, data):
        if math.prod(data) == 0:
            raise self.shape_error(f"the input {tuple(data)} has no elements to reduce")
        return super().infer_shape(data)

    def backward(self, xp, out_grad, data, output):
        kept = self.kept_shape(data.shape)
        chosen = (data == output.reshape(kept)).astype(data.dtype)
        return chosen * out_grad.reshape(kept)

    @staticmethod
    def first_of_tied_zeros(xp, result, data, axes):
        """MXNet's reducers walk each output's elements in row-major order and take one
        only when it is strictly beyond (``if (!(best >= v)) best = v`` for max): of tied
        +0 and -0 the first one stays.  numpy's (vector) reductions may give the other, so
        an extremum of 0 is taken again from its first zero -- only when the data holds a
        -0 at all (else every zero is +0 either way) and some result is 0."""
        if result.dtype.kind == "f" and bool((result == 0).any()) \
                and holds_negative_zero(xp, data):
            result, zero = xp.asarray(result), result == 0     # (a 0-d result: an array)
            result[zero] = first_zero_along(xp, data, axes)[zero]
        return result


@register_op
class Max(Extremum):
    """The maximum over ``axis``."""
    name = "max"
    aliases = ("max_axis",)
    test = TestHints(cases=_CASES, reference=_numpy_reduce(lambda np: np.max))

    def reduce(self, xp, data, axes):
        return self.first_of_tied_zeros(xp, xp.max(data, axis=axes, keepdims=True), data, axes)


@register_op
class Min(Extremum):
    """The minimum over ``axis``."""
    name = "min"
    aliases = ("min_axis",)
    test = TestHints(cases=_CASES, reference=_numpy_reduce(lambda np: np.min))

    def reduce(self, xp, data, axes):
        return self.first_of_tied_zeros(xp, xp.min(data, axis=axes, keepdims=True), data, axes)


@register_op
class Prod(Reduce):
    """The product over ``axis``; as in MXNet the gradient is ``output / data`` (NaN at 0)."""
    name = "prod"
    saves = ("data", "output")
    test = TestHints(cases=_CASES, low=0.5, high=1.5, reference=_numpy_reduce(lambda np: np.prod))

    def reduce(self, xp, data, axes):
        return xp.prod(data, axis=axes, keepdims=True)

    def backward(self, xp, out_grad, data, output):
        kept = self.kept_shape(data.shape)
        return out_grad.reshape(kept) * output.reshape(kept) / data


@register_op
class NanSum(Reduce):
    """The sum over ``axis``, counting NaN as 0."""
    name = "nansum"
    saves = ("data",)
    test = TestHints(cases=_CASES, reference=_numpy_reduce(lambda np: np.nansum))

    def reduce(self, xp, data, axes):
        return xp.nansum(data, axis=axes, keepdims=True)

    def backward(self, xp, out_grad, data):
        not_nan = (data == data).astype(data.dtype)    # NaN is the one value unequal to itself
        return not_nan * out_grad.reshape(self.kept_shape(data.shape))


@register_op
class NanProd(Reduce):
    """The product over ``axis``, counting NaN as 1."""
    name = "nanprod"
    saves = ("data", "output")
    test = TestHints(cases=_CASES, low=0.5, high=1.5,
                     reference=_numpy_reduce(lambda np: np.nanprod))

    def reduce(self, xp, data, axes):
        return xp.nanprod(data, axis=axes, keepdims=True)

    def backward(self, xp, out_grad, data, output):
        kept = self.kept_shape(data.shape)
        not_nan = (data == data).astype(data.dtype)
        others = output.reshape(kept) / xp.where(data == data, data, 1.0)
        return not_nan * others * out_grad.reshape(kept)


def _numpy_norm(np, x, ord=2, axis=None, out_dtype=None, keepdims=False):
    axes = _all_if_empty(axis)
    magnitude = np.abs(x) if ord == 1 else x * x
    result = np.asarray(np.sum(magnitude, axis=axes, keepdims=keepdims))
    result = result if ord == 1 else np.sqrt(result)
    return result.reshape(1) if result.ndim == 0 else result


@register_op
class Norm(Reduce):
    """The L1 (``ord=1``) or L2 (``ord=2``) norm over ``axis`` (an int or two axes).

    Over several axes it is the entry-wise norm (Frobenius for ``ord=2`` over two), as in
    MXNet.
    """
    name = "norm"
    params = {"ord": Param(int, default=2, doc="1 or 2"),
              "axis": _AXIS,
              "out_dtype": Param(Optional(DType), default=None, doc="output dtype"),
              "keepdims": _KEEPDIMS}
    saves = ("data", "output")
    exclude = False
    test = TestHints(low=0.5, high=1.5, cases=(({"ord": 1}, ((2, 3),)),
                                               ({"axis": 1, "keepdims": True}, ((2, 3, 2),))),
                     reference=_numpy_norm)

    def check_params(self):
        if self.ord not in (1, 2):
            raise self.param_error(f"ord must be 1 or 2, got {self.ord}")

    def infer_type(self, data):
        return self.out_dtype or data

    def reduce(self, xp, data, axes):
        magnitude = xp.abs(data if data.dtype.kind == "f" else data.astype("float64"))
        if self.ord == 1:
            result = xp.sum(magnitude, axis=axes, keepdims=True)
        else:
            # scaled by the largest entry, so squares of tiny or huge values stay finite
            scale = xp.max(magnitude, axis=axes, keepdims=True)
            # (an infinite entry makes the norm infinite: inf / inf would make it NaN)
            finite = xp.isfinite(scale)
            unit = magnitude / xp.where(finite & (scale > 0), scale, 1)
            result = scale * xp.sqrt(xp.sum(unit * unit, axis=axes, keepdims=True))
            result = xp.where(finite, result, scale)
        return result.astype(self.out_dtype or data.dtype)

    def backward(self, xp, out_grad, data, output):
        kept = self.kept_shape(data.shape)
        if self.ord == 1:
            return xp.sign(data) * out_grad.reshape(kept)
        # MXNet's _backward_norm (ReduceAxesBackwardUseInOut with div): g * (x / norm)
        return out_grad.reshape(kept).astype(data.dtype, copy=False) * (
            data / output.reshape(kept).astype(data.dtype, copy=False))


class ArgReduce(OpDef):
    """Index of the largest/smallest value along ``axis`` (None: of the flattened array).

    The index comes in the input's dtype (float32 for float32 input), as in MXNet.
    """

    params = {"axis": Param(Optional(int), default=None, doc="the axis; None: flattened"),
              "keepdims": _KEEPDIMS}
    method = True
    differentiable = False
    test = TestHints(grad=False, cases=(({"axis": 1}, ((2, 3),)),
                                        ({"axis": 0, "keepdims": True}, ((2, 3),))))

    def axes(self, ndim):
        return normalize_axes(self, self.axis, ndim)

    def infer_shape(self, data):
        return reduced_shape(data, self.axes(len(data)), self.keepdims)

    def forward(self, xp, data):
        axes = self.axes(data.ndim)
        flat = self.axis is None
        index = self.find(xp, data.reshape(-1) if flat else data, None if flat else axes[0])
        return index.astype(data.dtype).reshape(reduced_shape(data.shape, axes, self.keepdims))


def _numpy_arg(name):
    def reference(np, x, axis=None, keepdims=False):
        if axis is None:
            index = getattr(np, name)(x)
            return np.full((1,) * x.ndim if keepdims else (1,), index, dtype=x.dtype)
        return getattr(np, name)(x, axis=axis, keepdims=keepdims).astype(x.dtype)
    return reference


@register_op
class Argmax(ArgReduce):
    """Index of the largest value along ``axis`` (the first one on ties)."""
    name = "argmax"
    test = TestHints(grad=False, cases=ArgReduce.test.cases, reference=_numpy_arg("argmax"))

    def find(self, xp, data, axis):
        return xp.argmax(data, axis=axis)


@register_op
class Argmin(ArgReduce):
    """Index of the smallest value along ``axis`` (the first one on ties)."""
    name = "argmin"
    test = TestHints(grad=False, cases=ArgReduce.test.cases, reference=_numpy_arg("argmin"))

    def find(self, xp, data, axis):
        return xp.argmin(data, axis=axis)


@register_op
class ArgmaxChannel(OpDef):
    """``argmax`` along axis 1, the channel axis of (batch, channel, ...) data."""
    name = "argmax_channel"
    method = True
    differentiable = False
    has_gradient = False
    test = TestHints(grad=False, reference=lambda np, x: np.argmax(x, axis=1).astype(x.dtype))

    def infer_shape(self, data):
        if len(data) < 2:
            raise self.shape_error(f"expected data of at least 2 dims, got shape {tuple(data)}")
        return tuple(data[:1]) + tuple(data[2:])

    def forward(self, xp, data):
        return xp.argmax(data, axis=1).astype(data.dtype)


@register_op
class Moments(OpDef):
    """The mean and the (biased) variance over ``axes``: two outputs, as one pass of a
    normalization layer computes them."""
    name = "moments"
    outputs = ("mean", "var")
    params = {"axes": Param(Optional(Axis), default=None, doc="axes to reduce (required)"),
              "keepdims": _KEEPDIMS}
    saves = ("data", "mean")
    test = TestHints(shapes=((2, 3, 4),), params={"axes": (0, 2)},
                     reference=lambda np, x, axes, keepdims=False: (
                         np.mean(x, axis=axes, keepdims=keepdims),
                         np.var(x, axis=axes, keepdims=keepdims)),
                     cases=(({"axes": (1,), "keepdims": True}, ((2, 3),)),))

    def check_params(self):
        if not self.axes and self.axes != 0:
            raise self.param_error("axes must be given (global moments: list every axis)")

    def reduced_axes(self, ndim):
        return normalize_axes(self, self.axes, ndim)

    def infer_shape(self, data):
        shape = reduced_shape(data, self.reduced_axes(len(data)), self.keepdims)
        return [shape, shape]

    def forward(self, xp, data):
        axes = self.reduced_axes(data.ndim)
        mean = xp.mean(data, axis=axes, keepdims=True)
        var = xp.mean(xp.square(data - mean), axis=axes, keepdims=True)
        shape = reduced_shape(data.shape, axes, self.keepdims)
        return mean.reshape(shape).astype(data.dtype), var.reshape(shape).astype(data.dtype)

    def backward(self, xp, grad_mean, grad_var, data, mean):
        axes = self.reduced_axes(data.ndim)
        kept = reduced_shape(data.shape, axes, True)
        count = max(math.prod(data.shape) // max(math.prod(kept), 1), 1)
        centred = data - mean.reshape(kept)
        return (grad_mean.reshape(kept) + 2.0 * grad_var.reshape(kept) * centred) / count
