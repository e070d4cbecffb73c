"""Classification metrics: Accuracy, TopKAccuracy, F1, MCC and PCC.

Lesson: 12-training-with-module.  Mirrors the classification part of ``python/mxnet/metric.py``.
Predictions are either class indices (same shape as the labels) or one score
per class along ``axis``; each update moves the batch to numpy once
(``asnumpy``), the per-batch sync point of a training loop.
"""
import math

import numpy as np

from ..base import InvalidParameterError, InvalidShapeError
from .base import EvalMetric, alias, check_label_shapes, register, to_numpy

__all__ = ["Accuracy", "TopKAccuracy", "F1", "MCC", "PCC"]


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of samples whose predicted class equals the label.

    Parameters
    ----------
    axis : int, default 1
        The class axis of score predictions (ignored when predictions are indices).

    Examples
    --------
    >>> from minimx import nd
    >>> acc = Accuracy()
    >>> acc.update([nd.array([0, 1, 1])], [nd.array([[0.3, 0.7], [0, 1], [0.4, 0.6]])])
    >>> acc.get()
    ('accuracy', 0.6666666666666666)
    """

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        for label, pred in zip(labels, preds):
            label, pred = to_numpy(label), to_numpy(pred)
            if pred.shape != label.shape:
                pred = pred.argmax(axis=self.axis)
            label = label.astype("int32").ravel()
            pred = pred.astype("int32").ravel()
            check_label_shapes(label, pred, name=self.name)
            self._accumulate(int((pred == label).sum()), len(pred))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest-scored classes.

    Parameters
    ----------
    top_k : int
        How many of the best classes count as a hit (more than 1; else use Accuracy).
        The name becomes ``top_k_accuracy_<top_k>``.
    """

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        if top_k <= 1:
            raise InvalidParameterError(
                f"TopKAccuracy needs top_k > 1 (use Accuracy for top_k=1), got {top_k}")
        self.top_k = top_k
        self.name += f"_{top_k}"

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        for label, pred in zip(labels, preds):
            label = to_numpy(label).astype("int32").ravel()
            scores = to_numpy(pred).astype("float32")
            if scores.ndim != 2:
                raise InvalidShapeError(f"metric {self.name}: predictions must be scores of "
                                        f"shape (batch, classes), got {scores.shape}")
            check_label_shapes(label, scores, name=self.name)
            k = min(self.top_k, scores.shape[1])
            best = np.argpartition(scores, -k, axis=1)[:, -k:]
            hits = (best == label[:, None]).any(axis=1)
            self._accumulate(int(hits.sum()), len(label))


class _BinaryCounts:
    """True/false positives/negatives of a binary classifier: enough for F1 and MCC."""

    def __init__(self, tp=0, fp=0, fn=0, tn=0):
        self.tp, self.fp, self.fn, self.tn = tp, fp, fn, tn

    def __add__(self, other):
        return _BinaryCounts(self.tp + other.tp, self.fp + other.fp,
                             self.fn + other.fn, self.tn + other.tn)

    @property
    def total(self):
        return self.tp + self.fp + self.fn + self.tn

    def fscore(self):
        """Harmonic mean of precision and recall (0 when either is undefined or zero)."""
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        if precision + recall == 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)

    def matthewscc(self):
        """Matthews correlation coefficient; as in MXNet, a zero margin counts as 1."""
        if not self.total:
            return 0.0
        margins = [self.tp + self.fp, self.tp + self.fn, self.tn + self.fp, self.tn + self.fn]
        denominator = math.prod(margin for margin in margins if margin != 0)
        return (self.tp * self.tn - self.fp * self.fn) / math.sqrt(denominator)


def _binary_counts(label, pred, name):
    """The counts of one batch: class 1 (argmax of the two scores) is the positive class."""
    label = to_numpy(label).astype("int32").ravel()
    scores = to_numpy(pred)
    check_label_shapes(label, scores, name=name)
    if len(np.unique(label)) > 2:
        raise InvalidShapeError(f"metric {name} only supports binary classification, got "
                                f"labels {np.unique(label).tolist()}")
    predicted = scores.argmax(axis=1) == 1
    actual = label == 1
    return _BinaryCounts(tp=int((predicted & actual).sum()), fp=int((predicted & ~actual).sum()),
                         fn=int((~predicted & actual).sum()), tn=int((~predicted & ~actual).sum()))


class _BinaryClassificationMetric(EvalMetric):
    """F1 and MCC: ``average='macro'`` averages the per-batch scores, ``'micro'`` scores
    the counts of all batches together."""

    def __init__(self, name, output_names, label_names, average):
        if average not in ("macro", "micro"):
            raise InvalidParameterError(f"{name}: average must be 'macro' or 'micro', "
                                        f"got {average!r}")
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names,
                         average=average, has_global_stats=True)

    def score(self, counts):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        batch = _BinaryCounts()
        for label, pred in zip(labels, preds):
            batch = batch + _binary_counts(label, pred, self.name)
        if self.average == "macro":
            self._accumulate(self.score(batch), 1)
            return
        self.local_counts = self.local_counts + batch
        self.global_counts = self.global_counts + batch
        self.num_inst = self.local_counts.total
        self.sum_metric = self.score(self.local_counts) * self.num_inst
        self.global_num_inst = self.global_counts.total
        self.global_sum_metric = self.score(self.global_counts) * self.global_num_inst

    def reset(self):
        super().reset()
        self.local_counts = _BinaryCounts()
        self.global_counts = _BinaryCounts()

    def reset_local(self):
        super().reset_local()
        self.local_counts = _BinaryCounts()


@register
class F1(_BinaryClassificationMetric):
    """F1 score of a binary classifier (scores of shape ``(batch, 2)``; class 1 is positive).

    Examples
    --------
    >>> from minimx import nd
    >>> f1 = F1()
    >>> f1.update([nd.array([0, 1, 1])], [nd.array([[0.3, 0.7], [0, 1], [0.4, 0.6]])])
    >>> f1.get()
    ('f1', 0.8)
    """

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def score(self, counts):
        return counts.fscore()


@register
class MCC(_BinaryClassificationMetric):
    """Matthews correlation coefficient of a binary classifier (scores ``(batch, 2)``)."""

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def score(self, counts):
        return counts.matthewscc()


@register
class PCC(EvalMetric):
    """Multi-class Matthews correlation (Pearson's coefficient of the confusion matrix).

    The confusion matrix grows to the largest class seen; the value is nan while
    all predictions, or all labels, fall in one class.
    """

    def __init__(self, name="pcc", output_names=None, label_names=None,
                 has_global_stats=True):
        self.k = 2
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    @property
    def sum_metric(self):
        return _confusion_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return _confusion_mcc(self.gcm) * self.global_num_inst

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        for label, pred in zip(labels, preds):
            label, pred = to_numpy(label).astype("int32"), to_numpy(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype("int32")
            label, pred = label.ravel(), pred.ravel()
            check_label_shapes(label, pred, name=self.name)
            self._grow(int(max(pred.max(), label.max())) + 1)
            batch = np.zeros((self.k, self.k))
            np.add.at(batch, (pred, label), 1)
            self.lcm += batch
            self.gcm += batch
        self.num_inst += 1
        self.global_num_inst += 1

    def _grow(self, classes):
        if classes > self.k:
            extra = ((0, classes - self.k), (0, classes - self.k))
            self.lcm = np.pad(self.lcm, extra)
            self.gcm = np.pad(self.gcm, extra)
            self.k = classes

    def reset(self):
        self.global_num_inst = 0
        self.gcm = np.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0
        self.lcm = np.zeros((self.k, self.k))


def _confusion_mcc(matrix):
    """Matthews correlation of a confusion matrix (rows: predicted, columns: true class)."""
    total = matrix.sum()
    predicted, actual = matrix.sum(axis=1), matrix.sum(axis=0)
    cov_pp = np.sum(predicted * (total - predicted))
    cov_aa = np.sum(actual * (total - actual))
    if cov_pp == 0 or cov_aa == 0:
        return float("nan")
    cov_pa = np.sum(matrix.diagonal() * total - predicted * actual)
    return cov_pa / math.sqrt(cov_pp * cov_aa)
