"""Gluon losses: HybridBlocks that map (prediction, label) to one loss per sample.

Lesson: 09-gluon (training loop).  Mirrors ``python/mxnet/gluon/loss.py``.
Every loss computes an element-wise loss, multiplies it by ``sample_weight``
(broadcast) and by the scalar ``weight``, then averages over every axis but
``batch_axis``, so ``loss(pred, label)`` has one value per sample and
``L.backward()`` sums their gradients.
"""
import math

from .. import ndarray
from ..ndarray import NDArray
from .hybrid_block import HybridBlock

__all__ = ["Loss", "L2Loss", "L1Loss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss",
           "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "KLDivLoss", "CTCLoss", "HuberLoss",
           "HingeLoss", "SquaredHingeLoss", "LogisticLoss", "TripletLoss", "PoissonNLLLoss",
           "CosineEmbeddingLoss", "SDMLLoss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss * sample_weight`` (broadcast), then ``* weight`` (a number)."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, (int, float)):
            raise TypeError(f"weight must be a number, got {type(weight).__name__}")
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` with the shape of ``y`` (labels given as (N,) for predictions (N, 1))."""
    if F is ndarray:
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class of the losses.

    Parameters
    ----------
    weight : float or None
        A scalar the loss is multiplied by.
    batch_axis : int
        The axis of the batch: the result keeps it and averages the others.
    """

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return f"{type(self).__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def _mean(self, F, loss):
        return F.mean(loss, axis=self._batch_axis, exclude=True)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward")


class L2Loss(Loss):
    """``weight / 2 * (label - pred) ** 2``, averaged per sample.

    Examples
    --------
    >>> mx.gluon.loss.L2Loss()(nd.array([[1, 2]]), nd.array([[1, 4]])).asnumpy()
    array([1.], dtype=float32)
    """

    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return self._mean(F, loss)


class L1Loss(Loss):
    """``|label - pred|``, averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = _apply_weighting(F, F.abs(label - pred), self._weight, sample_weight)
        return self._mean(F, loss)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy of ``sigmoid(pred)`` (or of ``pred`` with ``from_sigmoid=True``).

    Computed from logits in the stable form ``max(x, 0) - x * z + log(1 + exp(-|x|))``.
    ``pos_weight`` (a call argument, broadcast to the label) weighs the positive terms.
    """

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if self._from_sigmoid:
            loss = self._from_probabilities(F, pred, label, pos_weight)
        else:
            log_one_plus = F.Activation(-F.abs(pred), act_type="softrelu")  # log(1 + e^-|x|)
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + log_one_plus
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (log_one_plus + F.relu(-pred))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)

    @staticmethod
    def _from_probabilities(F, pred, label, pos_weight):
        eps = 1e-12
        positive = F.log(pred + eps) * label
        if pos_weight is not None:
            positive = F.broadcast_mul(positive, pos_weight)
        return -(positive + F.log(1. - pred + eps) * (1. - label))


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """Cross-entropy of ``softmax(pred, axis)`` against class indices or distributions.

    Parameters
    ----------
    axis : int, default -1
        The class axis.
    sparse_label : bool, default True
        Labels are class indices (else probability distributions shaped like ``pred``).
    from_logits : bool, default False
        ``pred`` already holds log-probabilities (no log_softmax is applied).
    """

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None,
                 batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """Kullback-Leibler divergence ``label * (log(label) - pred)``, summed (not averaged)
    per sample, as MXNet 1.9.1 does.

    ``pred`` holds log-probabilities when ``from_logits`` (the default); otherwise
    log_softmax is applied along ``axis`` first.
    """

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist Temporal Classification loss (the blank is the last class).

    Parameters
    ----------
    layout : {'NTC', 'TNC'}, default 'NTC'
        Layout of the prediction (unnormalised scores per class).
    label_layout : {'NT', 'TN'}, default 'NT'
        Layout of the label; padded with -1 (or given ``label_lengths``).
    """

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        if layout not in ("NTC", "TNC"):
            raise ValueError(f"Only 'NTC' and 'TNC' layouts for pred are supported. Got: {layout}")
        if label_layout not in ("NT", "TN"):
            raise ValueError(f"Only 'NT' and 'TN' layouts for label are supported. "
                             f"Got: {label_layout}")
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        lengths = {name: value for name, value in (("data_lengths", pred_lengths),
                                                    ("label_lengths", label_lengths))
                   if value is not None}        # by name: either may be left out
        loss = F.CTCLoss(pred, label, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last",
                         **lengths)
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smooth L1: ``|d| - rho / 2`` where ``|d| > rho``, else ``d ** 2 / (2 rho)``."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        distance = F.abs(label - pred)
        loss = F.where(distance > self._rho, distance - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(distance))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


class HingeLoss(Loss):
    """``max(0, margin - pred * label)`` for labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class SquaredHingeLoss(Loss):
    """``max(0, margin - pred * label) ** 2`` for labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))``; labels 'signed' ({-1, 1}) or 'binary' ({0, 1})."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ("signed", "binary"):
            raise ValueError(f"label_format can only be signed or binary, recieved "
                             f"{label_format}.")
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0        # {-1, 1} -> {0, 1}
        loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class TripletLoss(Loss):
    """``max(0, |pred - positive|^2 - |pred - negative|^2 + margin)`` per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        gap = F.sum(F.square(positive - pred) - F.square(negative - pred),
                    axis=self._batch_axis, exclude=True)
        return _apply_weighting(F, F.relu(gap + self._margin), self._weight, None)


class PoissonNLLLoss(Loss):
    """Negative log-likelihood of ``target`` under a Poisson of mean ``pred``
    (``exp(pred)`` when ``from_logits``); averaged over all elements (one number).

    ``compute_full`` adds Stirling's approximation of ``log(target!)`` where ``target > 1``.
    """

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False,
                 **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * math.pi)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """``1 - cos(x1, x2)`` for label 1, ``max(0, cos(x1, x2) - margin)`` for label -1."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = F.reshape(label, shape=(-1, 1))
        cosine = self._cosine_similarity(F, input1, input2)
        similar = (1 - cosine) * (label == 1)
        dissimilar = F.broadcast_maximum(F.zeros((1, 1)), (label == -1) * (cosine - self._margin))
        loss = _apply_weighting(F, similar + dissimilar, self._weight, sample_weight)
        return loss

    @staticmethod
    def _cosine_similarity(F, x, y, axis=-1):
        x_norm = F.reshape(F.norm(x, axis=axis), shape=(-1, 1))
        y_norm = F.reshape(F.norm(y, axis=axis), shape=(-1, 1))
        dot = F.reshape(F.sum(x * y, axis=axis), shape=(-1, 1))
        return dot / F.broadcast_maximum(x_norm * y_norm, F.full((1, 1), 1e-12))


class SDMLLoss(Loss):
    """Smoothed deep metric learning (Bonadiman et al., 2019): a batch of ``N`` aligned
    pairs ``(x1[i], x2[i])``; each ``x1[i]`` should be nearer to its own ``x2[i]`` than to
    the others.  With ``d[i, j] = |x1[i] - x2[j]|^2``, row ``i`` of ``softmax(-d)`` is
    compared (KL divergence) with the smoothed target ``1 - s`` at ``j = i`` and
    ``s / (N - 1)`` elsewhere (``s``: ``smoothing_parameter``).  It reads the batch size,
    so it runs imperatively (as MXNet's)."""

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._smoothing = smoothing_parameter

    def hybrid_forward(self, F, x1, x2):
        if not isinstance(x1, NDArray):
            raise TypeError("SDMLLoss needs the batch size: call it on NDArrays, "
                            "not hybridized")
        size = x1.shape[0]
        if size < 2:
            raise ValueError(f"SDMLLoss needs at least 2 pairs in a batch, got {size}")
        differences = F.expand_dims(x1, axis=1) - F.expand_dims(x2, axis=0)
        distances = F.sum(differences * differences, axis=2)
        off = self._smoothing / (size - 1)
        eye = F.one_hot(F.arange(size, ctx=x1.context), depth=size, dtype=x1.dtype)
        target = eye * (1 - self._smoothing) + (1 - eye) * off
        log_probs = F.log_softmax(-distances, axis=1)
        loss = F.sum(target * (F.log(target) - log_probs), axis=1)
        return _apply_weighting(F, loss, self._weight)
