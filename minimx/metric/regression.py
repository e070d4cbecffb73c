"""Regression metrics: MAE, MSE, RMSE and PearsonCorrelation.

Lesson: 12-training-with-module.  Mirrors the regression part of ``python/mxnet/metric.py``.
MAE, MSE and RMSE compute one value per label/prediction pair and average
those values over the batches (``num_inst`` counts pairs, not samples), as
MXNet does; 1-D arrays are treated as one column.
"""
import numpy as np

from ..base import InvalidParameterError
from .base import EvalMetric, alias, check_label_shapes, register, to_numpy

__all__ = ["MAE", "MSE", "RMSE", "PearsonCorrelation"]


def _column(value):
    value = to_numpy(value)
    return value.reshape(value.shape[0], 1) if value.ndim == 1 else value


class _PairwiseMean(EvalMetric):
    """A metric that averages ``error(label, pred)`` over label/prediction pairs."""

    def __init__(self, name, output_names, label_names):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def error(label, pred):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        for label, pred in zip(labels, preds):
            self._accumulate(self.error(_column(label), _column(pred)), 1)


@register
class MAE(_PairwiseMean):
    """Mean absolute error, ``mean(|label - pred|)``.

    Examples
    --------
    >>> from minimx import nd
    >>> mae = MAE()
    >>> mae.update([nd.array([1, 2, 3])], [nd.array([1.5, 2, 2])])
    >>> mae.get()
    ('mae', 0.5)
    """

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def error(label, pred):
        return np.abs(label - pred).mean()


@register
class MSE(_PairwiseMean):
    """Mean squared error, ``mean((label - pred) ** 2)``."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def error(label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_PairwiseMean):
    """Root mean squared error, ``sqrt(mean((label - pred) ** 2))`` per pair."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def error(label, pred):
        return np.sqrt(((label - pred) ** 2.0).mean())


class _Moments:
    """Count, means, squared deviations and co-deviation of (label, pred) values.

    Merging a batch is exact: ``sum((x - old_mean) * (x - new_mean))`` adds a
    batch's share of the squared deviations, and the cross term likewise.
    """

    def __init__(self):
        self.count = 0
        self.mean_label = self.mean_pred = 0.0
        self.sse_label = self.sse_pred = self.co_deviation = 0.0

    def add(self, label, pred):
        count = self.count + label.size
        mean_label = self.mean_label + np.sum(label - self.mean_label) / count
        mean_pred = self.mean_pred + np.sum(pred - self.mean_pred) / count
        self.sse_label += np.sum((label - self.mean_label) * (label - mean_label))
        self.sse_pred += np.sum((pred - self.mean_pred) * (pred - mean_pred))
        self.co_deviation += np.sum((label - mean_label) * (pred - self.mean_pred))
        self.count, self.mean_label, self.mean_pred = count, mean_label, mean_pred

    def correlation(self):
        return self.co_deviation / np.sqrt(self.sse_label * self.sse_pred)


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of labels and predictions (flattened; same shapes).

    Parameters
    ----------
    average : {'macro', 'micro'}
        ``'macro'`` averages the correlation of each pair; ``'micro'`` is the
        correlation of every value seen since ``reset()``.
    """

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        if average not in ("macro", "micro"):
            raise InvalidParameterError(f"{name}: average must be 'macro' or 'micro', "
                                        f"got {average!r}")
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names,
                         average=average, has_global_stats=True)

    def reset(self):
        super().reset()
        self.moments = _Moments()

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        for label, pred in zip(labels, preds):
            label, pred = to_numpy(label), to_numpy(pred)
            check_label_shapes(label, pred, shape=True, name=self.name)
            label = label.ravel().astype(np.float64)
            pred = pred.ravel().astype(np.float64)
            if self.average == "macro":
                self._accumulate(np.corrcoef(pred, label)[0, 1], 1)
            else:
                self._accumulate(0.0, 1)
                self.moments.add(label, pred)

    def get(self):
        if self.num_inst == 0 or self.average == "macro":
            return super().get()
        return (self.name, float(self.moments.correlation()))

    def get_global(self):
        if self.average == "macro":
            return super().get_global()
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, float(self.moments.correlation()))
