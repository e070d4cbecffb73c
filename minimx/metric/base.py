"""``EvalMetric``: a running sum and a count, updated once per batch.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/metric.py`` (``EvalMetric``,
``check_label_shapes``, the metric registry).  Every metric keeps two pairs of
counters: the *local* ones (``sum_metric``, ``num_inst``), which ``Speedometer``
clears with ``reset_local()`` after each log line, and the *global* ones, which
only ``reset()`` clears, so an epoch's value survives the per-log resets.
"""
import numpy as np

from ..base import InvalidShapeError
from ..registry import Registry

__all__ = ["EvalMetric", "check_label_shapes", "register", "alias"]


def to_numpy(value):
    """A numpy array from an NDArray (``asnumpy``: a sync point) or anything array-like."""
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    return np.asarray(value)


def as_list(arrays):
    """One array (NDArray or numpy) as a one-element list; a list as it is."""
    if hasattr(arrays, "asnumpy") or isinstance(arrays, np.ndarray):
        return [arrays]
    return arrays


def check_label_shapes(labels, preds, wrap=False, shape=False, name=None):
    """Check that ``labels`` and ``preds`` agree: in count, or in shape with ``shape=True``.

    With ``wrap=True`` a single array becomes a one-element list.  Returns
    ``(labels, preds)``; raises ``InvalidShapeError`` (an ``MXNetError`` and a
    ``ValueError``) naming both sides when they disagree.
    """
    if wrap:
        labels, preds = as_list(labels), as_list(preds)
    if shape:
        label_shape, pred_shape = tuple(labels.shape), tuple(preds.shape)
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        what = "shape" if shape else "number"
        prefix = f"metric {name}: " if name else ""
        raise InvalidShapeError(f"{prefix}{what} of labels {label_shape} does not match "
                                f"{what} of predictions {pred_shape}")
    return labels, preds


class EvalMetric:
    """Base class of the evaluation metrics: subclasses override ``update``.

    Parameters
    ----------
    name : str
        Name shown in logs (``Train-accuracy=...``).
    output_names, label_names : list of str, optional
        The outputs and labels ``update_dict`` picks (default: all, in order).
    **kwargs
        Constructor arguments recorded by ``get_config``; ``has_global_stats=True``
        says the subclass keeps global counters of its own.

    Examples
    --------
    >>> class Count(EvalMetric):
    ...     def update(self, labels, preds):
    ...         self.sum_metric += len(labels)
    ...         self.num_inst += 1
    >>> m = Count("count")
    >>> m.update([1, 2], [3, 4])
    >>> m.get()
    ('count', 2.0)
    """

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"

    def get_config(self):
        """The constructor arguments: ``metric.create(**config)`` rebuilds the metric."""
        config = dict(self._kwargs)
        config.update(metric=type(self).__name__, name=self.name,
                      output_names=self.output_names, label_names=self.label_names)
        return config

    # -- feeding -----------------------------------------------------------------------------
    def update(self, labels, preds):
        """Add one batch: ``labels`` and ``preds`` are lists of NDArrays (or numpy arrays)."""
        raise NotImplementedError(f"{type(self).__name__} must override update(labels, preds)")

    def update_dict(self, label, pred):
        """``update`` with name -> array dicts, picking ``label_names``/``output_names``."""
        preds = _pick(pred, self.output_names, "output")
        labels = _pick(label, self.label_names, "label")
        self.update(labels, preds)

    def _accumulate(self, value, count):
        """Add ``value`` to both sums and ``count`` to both counts (local and global)."""
        self.sum_metric += value
        self.num_inst += count
        self.global_sum_metric += value
        self.global_num_inst += count

    def reset(self):
        """Clear the local and the global counters."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clear the local counters only (``Speedometer`` does this after each log line)."""
        self.num_inst = 0
        self.sum_metric = 0.0

    # -- reading -----------------------------------------------------------------------------
    def get(self):
        """``(name, value)`` of the local counters; the value is nan before any update."""
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, _scalar(self.sum_metric / self.num_inst))

    def get_global(self):
        """``(name, value)`` since the last ``reset()`` (``get()`` without global counters)."""
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, _scalar(self.global_sum_metric / self.global_num_inst))

    def get_name_value(self):
        """``get()`` as a list of ``(name, value)`` pairs."""
        return _pairs(*self.get())

    def get_global_name_value(self):
        """``get_global()`` as a list of ``(name, value)`` pairs."""
        return _pairs(*self.get_global())


def _scalar(value):
    """A Python float from a numpy scalar (arrays, e.g. per-class values, stay as they are)."""
    return float(value) if np.ndim(value) == 0 else value


def _pick(arrays, names, what):
    if names is None:
        return list(arrays.values())
    missing = [name for name in names if name not in arrays]
    if missing:
        raise KeyError(f"update_dict: no {what} named {missing}; got {list(arrays)}")
    return [arrays[name] for name in names]


def _pairs(names, values):
    names = names if isinstance(names, list) else [names]
    values = values if isinstance(values, list) else [values]
    return list(zip(names, values))


METRICS = Registry(EvalMetric, "metric")  # name -> metric class
register = METRICS.register
alias = METRICS.alias
