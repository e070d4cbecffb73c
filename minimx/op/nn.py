"""Neural-network layers as operators: dense, activations, softmax, dropout, normalisation.

Lesson: 07-gluon-layers.  Mirrors ``src/operator/nn/fully_connected.cc``,
``activation.cc``, ``leaky_relu.cc``, ``softmax.cc``, ``dropout.cc``,
``batch_norm.cc``, ``layer_norm.cc``, ``instance_norm.cc``,
``l2_normalization.cc`` and ``lrn.cc``.  BatchNorm shows auxiliary states:
its moving statistics are inputs that the forward pass updates in place.
"""
import math

from .params import Choice, DType, Optional, Param, Shape
from .registry import OpDef, TestHints, register_op

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def _erf(xp, x):
    """The error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7): numpy has none."""
    t = 1.0 / (1.0 + 0.3275911 * xp.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (
        -1.453152027 + t * 1.061405429))))
    return (xp.sign(x) * (1.0 - poly * xp.exp(-x * x))).astype(x.dtype, copy=False)


def _channel_view(gamma, ndim, axis):
    """Reshape a per-channel vector so it broadcasts along ``axis`` of an ``ndim`` array."""
    shape = [1] * ndim
    shape[axis] = gamma.size
    return gamma.reshape(shape)


# -- numpy references for the generated tests (TestHints.reference) ----------------------------
def _dense_reference(np, x, w, b=None, flatten=True):
    rows = x.reshape(x.shape[0], -1) if flatten else x
    return rows @ w.T + (0 if b is None else b)


_ACTIVATION_REFERENCES = {
    "relu": lambda np, x: np.maximum(x, 0), "sigmoid": lambda np, x: 1 / (1 + np.exp(-x)),
    "tanh": lambda np, x: np.tanh(x), "softrelu": lambda np, x: np.log1p(np.exp(x)),
    "softsign": lambda np, x: x / (1 + np.abs(x)),
}


def _leaky_reference(np, x, gamma=None, act_type="leaky", slope=0.25):
    if act_type == "prelu":
        return np.where(x > 0, x, gamma.reshape(1, -1, *([1] * (x.ndim - 2))) * x)
    if act_type == "elu":
        return np.where(x > 0, x, slope * (np.exp(x) - 1))
    if act_type == "selu":
        return _SELU_LAMBDA * np.where(x > 0, x, _SELU_ALPHA * (np.exp(x) - 1))
    if act_type == "gelu":
        return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    return np.where(x > 0, x, slope * x)


def _l2_reference(np, x, mode="instance"):
    axes = {"instance": (1, 2), "channel": (1,), "spatial": (2,)}[mode]
    return x / np.sqrt((x * x).sum(axes, keepdims=True) + 1e-10)


def _softmax_reference(np, x, axis=-1, temperature=None):
    e = np.exp(x / (temperature or 1.0))
    return e / e.sum(axis, keepdims=True)


# -- dense layer --------------------------------------------------------------------------------
@register_op
class FullyConnected(OpDef):
    """Dense layer: ``data @ weight.T + bias``.

    With ``flatten`` (the default) ``data`` is flattened to ``(batch, -1)``
    first; otherwise the layer acts on the last axis only.
    """
    name = "FullyConnected"
    inputs = ("data", "weight", "bias")
    params = {
        "num_hidden": Param(int, doc="number of output units"),
        "no_bias": Param(bool, default=False, doc="leave out the bias"),
        "flatten": Param(bool, default=True, doc="flatten all but the first axis of data"),
    }
    saves = ("data", "weight")
    test = TestHints(shapes=((2, 3, 2), (4, 6), (4,)), params={"num_hidden": 4},
                     reference=_dense_reference,
                     cases=(({"num_hidden": 4, "flatten": False}, ((2, 3, 2), (4, 2), (4,))),
                            ({"num_hidden": 3, "no_bias": True}, ((2, 5), (3, 5)))))

    def list_inputs(self, num_args=None):
        return ("data", "weight") if self.no_bias else self.inputs

    def _in_units(self, data):
        return math.prod(data[1:]) if self.flatten else data[-1]

    def infer_input_shapes(self, data, weight=None, bias=None):
        if data is not None:
            weight = weight or (self.num_hidden, self._in_units(data))
        completed = [data, weight]
        return completed if self.no_bias else completed + [bias or (self.num_hidden,)]

    def infer_shape(self, data, weight, bias=None):
        expected = (self.num_hidden, self._in_units(data))
        if tuple(weight) != expected:
            raise self.shape_error(f"weight must have shape {expected} for data {data}, "
                                   f"got {tuple(weight)}")
        if bias is not None and tuple(bias) != (self.num_hidden,):
            raise self.shape_error(f"bias must have shape ({self.num_hidden},), got {bias}")
        batch = data[:1] if self.flatten else data[:-1]
        return tuple(batch) + (self.num_hidden,)

    def _rows(self, data):
        return data.reshape(data.shape[0], -1) if self.flatten else data

    def forward(self, xp, data, weight, bias=None):
        output = self._rows(data) @ weight.T
        return output if bias is None else output + bias

    def backward(self, xp, out_grad, data, weight):
        rows = self._rows(data)
        grad_data = (out_grad @ weight).reshape(data.shape)
        flat_grad = out_grad.reshape(-1, self.num_hidden)
        grad_weight = flat_grad.T @ rows.reshape(-1, rows.shape[-1])
        if self.no_bias:
            return grad_data, grad_weight
        return grad_data, grad_weight, flat_grad.sum(axis=0)


# -- activations -------------------------------------------------------------------------------
_ACTIVATIONS = {
    # name: (forward(xp, x), derivative(xp, x, y))
    "relu": (lambda xp, x: xp.maximum(x, 0), lambda xp, x, y: (x > 0).astype(x.dtype)),
    "sigmoid": (lambda xp, x: 1 / (1 + xp.exp(-x)), lambda xp, x, y: y * (1 - y)),
    "tanh": (lambda xp, x: xp.tanh(x), lambda xp, x, y: 1 - y * y),
    "softrelu": (lambda xp, x: xp.logaddexp(x, 0).astype(x.dtype, copy=False),
                 lambda xp, x, y: 1 / (1 + xp.exp(-x))),
    "softsign": (lambda xp, x: x / (1 + xp.abs(x)), lambda xp, x, y: 1 / (1 + xp.abs(x)) ** 2),
}


@register_op
class Activation(OpDef):
    """Element-wise activation: ``relu``, ``sigmoid``, ``tanh``, ``softrelu`` or ``softsign``."""
    name = "Activation"
    params = {"act_type": Param(Choice(*_ACTIVATIONS), doc="which activation")}
    saves = ("data", "output")
    test = TestHints(params={"act_type": "tanh"}, low=-2, high=2,
                     reference=lambda np, x, act_type: _ACTIVATION_REFERENCES[act_type](np, x),
                     cases=tuple(({"act_type": kind}, ((2, 3),))
                                 for kind in ("relu", "sigmoid", "softrelu", "softsign")))

    def forward(self, xp, data):
        return _ACTIVATIONS[self.act_type][0](xp, data)

    def backward(self, xp, out_grad, data, output):
        return out_grad * _ACTIVATIONS[self.act_type][1](xp, data, output)


@register_op
class LeakyReLU(OpDef):
    """Leaky rectifiers: ``leaky``, ``prelu`` (learned slope ``gamma``), ``elu``, ``selu``,
    ``gelu`` and ``rrelu`` (random slope while training).

    The ``selu`` gradient is the exact derivative; MXNet 1.9.1 returns
    ``lambda * (output + alpha)`` for negative inputs, which is not.
    """
    name = "LeakyReLU"
    inputs = ("data", "gamma")
    outputs = ("output", "mask")
    visible_outputs = 1
    params = {
        "act_type": Param(Choice("elu", "gelu", "leaky", "prelu", "rrelu", "selu"),
                          default="leaky"),
        "slope": Param(float, default=0.25, doc="negative slope (leaky), alpha (elu)"),
        "lower_bound": Param(float, default=0.125, doc="rrelu: lowest random slope"),
        "upper_bound": Param(float, default=0.334, doc="rrelu: highest random slope"),
    }
    saves = ("data", "gamma", "mask")
    test = TestHints(low=-2, high=2, reference=_leaky_reference,
                     cases=(({"act_type": "prelu"}, ((2, 3, 2), (3,))),
                            ({"act_type": "elu", "slope": 0.5}, ((2, 3),)),
                            ({"act_type": "gelu"}, ((2, 3),))))

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
        return _channel_view(gamma, data.ndim, 1)

    def forward(self, xp, data, gamma=None, rng=None, is_train=False):
        kind = self.act_type
        if kind in ("leaky", "prelu"):
            return xp.where(data > 0, data, self._slope(xp, data, gamma) * data)
        if kind == "elu":
            return xp.where(data > 0, data, self.slope * xp.expm1(xp.minimum(data, 0)))
        if kind == "selu":
            negative = _SELU_ALPHA * xp.expm1(xp.minimum(data, 0))
            return _SELU_LAMBDA * xp.where(data > 0, data, negative)
        if kind == "gelu":
            return 0.5 * data * (1 + _erf(xp, data / math.sqrt(2)))
        if is_train:
            mask = rng.uniform(self.lower_bound, self.upper_bound, data.shape)
        else:
            mask = xp.full(data.shape, (self.lower_bound + self.upper_bound) / 2)
        mask = mask.astype(data.dtype)
        return xp.where(data > 0, data, mask * data), mask

    def backward(self, xp, out_grad, data, gamma=None, mask=None):
        kind = self.act_type
        positive = data > 0
        if kind == "prelu":
            grad_gamma = xp.where(positive, 0, out_grad * data)
            axes = tuple(a for a in range(data.ndim) if gamma.size == 1 or a != 1)
            grad_gamma = grad_gamma.sum(axis=axes).reshape(gamma.shape)
            slope = self._slope(xp, data, gamma)
            return xp.where(positive, out_grad, out_grad * slope), grad_gamma
        if kind == "leaky":
            return xp.where(positive, out_grad, out_grad * self.slope)
        if kind == "rrelu":
            return xp.where(positive, out_grad, out_grad * mask)
        if kind == "elu":
            return xp.where(positive, out_grad, out_grad * self.slope * xp.exp(
                xp.minimum(data, 0)))
        if kind == "selu":
            negative = _SELU_ALPHA * xp.exp(xp.minimum(data, 0))
            return out_grad * _SELU_LAMBDA * xp.where(positive, 1, negative)
        density = xp.exp(-0.5 * data * data) / math.sqrt(2 * math.pi)
        return out_grad * (0.5 * (1 + _erf(xp, data / math.sqrt(2))) + data * density)


# -- softmax family ----------------------------------------------------------------------------
def _softmax(xp, data, axis, temperature):
    scaled = data if temperature in (None, 1.0) else data / temperature
    shifted = scaled - scaled.max(axis=axis, keepdims=True)
    exps = xp.exp(shifted)
    return exps / exps.sum(axis=axis, keepdims=True)


def _log_softmax(xp, data, axis, temperature):
    scaled = data if temperature in (None, 1.0) else data / temperature
    shifted = scaled - scaled.max(axis=axis, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


def _length_mask(xp, data, length, axis):
    """1 where the position along ``axis`` is below ``length`` (one length per other index)."""
    positions = xp.arange(data.shape[axis]).reshape(
        [-1 if a == axis % data.ndim else 1 for a in range(data.ndim)])
    return positions < xp.expand_dims(length, axis)


class SoftmaxBase(OpDef):
    """Shared parameters of softmax, log_softmax and softmin."""

    params = {
        "axis": Param(int, default=-1, doc="the axis to normalise over"),
        "temperature": Param(Optional(float), default=None, doc="divide the input by this"),
        "dtype": Param(DType, default=None, doc="output dtype (default: the input's)"),
        "use_length": Param(Optional(bool), default=False, doc="softmax: mask by `length`"),
    }
    saves = ("output",)
    method = True

    def infer_type(self, data, length=None):
        return self.dtype or data

    def _temperature(self):
        return 1.0 if self.temperature is None else self.temperature


@register_op
class Softmax(SoftmaxBase):
    """``exp(x / T)`` normalised to sum to 1 along ``axis``.

    With ``use_length``, only the first ``length`` entries along ``axis``
    take part; the rest are 0.
    """
    name = "softmax"
    inputs = ("data", "length")
    test = TestHints(shapes=((2, 3, 4),), params={"axis": 1},
                     reference=_softmax_reference,
                     cases=(({"temperature": 2.0}, ((3, 4),)),))

    def list_inputs(self, num_args=None):
        return self.inputs if self.use_length else ("data",)

    def forward(self, xp, data, length=None):
        if length is None:
            return _softmax(xp, data, self.axis, self.temperature).astype(self.dtype or data.dtype)
        mask = _length_mask(xp, data, length, self.axis)
        masked = xp.where(mask, data, -xp.inf)
        output = xp.where(mask, _softmax(xp, masked, self.axis, self.temperature), 0)
        return output.astype(self.dtype or data.dtype)

    def backward(self, xp, out_grad, output):
        inner = (out_grad * output).sum(axis=self.axis, keepdims=True)
        return output * (out_grad - inner) / self._temperature(), None


@register_op
class LogSoftmax(SoftmaxBase):
    """``log(softmax(x))``, computed stably."""
    name = "log_softmax"
    test = TestHints(shapes=((2, 4),),
                     reference=lambda np, x: x - np.log(np.exp(x).sum(-1, keepdims=True)))

    def forward(self, xp, data):
        return _log_softmax(xp, data, self.axis, self.temperature).astype(
            self.dtype or data.dtype)

    def backward(self, xp, out_grad, output):
        inner = out_grad.sum(axis=self.axis, keepdims=True)
        return (out_grad - xp.exp(output) * inner) / self._temperature()


@register_op
class Softmin(SoftmaxBase):
    """``softmax(-x)``: small inputs get large weights."""
    name = "softmin"
    test = TestHints(shapes=((2, 4),),
                     reference=lambda np, x: np.exp(-x) / np.exp(-x).sum(-1, keepdims=True))

    def forward(self, xp, data):
        return _softmax(xp, -data, self.axis, self.temperature).astype(self.dtype or data.dtype)

    def backward(self, xp, out_grad, output):
        inner = (out_grad * output).sum(axis=self.axis, keepdims=True)
        return -output * (out_grad - inner) / self._temperature()


# -- dropout ----------------------------------------------------------------------------------
@register_op
class Dropout(OpDef):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Active only while training (``autograd.record()``) unless ``mode='always'``;
    otherwise the identity.  ``axes`` share one random draw along those axes.
    The mask is a hidden second output, kept for the backward pass.
    """
    name = "Dropout"
    outputs = ("output", "mask")
    visible_outputs = 1
    params = {
        "p": Param(float, default=0.5, doc="probability of dropping an element"),
        "mode": Param(Choice("training", "always"), default="training"),
        "axes": Param(Shape, default=(), doc="axes along which the mask is shared"),
        "cudnn_off": Param(Optional(bool), default=False, doc="ignored"),
    }
    saves = ("mask",)
    test = TestHints(params={"mode": "always", "p": 0.0}, reference=lambda np, x: x)

    def infer_shape(self, data):
        return [data, data]

    def forward(self, xp, data, rng, is_train):
        if not (is_train or self.mode == "always") or self.p == 0:
            return data, xp.ones_like(data)
        shape = list(data.shape)
        for axis in self.axes:
            shape[axis] = 1
        keep = rng.random(tuple(shape), dtype="float64") >= self.p
        mask = xp.broadcast_to(keep / (1 - self.p), data.shape).astype(data.dtype)
        return data * mask, mask

    def backward(self, xp, out_grad, mask):
        return out_grad * mask


# -- normalisation -----------------------------------------------------------------------------
def _normalize_grad(xp, grad_xhat, xhat, invstd, axes):
    """Gradient through ``xhat = (x - mean(x)) * invstd`` with statistics over ``axes``."""
    mean_grad = grad_xhat.mean(axis=axes, keepdims=True)
    mean_proj = (grad_xhat * xhat).mean(axis=axes, keepdims=True)
    return (grad_xhat - mean_grad - xhat * mean_proj) * invstd


def _moments(data, axes):
    mean = data.mean(axis=axes, keepdims=True)
    return mean, ((data - mean) ** 2).mean(axis=axes, keepdims=True)


@register_op
class BatchNorm(OpDef):
    """Batch normalisation over every axis but ``axis`` (the channels).

    While training, the batch statistics normalise ``data`` and the moving
    statistics (auxiliary states) move towards them:
    ``moving = moving * momentum + batch * (1 - momentum)``.  Otherwise (or
    with ``use_global_stats``) the moving statistics are used.  With
    ``fix_gamma`` (MXNet's default) gamma is taken as 1 and gets no gradient.
    The hidden outputs are the mean and ``1 / sqrt(var + eps)`` used.
    """
    name = "BatchNorm"
    inputs = ("data", "gamma", "beta", "moving_mean", "moving_var")
    outputs = ("output", "mean", "var")
    aux = ("moving_mean", "moving_var")
    params = {
        "eps": Param(float, default=1e-3, doc="added to the variance"),
        "momentum": Param(float, default=0.9, doc="decay of the moving statistics"),
        "fix_gamma": Param(bool, default=True, doc="treat gamma as 1"),
        "use_global_stats": Param(bool, default=False, doc="use the moving statistics always"),
        "output_mean_var": Param(bool, default=False, doc="also return mean and inverse std"),
        "axis": Param(int, default=1, doc="the channel axis"),
        "cudnn_off": Param(bool, default=False, doc="ignored"),
        "min_calib_range": Param(Optional(float), default=None, doc="ignored"),
        "max_calib_range": Param(Optional(float), default=None, doc="ignored"),
    }
    saves = ("data", "gamma", "mean", "var")
    # inputs in [0.1, 1]: the moving variance must be positive
    test = TestHints(shapes=((3, 2, 2), (2,), (2,), (2,), (2,)), params={"fix_gamma": False},
                     low=0.1, high=1.0,
                     cases=(({}, ((4, 3), (3,), (3,), (3,), (3,))),
                            ({"axis": -1, "fix_gamma": False},
                             ((2, 3, 2), (2,), (2,), (2,), (2,)))))

    def num_visible(self):
        return 3 if self.output_mean_var else 1

    def infer_input_shapes(self, data, *others):
        channels = None if data is None else (data[self.axis % len(data)],)
        return [data] + [shape or channels for shape in others]

    def infer_shape(self, data, gamma, beta, moving_mean, moving_var):
        channels = (data[self.axis % len(data)],)
        for name, shape in zip(self.inputs[1:], (gamma, beta, moving_mean, moving_var)):
            if tuple(shape) != channels:
                raise self.shape_error(f"{name} must have shape {channels} for data "
                                       f"{tuple(data)}, got {tuple(shape)}")
        return [data, channels, channels]

    def _stat_axes(self, ndim):
        return tuple(a for a in range(ndim) if a != self.axis % ndim)

    def _uses_batch_stats(self, is_train):
        return is_train and not self.use_global_stats

    def forward(self, xp, data, gamma, beta, moving_mean, moving_var, is_train=False):
        axis = self.axis % data.ndim
        if self._uses_batch_stats(is_train):
            mean, var = (s.reshape(-1) for s in _moments(data, self._stat_axes(data.ndim)))
            moving_mean[...] = moving_mean * self.momentum + mean * (1 - self.momentum)
            moving_var[...] = moving_var * self.momentum + var * (1 - self.momentum)
        else:
            mean, var = moving_mean, moving_var
        invstd = 1 / xp.sqrt(var + self.eps)
        scale = invstd if self.fix_gamma else gamma * invstd
        output = ((data - _channel_view(mean, data.ndim, axis)) * _channel_view(
            scale, data.ndim, axis) + _channel_view(beta, data.ndim, axis))
        return output.astype(data.dtype), mean.astype(data.dtype), invstd.astype(data.dtype)

    def backward(self, xp, out_grad, *unused, data, gamma, mean, var, is_train=False):
        axis, axes = self.axis % data.ndim, self._stat_axes(data.ndim)
        invstd = _channel_view(var, data.ndim, axis)
        xhat = (data - _channel_view(mean, data.ndim, axis)) * invstd
        scale = 1 if self.fix_gamma else _channel_view(gamma, data.ndim, axis)
        grad_gamma = xp.zeros_like(gamma) if self.fix_gamma else (out_grad * xhat).sum(axes)
        grad_beta = out_grad.sum(axis=axes)
        if self._uses_batch_stats(is_train):
            grad_data = _normalize_grad(xp, out_grad * scale, xhat, invstd, axes)
        else:
            grad_data = out_grad * scale * invstd
        return grad_data, grad_gamma, grad_beta, None, None


@register_op
class LayerNorm(OpDef):
    """Normalise along ``axis`` for each sample, then scale by gamma and shift by beta.

    Hidden outputs: the mean and the standard deviation (``sqrt(var + eps)``).
    """
    name = "LayerNorm"
    inputs = ("data", "gamma", "beta")
    outputs = ("output", "mean", "std")
    params = {
        "axis": Param(int, default=-1, doc="the axis to normalise over"),
        "eps": Param(float, default=1e-5, doc="added to the variance"),
        "output_mean_var": Param(bool, default=False, doc="also return mean and std"),
    }
    saves = ("data", "gamma", "mean", "std")
    test = TestHints(shapes=((2, 3, 4), (4,), (4,)), cases=(({"axis": 1}, ((2, 3), (3,), (3,))),))

    def num_visible(self):
        return 3 if self.output_mean_var else 1

    def infer_input_shapes(self, data, gamma=None, beta=None):
        channels = None if data is None else (data[self.axis % len(data)],)
        return [data, gamma or channels, beta or channels]

    def infer_shape(self, data, gamma, beta):
        axis = self.axis % len(data)
        for name, shape in (("gamma", gamma), ("beta", beta)):
            if tuple(shape) != (data[axis],):
                raise self.shape_error(f"{name} must have shape ({data[axis]},), got {shape}")
        reduced = tuple(1 if a == axis else size for a, size in enumerate(data))
        return [data, reduced, reduced]

    def forward(self, xp, data, gamma, beta):
        axis = self.axis % data.ndim
        mean, var = _moments(data, axis)
        std = xp.sqrt(var + self.eps)
        xhat = (data - mean) / std
        output = xhat * _channel_view(gamma, data.ndim, axis) + _channel_view(
            beta, data.ndim, axis)
        return output.astype(data.dtype), mean, std

    def backward(self, xp, out_grad, *unused, data, gamma, mean, std):
        axis = self.axis % data.ndim
        others = tuple(a for a in range(data.ndim) if a != axis)
        xhat = (data - mean) / std
        grad_xhat = out_grad * _channel_view(gamma, data.ndim, axis)
        grad_data = _normalize_grad(xp, grad_xhat, xhat, 1 / std, axis)
        return grad_data, (out_grad * xhat).sum(axis=others), out_grad.sum(axis=others)


@register_op
class InstanceNorm(OpDef):
    """Normalise each sample's each channel over its spatial axes; gamma/beta per channel."""
    name = "InstanceNorm"
    inputs = ("data", "gamma", "beta")
    params = {"eps": Param(float, default=1e-3, doc="added to the variance")}
    saves = ("data", "gamma")
    test = TestHints(shapes=((2, 3, 4), (3,), (3,)))

    def infer_input_shapes(self, data, gamma=None, beta=None):
        channels = None if data is None else (data[1],)
        return [data, gamma or channels, beta or channels]

    def infer_shape(self, data, gamma, beta):
        if len(data) < 3:
            raise self.shape_error(f"data must have at least 3 axes (N, C, ...), got {data}")
        return data

    def _normalized(self, xp, data):
        axes = tuple(range(2, data.ndim))
        mean, var = _moments(data, axes)
        invstd = 1 / xp.sqrt(var + self.eps)
        return (data - mean) * invstd, invstd, axes

    def forward(self, xp, data, gamma, beta):
        xhat, _, _ = self._normalized(xp, data)
        return xhat * _channel_view(gamma, data.ndim, 1) + _channel_view(beta, data.ndim, 1)

    def backward(self, xp, out_grad, data, gamma):
        xhat, invstd, axes = self._normalized(xp, data)
        others = (0,) + axes
        grad_xhat = out_grad * _channel_view(gamma, data.ndim, 1)
        return (_normalize_grad(xp, grad_xhat, xhat, invstd, axes),
                (out_grad * xhat).sum(axis=others), out_grad.sum(axis=others))


@register_op
class L2Normalization(OpDef):
    """Divide by the L2 norm ``sqrt(sum(x**2) + eps)`` taken per ``instance`` (all axes
    but the first), per ``channel`` (axis 1) or per ``spatial`` position set (axes 2...)."""
    name = "L2Normalization"
    params = {
        "eps": Param(float, default=1e-10, doc="added under the square root"),
        "mode": Param(Choice("channel", "instance", "spatial"), default="instance"),
    }
    saves = ("data", "output")
    test = TestHints(shapes=((2, 3, 2),),
                     reference=_l2_reference,
                     cases=(({"mode": "channel"}, ((2, 3, 2),)),
                            ({"mode": "spatial"}, ((2, 3, 2),))))

    def _axes(self, ndim):
        if self.mode == "instance":
            return tuple(range(1, ndim))
        return (1,) if self.mode == "channel" else tuple(range(2, ndim))

    def _norm(self, xp, data):
        return xp.sqrt((data * data).sum(axis=self._axes(data.ndim), keepdims=True) + self.eps)

    def forward(self, xp, data):
        return data / self._norm(xp, data)

    def backward(self, xp, out_grad, data, output):
        inner = (out_grad * output).sum(axis=self._axes(data.ndim), keepdims=True)
        return (out_grad - output * inner) / self._norm(xp, data)


def _channel_window_sum(xp, values, size):
    """Sum over a window of ``size`` neighbouring channels (axis 1), centred, zero-padded."""
    half = size // 2
    pad = [(0, 0)] * values.ndim
    pad[1] = (half, size - 1 - half)
    padded = xp.pad(values, pad)
    channels = values.shape[1]
    return sum(padded[:, offset:offset + channels] for offset in range(size))


@register_op
class LRN(OpDef):
    """Local response normalisation across ``nsize`` neighbouring channels:
    ``x / (knorm + alpha / nsize * sum(x**2))**beta``."""
    name = "LRN"
    params = {
        "alpha": Param(float, default=1e-4),
        "beta": Param(float, default=0.75),
        "knorm": Param(float, default=2.0),
        "nsize": Param(int, doc="window size in channels (odd)"),
    }
    saves = ("data",)
    test = TestHints(shapes=((2, 4, 2, 1),), params={"nsize": 3, "alpha": 0.5})

    def _scale(self, xp, data):
        return self.knorm + self.alpha / self.nsize * _channel_window_sum(
            xp, data * data, self.nsize)

    def forward(self, xp, data):
        return data * self._scale(xp, data) ** -self.beta

    def backward(self, xp, out_grad, data):
        scale = self._scale(xp, data)
        through_scale = out_grad * data * (-self.beta) * scale ** (-self.beta - 1)
        spread = _channel_window_sum(xp, through_scale, self.nsize)
        return out_grad * scale ** -self.beta + spread * 2 * self.alpha / self.nsize * data
