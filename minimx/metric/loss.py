"""Likelihood and loss metrics: CrossEntropy, NegativeLogLikelihood, Perplexity, Loss.

Lesson: 12-training-with-module.  Mirrors the probability part of ``python/mxnet/metric.py``.
The first three read the predicted probability of each sample's true class;
``Loss`` (and its aliases for other frameworks, ``Torch`` and ``Caffe``)
averages whatever the network outputs, ignoring the labels.
"""
import math

import numpy as np

from ..base import InvalidShapeError
from .base import EvalMetric, alias, as_list, check_label_shapes, register, to_numpy

__all__ = ["CrossEntropy", "NegativeLogLikelihood", "Perplexity", "Loss", "Torch", "Caffe"]


def _true_class_probabilities(label, pred, name):
    """``pred[i, label[i]]`` for each sample ``i`` of a ``(batch, classes)`` prediction."""
    label = to_numpy(label).ravel()
    pred = to_numpy(pred)
    if pred.ndim != 2 or label.shape[0] != pred.shape[0]:
        raise InvalidShapeError(f"metric {name}: expected predictions of shape "
                                f"({label.shape[0]}, classes) for {label.shape[0]} labels, "
                                f"got {pred.shape}")
    return pred[np.arange(pred.shape[0]), label.astype(np.int64)]


class _LogLikelihood(EvalMetric):
    """Mean of ``-log(p + eps)`` over samples, ``p`` the probability of the true class."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        for label, pred in zip(labels, preds):
            probability = _true_class_probabilities(label, pred, self.name)
            self._accumulate(float(-np.log(probability + self.eps).sum()), probability.size)


@register
@alias("ce")
class CrossEntropy(_LogLikelihood):
    """Cross-entropy of predicted class probabilities (e.g. softmax output) and labels.

    Examples
    --------
    >>> from minimx import nd
    >>> ce = CrossEntropy()
    >>> ce.update([nd.array([1])], [nd.array([[0.5, 0.5]])])
    >>> round(ce.get()[1], 6)
    0.693147
    """

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LogLikelihood):
    """Negative log-likelihood of the true classes (the same value as CrossEntropy)."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
class Perplexity(EvalMetric):
    """``exp`` of the mean negative log-probability of the true tokens.

    Parameters
    ----------
    ignore_label : int or None
        Label (e.g. padding) whose positions are left out.
    axis : int, default -1
        The class axis of the predictions.
    """

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None,
                 label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        loss, count = 0.0, 0
        for label, pred in zip(labels, preds):
            label, pred = to_numpy(label).ravel(), to_numpy(pred)
            probability = self._pick(label, pred)
            if self.ignore_label is not None:
                ignored = label == self.ignore_label
                count -= int(ignored.sum())
                probability = np.where(ignored, np.ones_like(probability), probability)
            loss -= float(np.log(np.maximum(1e-10, probability)).sum())
            count += probability.size
        self._accumulate(loss, count)

    def _pick(self, label, pred):
        """The probability of each label along ``axis`` (indices clipped, as ``nd.pick``)."""
        scores = np.moveaxis(pred, self.axis, -1)
        classes = scores.shape[-1]
        if label.size * classes != pred.size:
            raise InvalidShapeError(f"metric {self.name}: {label.size} labels do not match "
                                    f"predictions of shape {pred.shape} (axis {self.axis})")
        index = np.clip(label.astype(np.int64), 0, classes - 1)
        return np.take_along_axis(scores.reshape(-1, classes), index[:, None], axis=1)[:, 0]

    def get(self):
        name, value = super().get()
        return (name, math.exp(value))

    def get_global(self):
        name, value = super().get_global()
        return (name, math.exp(value))


@register
class Loss(EvalMetric):
    """Mean of the network's outputs: the metric of a net whose output is its loss."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        for pred in as_list(preds):
            pred = to_numpy(pred)
            self._accumulate(float(pred.sum()), pred.size)


@register
class Torch(Loss):
    """``Loss`` under the name ``torch`` (MXNet's placeholder for Torch criteria)."""

    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)


@register
class Caffe(Loss):
    """``Loss`` under the name ``caffe`` (MXNet's placeholder for Caffe criteria)."""

    def __init__(self, name="caffe", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)
