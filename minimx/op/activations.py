"""Activation functions: the element-wise ones and the ``Activation``/``LeakyReLU`` layers.

Lesson: 09-gluon.  Mirrors ``src/operator/tensor/elemwise_unary_op_basic.cc``
(``sigmoid``, ``relu``, ``softsign``, ``hard_sigmoid``, ``smooth_l1``),
``src/operator/nn/activation.cc`` and ``leaky_relu.cc``.  ``Activation`` picks one
function by ``act_type``; ``LeakyReLU`` adds the parametrised and random rectifiers.
"""
import functools
import math

import numpy

from .common import (channel_view, holds_negative_zero, numpy_keeps_right_zero, sigmoid,
                     sum_to_shape)
from .error_function import erf as _erf
from .elemwise import Unary, UnaryFromOutput, as_mask
from .params import Choice, Param
from .registry import OpDef, TestHints, register_op

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


# -- element-wise ---------------------------------------------------------------------------------
@register_op
class Sigmoid(UnaryFromOutput):
    """Logistic sigmoid, ``1 / (1 + exp(-x))``, element-wise."""
    name = "sigmoid"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: 1 / (1 + np.exp(-x)))

    def compute(self, xp, data):
        return sigmoid(xp, data)

    def derivative_from_output(self, xp, output):
        return output * (1.0 - output)


@register_op
class Relu(UnaryFromOutput):
    """Rectified linear unit, ``max(x, 0)``; the gradient at 0 is 0.  A nan stays nan,
    and so does its gradient, as MXNet's ``relu`` (``Activation(act_type='relu')`` gives
    0 for both)."""
    name = "relu"
    test = TestHints(reference=lambda np, x: np.maximum(x, 0))

    def compute(self, xp, data):
        # MXNet's relu: ``isnan(a) || a > 0 ? a : 0``, so -0 gives +0; numpy's float16
        # ``maximum`` keeps the -0 (of equal values its left one): then adding +0 mends it
        result = xp.maximum(data, 0)
        if result.dtype.kind == "f" and not (
                xp is numpy and numpy_keeps_right_zero(result.dtype, True, True)) \
                and holds_negative_zero(xp, result):
            result += 0                     # -0 + 0 is +0; any other value stays
        return result

    def derivative_from_output(self, xp, output):
        return xp.where(output != output, output, as_mask(output > 0, output))


@register_op
class Softsign(Unary):
    """``x / (1 + |x|)``, element-wise."""
    name = "softsign"
    method = False
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: x / (1 + np.abs(x)))

    def compute(self, xp, data):
        return data / (1.0 + xp.abs(data))

    def derivative(self, xp, data):
        return 1.0 / xp.square(1.0 + xp.abs(data))


@register_op
class HardSigmoid(Unary):
    """``clip(alpha * x + beta, 0, 1)``, element-wise."""
    name = "hard_sigmoid"
    method = False
    params = {"alpha": Param(float, default=0.2, doc="slope"),
              "beta": Param(float, default=0.5, doc="offset")}
    test = TestHints(low=-4.0, high=4.0,
                     reference=lambda np, x, alpha=0.2, beta=0.5: np.clip(alpha * x + beta, 0, 1))

    def compute(self, xp, data):
        # MXNet's hard_sigmoid_forward: ``DType(alpha * x + beta)``, alpha and beta floats.
        # float64 computes in double with their float32 values (0.2 is 0.200000003);
        # float16 in float, rounding to half after the product and after the sum (mshadow's
        # half_t operators).  Then ``1 < r ? 1 : r`` and ``0 > r ? 0 : r``: a NaN stays
        alpha, beta = numpy.float32(self.alpha), numpy.float32(self.beta)
        if data.dtype == "float16":
            scaled = (data.astype("float32") * alpha).astype("float16")
            result = (scaled.astype("float32") + beta).astype("float16")
        elif data.dtype.kind == "f":
            result = data * data.dtype.type(alpha) + data.dtype.type(beta)
        else:
            result = data * self.alpha + self.beta
        result = xp.where(result > 1, result.dtype.type(1), result)
        return xp.where(result < 0, result.dtype.type(0), result)

    def backward(self, xp, out_grad, data):
        # MXNet's hard_sigmoid_backward: with alpha and beta (float params) in the dtype,
        # alpha * x + beta strictly inside (0, 1) gives g * alpha, elsewhere a +0 (not g * 0,
        # which is -0 for a negative head)
        alpha = data.dtype.type(numpy.float32(self.alpha))
        value = data * alpha + data.dtype.type(numpy.float32(self.beta))
        inside = (value > 0) & (value < 1)
        return xp.where(inside, out_grad * alpha, xp.zeros((), dtype=out_grad.dtype))


@register_op
class SmoothL1(Unary):
    """Smooth L1 (Huber-like) with ``scalar`` = sigma.

    ``0.5 * (sigma * x) ** 2`` where ``|x| < 1 / sigma ** 2``, else ``|x| - 0.5 / sigma ** 2``.
    """
    name = "smooth_l1"
    method = False
    params = {"scalar": Param(float, default=1.0, doc="sigma; the bend is at 1 / sigma**2")}
    test = TestHints(low=-2.0, high=2.0, params={"scalar": 2.0},
                     reference=lambda np, x, scalar=2.0: np.where(
                         np.abs(x) < 1 / scalar ** 2, 0.5 * (scalar * x) ** 2,
                         np.abs(x) - 0.5 / scalar ** 2))

    def compute(self, xp, data):
        sigma2 = self.scalar * self.scalar
        quadratic = 0.5 * sigma2 * data * data
        return xp.where(xp.abs(data) < 1.0 / sigma2, quadratic, xp.abs(data) - 0.5 / sigma2)

    def derivative(self, xp, data):
        # MXNet's smooth_l1_gradient: sign(x) beyond 1 / sigma**2, else sigma**2 * x, chosen
        # (not mixed by a 0/1 mask, whose sum turns sigma**2 * -0 into +0); sigma in the dtype
        sigma = data.dtype.type(self.scalar)
        sigma2 = sigma * sigma
        return xp.where(xp.abs(data) > data.dtype.type(1) / sigma2, xp.sign(data),
                        data * sigma2)


# -- layers ----------------------------------------------------------------------------------
def _sigmoid_derivative(xp, output):
    """``output * (1 - output)`` on one new buffer (the same products, no temporaries)."""
    result = xp.asarray(xp.subtract(1, output), dtype=output.dtype)  # 0-d: an array, too
    result *= output
    return result


# numpy's ``fmax`` against a scalar runs a plain loop; against an array of zeros, element
# by element, its vector loop (SIMD).  Arrays of at least ``_ROWS_FROM`` elements, as rows
# of at least ``_ROW_LENGTH`` against one row of zeros, get the vector loop without a zero
# per element, and an extra pass for the signs of zeros (``_relu``) is still cheaper
# (relu, float32, numpy 2.4: 16x8x28x28 26 us against 34); below, not (64x256: 6.4 us
# against 6.2).
_ROWS_FROM, _ROW_LENGTH, _ROW_MAX = 32768, 256, 65536


@functools.lru_cache(maxsize=32)
def _zero_row(dtype, length):
    """A read-only row of ``length`` zeros of ``dtype``."""
    row = numpy.zeros(length, dtype)
    row.flags.writeable = False
    return row


def _relu(xp, x):
    """``x > 0 ? x : 0`` as MXNet's kernel: a NaN and -0 give +0.  ``fmax(x, 0)`` drops
    the NaN; numpy's loops keep -0 in float16, and against an array in some positions of
    a vector, so there adding +0 after makes every zero +0 (float32 and float64 against
    a scalar give +0 already: small arrays skip the extra pass).  A C-ordered numpy float
    array goes as rows of its trailing axes against one row of zeros (``_ROWS_FROM``)."""
    rows = x.size >= _ROWS_FROM and xp is numpy and x.dtype.kind == "f" and \
        x.flags.c_contiguous
    if rows:
        length = 1
        for axis in reversed(x.shape):      # the last axes, together at least a row's worth
            length *= axis
            if length >= _ROW_LENGTH:
                break
        rows = length <= _ROW_MAX      # the cached row stays small (a long 1-D array: no)
    if rows:
        result = xp.fmax(x.reshape(-1, length), _zero_row(x.dtype, length)).reshape(x.shape)
    else:
        result = xp.fmax(x, 0)
    if result.dtype.kind == "f" and (rows or result.dtype.itemsize == 2):
        result += 0                         # -0 + 0 is +0; any other value stays
    return result


def _tanh_derivative(xp, output):
    """``1 - y * y``, in float for float16 (MXNet's tanh_grad computes in float)."""
    if output.dtype == "float16":
        wide = output.astype("float32")
        return (1 - wide * wide).astype("float16")
    return 1 - output * output


def _softrelu_derivative(xp, data, output):
    """float32 runs oneDNN's soft_relu backward, ``sigmoid(x)`` of the input; the other
    dtypes MXNet's softrelu_grad, ``-expm1(-y)`` of the output (in float for float16)."""
    if data.dtype == "float32":
        return sigmoid(xp, data)
    if output.dtype == "float16":
        return (-xp.expm1(-output.astype("float32"))).astype("float16")
    return -xp.expm1(-output)


def _in_float(derivative):
    """``derivative(xp, array)``, computed in float32 for float16 (MXNet's sigmoid_grad and
    softsign_grad compute in float and round once)."""
    def computed(xp, array):
        if array.dtype == "float16":
            return derivative(xp, array.astype("float32")).astype("float16")
        return derivative(xp, array)
    return computed


_ACTIVATIONS = {
    # name: (forward(xp, x), derivative(xp, x, y))
    # fmax: a nan gives 0, as MXNet's Activation kernel (nd.relu keeps the nan)
    # relu's from the output, as MXNet's: an executor output changed in place before
    # backward (``outputs[i] += ...``) changes the gradient there too (Executor._as_now)
    "relu": (_relu, lambda xp, x, y: (y > 0).astype(x.dtype)),
    "sigmoid": (sigmoid, lambda xp, x, y: _in_float(_sigmoid_derivative)(xp, y)),
    "tanh": (lambda xp, x: xp.tanh(x), lambda xp, x, y: _tanh_derivative(xp, y)),
    "softrelu": (lambda xp, x: xp.logaddexp(x, 0).astype(x.dtype, copy=False),
                 _softrelu_derivative),
    "softsign": (lambda xp, x: x / (1 + xp.abs(x)),
                 lambda xp, x, y: _in_float(lambda xp, x: 1 / (1 + xp.abs(x)) ** 2)(xp, x)),
}


@register_op
class Activation(OpDef):
    """Element-wise activation: ``relu``, ``sigmoid``, ``tanh``, ``softrelu`` or ``softsign``."""
    name = "Activation"
    family = "activation"
    unnamed_inputs = True           # a monitor reports its input as ``input0``, as MXNet's
    params = {"act_type": Param(Choice(*_ACTIVATIONS), doc="which activation")}
    saves = ("data", "output")
    test = TestHints(params={"act_type": "tanh"}, low=-2, high=2,
                     cases=tuple(({"act_type": kind}, ((2, 3),))
                                 for kind in ("relu", "sigmoid", "softrelu", "softsign")))

    def shaped_like_output(self):
        return (0,)

    @classmethod
    def plot_label(cls, attrs):
        """``Activation\nrelu`` (as MXNet's plot_network)."""
        return f"Activation\n{attrs['act_type']}"

    def forward(self, xp, data):
        return _ACTIVATIONS[self.act_type][0](xp, data)

    def backward(self, xp, out_grad, data, output):
        if (self.act_type == "relu" and output.dtype == out_grad.dtype
                and output.shape == out_grad.shape):
            # the gradient times the mask ``output > 0`` read as 1 or 0 (as the derivative's
            # ``astype`` would make it): one array operation fewer
            return xp.multiply(out_grad, output > 0)
        derivative = _ACTIVATIONS[self.act_type][1](xp, data, output)  # a new array
        if (derivative.ndim == 0 or derivative.dtype != out_grad.dtype
                or derivative.shape != out_grad.shape):
            return out_grad * derivative
        return xp.multiply(out_grad, derivative, out=derivative)


def _xelu(xp, data, slope):
    """MXNet's ``xelu`` kernel (leaky, prelu, rrelu): ``a > 0 ? a : DType(float(a) *
    float(b))``, ``b`` the slope in the dtype.  The product is a float32 one: float16
    rounds it once (as numpy's float16 product), and float64 rounds both factors to float32
    first -- ``-3 * 0.1`` is -0.30000001192092896 there, not -0.30000000000000004."""
    if data.dtype == "float64":
        slope = xp.asarray(slope, dtype="float64").astype("float32")
        with numpy.errstate(over="ignore"):     # beyond float32's range: inf, as MXNet
            product = (data.astype("float32") * slope).astype("float64")
    else:
        product = slope * data
    return xp.where(data > 0, data, product)


@register_op
class LeakyReLU(OpDef):
    """Leaky rectifiers: ``leaky``, ``prelu`` (learned slope ``gamma``), ``elu``, ``selu``,
    ``gelu`` and ``rrelu`` (random slope while training).

    The ``selu`` gradient is the exact derivative; MXNet 1.9.1 returns
    ``lambda * (output + alpha)`` for negative inputs, which is not.
    """
    name = "LeakyReLU"
    family = "activation"
    inputs = ("data", "gamma")
    outputs = ("output", "mask")
    visible_outputs = 1
    named_outputs = True            # rrelu's mask is l_mask, as in MXNet
    input_init_hints = {"gamma": '["Constant", {"value": 0.25}]'}
    params = {
        "act_type": Param(Choice("elu", "gelu", "leaky", "prelu", "rrelu", "selu"),
                          default="leaky"),
        "slope": Param(float, default=0.25, doc="negative slope (leaky), alpha (elu)"),
        "lower_bound": Param(float, default=0.125, doc="rrelu: lowest random slope"),
        "upper_bound": Param(float, default=0.334, doc="rrelu: highest random slope"),
    }
    saves = ("data", "gamma", "mask")
    test = TestHints(low=-2, high=2,
                     cases=(({"act_type": "prelu"}, ((2, 3, 2), (3,))),
                            ({"act_type": "prelu"}, ((2, 3, 2, 2), (2, 3))),
                            ({"act_type": "elu", "slope": 0.5}, ((2, 3),)),
                            ({"act_type": "gelu"}, ((2, 3),))))

    def shaped_like_output(self):
        return (0,)

    @classmethod
    def plot_label(cls, attrs):
        """``LeakyReLU\nleaky`` (as MXNet's plot_network)."""
        return f"LeakyReLU\n{attrs.get('act_type', 'Leaky')}"

    def list_inputs(self, num_args=None):
        return self.inputs if self.act_type == "prelu" else ("data",)

    def list_outputs(self):
        return self.outputs if self.act_type == "rrelu" else ("output",)

    def infer_input_shapes(self, data, gamma=None):
        if self.act_type != "prelu":
            return [data]
        return [data, gamma or (None if data is None else (data[1] if len(data) > 1 else 1,))]

    def infer_shape(self, data, gamma=None):
        return [data] * len(self.list_outputs())

    def _slope(self, xp, data, gamma):
        """The slope on the negative side, broadcastable to ``data``."""
        if gamma is None:
            return self.slope
        if gamma.size == 1 or data.ndim < 2:
            return gamma.reshape(()) if gamma.size == 1 else gamma
        if gamma.ndim > 1:              # slopes for the leading axes (MXNet aligns them left)
            return gamma.reshape(gamma.shape + (1,) * (data.ndim - gamma.ndim))
        return channel_view(gamma, data.ndim, 1)

    def _leaky_by_maximum(self):
        """``leaky`` with a slope in (0, 1] (0.2 in GANs, 0.01 by default in Gluon) is
        ``max(x, slope * x)``, and its gradient ``g * max(x > 0, slope)``: the same values
        as choosing with ``where``, without its data-dependent branch.  On random signs
        numpy's ``where`` mispredicts half its branches: 64x128x8x8 float32 on one core,
        forward 2.0 -> 0.11 ms, backward 2.1 -> 0.2 ms (MXNet 1.9.1's kernels: 0.39 and
        1.07 ms in the DCGAN step of bench/dcgan_step.py).  A slope of 0 would turn an
        infinite input into ``max(inf, 0 * inf) = nan``."""
        return self.act_type == "leaky" and 0 < self.slope <= 1

    def forward(self, xp, data, gamma=None, rng=None, is_train=False):
        kind = self.act_type
        if kind == "leaky" and self.slope == 0 and data.dtype == "float32" \
                and 1 <= data.ndim <= 5:
            # MXNet 1.9.1 runs oneDNN's relu here, which for a slope of 0 is max(x, 0):
            # a NaN and -0 give +0 (not xelu's x * 0, which is -0 for x < 0)
            return _relu(xp, data)
        if self._leaky_by_maximum() and data.dtype != "float64":
            return xp.maximum(data, self.slope * data)
        if kind in ("leaky", "prelu"):
            return _xelu(xp, data, self._slope(xp, data, gamma))
        if kind == "elu":
            return xp.where(data > 0, data, self.slope * xp.expm1(xp.minimum(data, 0)))
        if kind == "selu":
            negative = _SELU_ALPHA * xp.expm1(xp.minimum(data, 0))
            return _SELU_LAMBDA * xp.where(data > 0, data, negative)
        if kind == "gelu":
            return 0.5 * data * (1 + _erf(xp, data / math.sqrt(2)))
        if is_train:
            mask = rng.uniform(self.lower_bound, self.upper_bound, data.shape)
        else:       # MXNet: (lower_bound + upper_bound) / 2.0f, in float
            lower, upper = numpy.float32(self.lower_bound), numpy.float32(self.upper_bound)
            mask = xp.full(data.shape, (lower + upper) / numpy.float32(2))
        mask = mask.astype(data.dtype)
        return _xelu(xp, data, mask), mask

    def backward(self, xp, out_grad, data, gamma=None, mask=None):
        kind = self.act_type
        positive = data > 0
        if kind == "prelu":
            grad_gamma = xp.where(positive, 0, out_grad * data)
            if gamma.ndim > 1 and gamma.size > 1:
                aligned = gamma.shape + (1,) * (data.ndim - gamma.ndim)
                grad_gamma = sum_to_shape(xp, grad_gamma, aligned).reshape(gamma.shape)
            else:
                axes = tuple(a for a in range(data.ndim) if gamma.size == 1 or a != 1)
                grad_gamma = grad_gamma.sum(axis=axes).reshape(gamma.shape)
            slope = self._slope(xp, data, gamma)
            grad_data = xp.where(positive, out_grad, out_grad * slope)
            if gamma.size != data.size:
                # gamma broadcasts: MXNet's broadcast backward sums both gradients from +0,
                # so a -0 comes back +0 (0 + -0), the data's gradient too
                grad_data, grad_gamma = grad_data + 0, grad_gamma + 0
            return grad_data, grad_gamma
        # MXNet casts the float slope param to the dtype: float64 gets float32's 0.1
        slope = float(numpy.float32(self.slope)) if data.dtype == "float64" else self.slope
        if self._leaky_by_maximum():
            return out_grad * xp.maximum(positive.astype(out_grad.dtype), slope)
        if kind == "leaky":
            return xp.where(positive, out_grad, out_grad * slope)
        if kind == "rrelu":
            return xp.where(positive, out_grad, out_grad * mask)
        if kind == "elu" and data.dtype != "float32":
            # MXNet's elu_grad of the output y (float32 runs oneDNN's, below):
            # g * (y + slope) on the negative side, the slope in the dtype
            output = self.forward(xp, data)
            return xp.where(positive, out_grad,
                            out_grad * (output + output.dtype.type(numpy.float32(self.slope))))
        if kind == "elu":
            # oneDNN's elu backward (MXNet 1.9.1's for float32): g * slope * exp(x)
            return xp.where(positive, out_grad, out_grad * self.slope * xp.exp(
                xp.minimum(data, 0)))
        if kind == "selu":
            negative = _SELU_ALPHA * xp.exp(xp.minimum(data, 0))
            return out_grad * _SELU_LAMBDA * xp.where(positive, 1, negative)
        density = xp.exp(-0.5 * data * data) / math.sqrt(2 * math.pi)
        return out_grad * (0.5 * (1 + _erf(xp, data / math.sqrt(2))) + data * density)
