"""Output layers: operators that end a network and start its gradient.

Lesson: 07-symbolic-programming, 12-training-with-module.
Mirrors ``src/operator/softmax_output.cc``,
``regression_output.cc``, ``make_loss.cc``, ``svm_output.cc`` and
``loss_binary_op.cc``.  In the symbolic API a network ends with one of these:
the forward pass gives predictions, and the backward pass *ignores* the
incoming gradient and starts from the loss gradient against ``label``.
"""
import functools
import math

import numpy

from .common import as_shape, sigmoid
from .params import Choice, Param
from .registry import OpDef, TestHints, register_op


def _one_hot(xp, label, classes, axis, dtype):
    """One-hot along ``axis``; labels outside ``[0, classes)`` give all zeros."""
    positions = xp.arange(classes).reshape([-1 if a == axis else 1 for a in range(label.ndim + 1)])
    # a reshape puts the class axis in (xp.expand_dims does the same, with more Python)
    column = label.reshape(label.shape[:axis] + (1,) + label.shape[axis:])
    return (column == positions).astype(dtype)


def _positions(xp, classes):
    """``arange(classes)`` as one row: the class ids a label is compared with (numpy's is
    made once per size and kept, read-only)."""
    if xp is numpy:
        return _numpy_positions(classes)
    return xp.arange(classes).reshape(1, classes)


@functools.lru_cache(maxsize=64)
def _numpy_positions(classes):
    row = numpy.arange(classes).reshape(1, classes)
    row.flags.writeable = False
    return row


def _softmax(xp, data, axis):
    shifted = data - data.max(axis=axis, keepdims=True)
    if shifted.dtype.kind != "f":                # (integers: exp gives floats)
        exps = xp.exp(shifted)
        return exps / exps.sum(axis=axis, keepdims=True)
    exps = xp.exp(shifted, out=shifted)          # in place: both are new arrays of ours
    exps /= exps.sum(axis=axis, keepdims=True)
    return exps


@register_op
class SoftmaxOutput(OpDef):
    """Softmax forward; backward gives ``(softmax - one_hot(label)) * grad_scale / norm``
    (a label shaped like the data holds target probabilities: ``softmax - label``).

    The class axis is 1 with ``multi_output`` (data ``(N, C, ...)``, label
    ``(N, ...)``), the last axis with ``preserve_shape``, and otherwise the
    data is flattened to ``(N, C)``.  ``use_ignore`` zeroes the gradient where
    ``label == ignore_label``; ``normalization`` divides by 1 (``null``), the
    batch size (``batch``) or the number of labels not ignored (``valid``).
    """
    name = "SoftmaxOutput"
    head_gradient = False          # backward starts from the loss
    aliases = ("Softmax",)
    inputs = ("data", "label")
    params = {
        "grad_scale": Param(float, default=1.0, doc="multiply the gradient by this"),
        "ignore_label": Param(float, default=-1.0, doc="the label use_ignore skips"),
        "multi_output": Param(bool, default=False, doc="one softmax per position, axis 1"),
        "use_ignore": Param(bool, default=False, doc="skip ignore_label in the gradient"),
        "preserve_shape": Param(bool, default=False, doc="softmax over the last axis"),
        "normalization": Param(Choice("batch", "null", "valid"), default="null"),
        "out_grad": Param(bool, default=False, doc="multiply by the incoming gradient"),
        "smooth_alpha": Param(float, default=0.0, doc="label smoothing"),
    }
    saves = ("label", "output")
    no_grad_inputs = ("label",)
    grad_untouched_inputs = ("label",)      # MXNet's backward never writes its gradient
    test = TestHints(shapes=((3, 4), (3,)), integer_inputs={"label": 4},
                     reference=lambda np, x, label: np.exp(x) / np.exp(x).sum(1, keepdims=True),
                     grad=False)

    def shaped_like_output(self):
        return (0,)

    def _class_axis(self, ndim):
        if self.multi_output:
            return 1
        return ndim - 1 if self.preserve_shape else 1

    def _label_shape(self, data):
        if self.multi_output:
            return (data[0],) + tuple(data[2:])
        return tuple(data[:-1]) if self.preserve_shape else (data[0],)

    def infer_input_shapes(self, data, label=None):
        return [data, label or (None if data is None else self._label_shape(data))]

    def infer_shape(self, data, label):
        expected = self._label_shape(data)
        if tuple(label) != tuple(data) and math.prod(label) != math.prod(expected):
            raise self.shape_error(f"label must have shape {expected} (class ids) or "
                                   f"{tuple(data)} (probabilities) for data {tuple(data)}, "
                                   f"got {tuple(label)}")
        return data

    def _rows(self, data):
        """The data as the op sees it: flattened to (N, C) unless multi_output/preserve_shape."""
        if self.multi_output or self.preserve_shape:
            return data
        return data.reshape(data.shape[0], -1)

    def forward(self, xp, data, label):
        rows = self._rows(data)
        return as_shape(_softmax(xp, rows, self._class_axis(rows.ndim)), data.shape)

    def backward(self, xp, out_grad, label, output):
        probs = self._rows(output)
        axis = self._class_axis(probs.ndim)
        classes = probs.shape[axis]
        if label.shape == output.shape:
            # a label shaped like the data holds target probabilities, as MXNet decides it
            # first: also for one class, data (N, 1) or (N,), where class ids would fit too
            grad = probs - self._rows(label).astype(probs.dtype)
            if self.out_grad:
                grad = grad * self._rows(out_grad)
            count = 1 if self.normalization == "null" else probs.shape[0]
            return (grad * (self.grad_scale / count)).reshape(output.shape), None
        label = label.reshape(self._label_shape(probs.shape))
        if (axis == 1 and probs.ndim == 2 and not self.smooth_alpha and not self.use_ignore
                and not self.out_grad and self.normalization == "null"
                and self.grad_scale == 1):
            # the common head (class ids, no options): ``probs - one_hot`` with the one-hot
            # left as the comparison's booleans (the subtraction reads True as 1): the same
            # values with three array operations instead of eight
            grad = probs - (label.reshape(-1, 1) == _positions(xp, classes))
            return as_shape(grad, output.shape), None
        target = _one_hot(xp, label, classes, axis, probs.dtype)
        if self.smooth_alpha:
            off = self.smooth_alpha / (classes - 1)
            target = target * (1 - self.smooth_alpha - off) + off
        grad = probs - target
        if self.use_ignore:
            grad = grad * xp.expand_dims(label != self.ignore_label, axis)
        if self.out_grad:
            grad = grad * self._rows(out_grad)
        scale = self._scale(xp, label, probs)
        if scale != 1:          # x * 1.0 is x: the product is left out, not changed
            grad = grad * scale
        return as_shape(grad, output.shape), None

    def _scale(self, xp, label, probs):
        if self.normalization == "valid":
            valid = (label != self.ignore_label).sum() if self.use_ignore else label.size
            return self.grad_scale / max(int(valid), 1)
        count = probs.shape[0] if self.normalization == "batch" else 1
        positions = math.prod(probs.shape[2:]) if self.multi_output else 1
        return self.grad_scale / count / positions


class RegressionOutput(OpDef):
    """Forward ``link(data)``; backward ``loss'(output, label) * grad_scale / num_output``."""

    head_gradient = False          # backward starts from the loss
    inputs = ("data", "label")
    params = {"grad_scale": Param(float, default=1.0, doc="multiply the gradient by this")}
    saves = ("label", "output")
    no_grad_inputs = ("label",)
    grad_untouched_inputs = ("label",)      # MXNet's backward never writes its gradient

    def shaped_like_output(self):
        return (0,)

    def infer_input_shapes(self, data, label=None):
        return [data, label or data]

    def infer_shape(self, data, label):
        if math.prod(label) != math.prod(data):
            raise self.shape_error(f"label must have the size of data {tuple(data)}, "
                                   f"got {tuple(label)}")
        return data

    def forward(self, xp, data, label):
        return self.link(xp, data)

    def link(self, xp, data):
        return data

    def backward(self, xp, out_grad, label, output):
        num_output = output.size // output.shape[0]
        grad = self.loss_grad(xp, output, label.reshape(output.shape))
        return grad * (self.grad_scale / num_output), None


@register_op
class LinearRegressionOutput(RegressionOutput):
    """Identity forward; backward is the squared-error gradient ``output - label``."""
    name = "LinearRegressionOutput"
    test = TestHints(shapes=((3, 2), (3, 2)), reference=lambda np, x, label: x, grad=False)

    def loss_grad(self, xp, output, label):
        return output - label


@register_op
class LogisticRegressionOutput(RegressionOutput):
    """Sigmoid forward; backward is the logistic-loss gradient ``output - label``."""
    name = "LogisticRegressionOutput"
    test = TestHints(shapes=((3, 2), (3, 2)), reference=lambda np, x, label: 1 / (1 + np.exp(-x)),
                     grad=False)

    def link(self, xp, data):
        return sigmoid(xp, data)

    def loss_grad(self, xp, output, label):
        return output - label


@register_op
class MAERegressionOutput(RegressionOutput):
    """Identity forward; backward is the absolute-error gradient: 1 where ``output >
    label``, else -1 -- MXNet's (its ``minus_sign``), so an exact prediction gets -1, not
    ``sign``'s 0."""
    name = "MAERegressionOutput"
    test = TestHints(shapes=((3, 2), (3, 2)), reference=lambda np, x, label: x, grad=False)

    def loss_grad(self, xp, output, label):
        above = output > label
        return above.astype(output.dtype) * 2 - 1


@register_op
class MakeLoss(OpDef):
    """Mark ``data`` as a loss: identity forward; backward is ``grad_scale`` divided by
    1 (``null``), the batch size (``batch``) or the count of ``data > valid_thresh``."""
    name = "MakeLoss"
    head_gradient = False          # backward starts from the loss
    params = {
        "grad_scale": Param(float, default=1.0, doc="the gradient of each element"),
        "valid_thresh": Param(float, default=0.0, doc="'valid' counts data above this"),
        "normalization": Param(Choice("batch", "null", "valid"), default="null"),
    }
    saves = ("output",)
    test = TestHints(reference=lambda np, x: x, grad=False)

    def forward(self, xp, data):
        return data

    def backward(self, xp, out_grad, output):
        if self.normalization == "batch":
            count = output.shape[0]
        elif self.normalization == "valid":
            count = max(int((output > self.valid_thresh).sum()), 1)
        else:
            count = 1
        return xp.full(output.shape, self.grad_scale / count, dtype=output.dtype)


@register_op
class MakeLossSimple(OpDef):
    """``make_loss``: identity forward; the gradient of every element is 1 (the incoming
    gradient is ignored).  Its output is named ``<name>_loss``."""
    name = "make_loss"
    head_gradient = False          # backward starts from the loss
    outputs = ("loss",)
    named_outputs = True
    saves = ("data_shape",)
    test = TestHints(reference=lambda np, x: x, grad=False)

    def forward(self, xp, data):
        return data

    def backward(self, xp, out_grad, data_shape):
        return xp.ones(data_shape, dtype=out_grad.dtype)


@register_op
class SoftmaxCrossEntropy(OpDef):
    """Summed cross-entropy of ``softmax(data)`` against integer ``label``; shape ``(1,)``."""
    name = "softmax_cross_entropy"
    inputs = ("data", "label")
    saves = ("data", "label")
    no_grad_inputs = ("label",)
    test = TestHints(shapes=((3, 4), (3,)), integer_inputs={"label": 4})

    def infer_shape(self, data, label):
        if len(data) != 2 or tuple(label) != (data[0],):
            raise self.shape_error(f"expected data (N, C) and label (N,), got {tuple(data)} "
                                   f"and {tuple(label)}")
        return (1,)

    def forward(self, xp, data, label):
        shifted = data - data.max(axis=1, keepdims=True)
        log_probs = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
        picked = log_probs * _one_hot(xp, label, data.shape[1], 1, data.dtype)
        return -picked.sum().reshape(1)

    def backward(self, xp, out_grad, data, label):
        target = _one_hot(xp, label, data.shape[1], 1, data.dtype)
        return (_softmax(xp, data, 1) - target) * out_grad.reshape(()), None


@register_op
class SVMOutput(OpDef):
    """Identity forward; backward is the (squared, unless ``use_linear``) hinge-loss
    gradient of a multi-class SVM with ``margin``, scaled by ``regularization_coefficient``."""
    name = "SVMOutput"
    head_gradient = False          # backward starts from the loss
    inputs = ("data", "label")
    params = {
        "margin": Param(float, default=1.0),
        "regularization_coefficient": Param(float, default=1.0),
        "use_linear": Param(bool, default=False, doc="L1 hinge loss instead of L2"),
    }
    saves = ("data", "label")
    no_grad_inputs = ("label",)
    grad_untouched_inputs = ("label",)      # MXNet's backward never writes its gradient
    test = TestHints(shapes=((3, 4), (3,)), integer_inputs={"label": 4},
                     reference=lambda np, x, label: x, grad=False)

    def infer_input_shapes(self, data, label=None):
        return [data, label or (None if data is None else (data[0],))]

    def forward(self, xp, data, label):
        return data

    def backward(self, xp, out_grad, data, label):
        is_label = _one_hot(xp, label.reshape(-1), data.shape[1], 1, data.dtype).astype(bool)
        # the label's score should exceed +margin, every other score stay below -margin
        signed = xp.where(is_label, data, -data)
        active = (self.margin > signed).astype(data.dtype)
        direction = xp.where(is_label, -1, 1).astype(data.dtype)
        if self.use_linear:
            grad = direction * active
        else:
            grad = direction * 2 * (self.margin - signed) * active
        return grad * self.regularization_coefficient, None
