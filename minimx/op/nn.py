"""Neural-network layers as operators: dense, softmax and its relatives, dropout.

Lesson: 09-gluon.  Mirrors ``src/operator/nn/fully_connected.cc``,
``softmax.cc`` and ``dropout.cc``.  The activation layers live in
``activations.py`` and the normalisation layers in ``normalization.py``.
"""
import math

from .common import as_shape, sum_in_order
from .params import Choice, DType, Optional, Param, Shape
from .registry import ALL_NEEDED, OpDef, TestHints, register_op


# -- dense layer --------------------------------------------------------------------------------
@register_op
class FullyConnected(OpDef):
    """Dense layer: ``data @ weight.T + bias``.

    With ``flatten`` (the default) ``data`` is flattened to ``(batch, -1)``
    first; otherwise the layer acts on the last axis only.  ``bias`` has shape
    ``(num_hidden,)`` or, as MXNet also accepts, ``(num_hidden, 1)``.
    """
    name = "FullyConnected"
    family = "layer"
    inputs = ("data", "weight", "bias")
    params = {
        "num_hidden": Param(int, doc="number of output units"),
        "no_bias": Param(bool, default=False, doc="leave out the bias"),
        "flatten": Param(bool, default=True, doc="flatten all but the first axis of data"),
    }
    saves = ("data", "weight", "bias_shape")
    test = TestHints(shapes=((2, 3, 2), (4, 6), (4,)), params={"num_hidden": 4},
                     cases=(({"num_hidden": 4, "flatten": False}, ((2, 3, 2), (4, 2), (4,))),
                            ({"num_hidden": 3, "no_bias": True}, ((2, 5), (3, 5)))))


    @classmethod
    def plot_label(cls, attrs):
        """``FullyConnected\n128``: the number of outputs (as MXNet's plot_network)."""
        return f"FullyConnected\n{attrs['num_hidden']}"

    def list_inputs(self, num_args=None):
        return ("data", "weight") if self.no_bias else self.inputs

    def _in_units(self, data):
        return math.prod(data[1:]) if self.flatten else data[-1]

    def blas_work(self, data, weight, bias=None):
        rows = data[0] if self.flatten else math.prod(data[:-1])
        return rows * self._in_units(data) * self.num_hidden

    def infer_input_shapes(self, data, weight=None, bias=None):
        if data is not None:
            weight = weight or (self.num_hidden, self._in_units(data))
        completed = [data, weight]
        return completed if self.no_bias else completed + [bias or (self.num_hidden,)]

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        """The data's batch (every axis but the last, without ``flatten``) is the
        output's, as MXNet's ``FullyConnectedShape`` fills it in."""
        data, *rest = input_shapes
        output = output_shapes[0]
        if output is None:
            return list(input_shapes)
        if self.flatten and data is not None:
            data = (output[0],) + tuple(data[1:])
        elif not self.flatten:
            weight = rest[0] if rest and rest[0] is not None else (0, 0)
            data = tuple(output[:-1]) + (data[-1] if data else weight[1],)
        return [data, *rest]

    def infer_shape(self, data, weight, bias=None):
        expected = (self.num_hidden, self._in_units(data))
        if tuple(weight) != expected:
            raise self.shape_error(f"weight must have shape {expected} for data {data}, "
                                   f"got {tuple(weight)}")
        if bias is not None and tuple(bias) not in ((self.num_hidden,), (self.num_hidden, 1)):
            raise self.shape_error(f"bias must have shape ({self.num_hidden},) or "
                                   f"({self.num_hidden}, 1), got {tuple(bias)}")
        batch = data[:1] if self.flatten else data[:-1]
        return tuple(batch) + (self.num_hidden,)

    def _rows(self, data):
        if data.ndim == 2 or not self.flatten:
            return data
        return data.reshape(data.shape[0], -1)

    def forward(self, xp, data, weight, bias=None):
        # xp.dot rather than @: for 2-D arrays the same product, with less dispatch
        # (a per-call cost that shows on the batch-1 inputs of lesson 10)
        rows = self._rows(data)
        output = xp.dot(rows, weight.T) if rows.ndim == 2 else rows @ weight.T
        if bias is not None:
            output += bias.reshape(-1)      # in place: the product is a new array
        return output

    def backward(self, xp, out_grad, data, weight, bias_shape=None, needs=ALL_NEEDED):
        flat_grad = out_grad if out_grad.ndim == 2 else out_grad.reshape(-1, self.num_hidden)
        grad_data = grad_weight = None
        if needs[0]:        # skipped for the network's input data
            grad_data = as_shape(xp.dot(flat_grad, weight), data.shape)
        if needs[1]:
            rows = self._rows(data)
            # xp.dot, not @: numpy's matmul takes a slow loop for an inner size of 1
            # (a batch of one), 7x slower than dot's BLAS call for the 784x256 layer
            if rows.ndim != 2:
                rows = rows.reshape(-1, rows.shape[-1])
            grad_weight = xp.dot(flat_grad.T, rows)
        if self.no_bias:
            return grad_data, grad_weight
        if not needs[2]:
            return grad_data, grad_weight, None
        # a batch of one row: the sum over it is that row plus the sum's starting zero (-0
        # becomes +0 as in the sum), without the reduction's set-up
        grad_bias = flat_grad[0] + 0 if flat_grad.shape[0] == 1 else flat_grad.sum(axis=0)
        return grad_data, grad_weight, as_shape(grad_bias, bias_shape)


# -- softmax family ----------------------------------------------------------------------------
def _shifted(data, axis, temperature):
    """``data / temperature`` less its maximum along ``axis`` (so ``exp`` cannot overflow);
    an empty array (an empty ``axis`` has no maximum) has nothing to shift."""
    scaled = data if temperature in (None, 1.0) else data / temperature
    if scaled.size == 0:
        return scaled
    return scaled - scaled.max(axis=axis, keepdims=True)


def _row_sums(xp, values, axis):
    """``values`` summed along ``axis`` (kept, of size 1).  In float64 they are added one
    after another, as MXNet's own softmax kernel does (a loop in double;
    ``common.sum_in_order``): float64 ``log_softmax`` values are then MXNet's bit for bit,
    where numpy's pairwise sum left 85 of 640 a last bit apart.  MXNet runs oneDNN's kernel
    for float32, whose order no numpy sum follows: float32 keeps numpy's faster sum."""
    if values.dtype == "float64":
        return sum_in_order(xp, values, axis)
    return values.sum(axis=axis, keepdims=True)


def _softmax(xp, data, axis, temperature):
    shifted = _shifted(data, axis, temperature)
    exps = xp.exp(shifted)
    return exps / _row_sums(xp, exps, axis)


def _log_softmax(xp, data, axis, temperature):
    shifted = _shifted(data, axis, temperature)
    if shifted.size == 0:
        return shifted
    return shifted - xp.log(_row_sums(xp, xp.exp(shifted), axis))


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

    def shaped_like_output(self):
        return (0,)

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


def _reference_softmax_activation(np, x, mode="instance"):
    rows = x if mode == "instance" else np.moveaxis(x, 1, -1)
    exps = np.exp(rows - rows.max(axis=-1, keepdims=True))
    out = exps / exps.sum(axis=-1, keepdims=True)
    return out if mode == "instance" else np.moveaxis(out, -1, 1)


@register_op
class SoftmaxActivation(OpDef):
    """MXNet's older softmax layer: ``instance`` normalises over the last axis (each row of
    a 2-D input is one instance), ``channel`` each position over axis 1.  (For ``instance``
    on more than two axes MXNet 1.9.1's gradient does not match its own forward; minimx's
    is the gradient of the forward, which the generated numeric check confirms.)"""
    name = "SoftmaxActivation"
    unnamed_inputs = True
    params = {"mode": Param(Choice("instance", "channel"), default="instance")}
    saves = ("output",)
    test = TestHints(shapes=((3, 4),), reference=_reference_softmax_activation,
                     cases=(({"mode": "channel"}, ((2, 3, 2),)),))

    def shaped_like_output(self):
        return (0,)

    def axis(self):
        return 1 if self.mode == "channel" else -1

    def forward(self, xp, data):
        return _softmax(xp, data, self.axis(), None)

    def backward(self, xp, out_grad, output):
        inner = (out_grad * output).sum(axis=self.axis(), keepdims=True)
        return output * (out_grad - inner)


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
    named_outputs = True
    params = {
        "p": Param(float, default=0.5, doc="probability of dropping an element"),
        "mode": Param(Choice("training", "always"), default="training"),
        "axes": Param(Shape, default=(), doc="axes along which the mask is shared"),
        "cudnn_off": Param(Optional(bool), default=False, doc="ignored"),
    }
    saves = ("mask",)
    test = TestHints(params={"mode": "always", "p": 0.0}, reference=lambda np, x: x)

    def shaped_like_output(self):
        return (0,)

    @property
    def identity_at_inference(self):
        """Outside training Dropout passes data through, unless ``mode='always'``."""
        return self.mode != "always"

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
