"""Combining and customising metrics: ``create``, CompositeEvalMetric, CustomMetric, ``np``.

Lesson: 12-training-with-module.  Mirrors ``create``, ``CompositeEvalMetric``, ``CustomMetric``
and ``np`` of ``python/mxnet/metric.py``.  ``create`` is what ``Module.fit``
calls on its ``eval_metric`` argument: a name, a list, a function or a metric.
"""
import json

from ..base import MXNetError
from .base import (EvalMetric, METRICS, alias, as_list, check_label_shapes, register,
                   to_numpy)

__all__ = ["create", "CompositeEvalMetric", "CustomMetric", "np"]


def create(metric, *args, **kwargs):
    """A metric from a name (``'acc'``), a list of metrics or names, a function
    ``feval(label, pred)``, a config dict (``get_config()``), or a metric itself.

    Examples
    --------
    >>> create('acc').name
    'accuracy'
    >>> create(['acc', 'ce']).get()
    (['accuracy', 'cross-entropy'], [nan, nan])
    """
    if isinstance(metric, type) and issubclass(metric, EvalMetric):
        return metric(*args, **kwargs)
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if isinstance(metric, dict):
        return create(**metric, **kwargs)
    if isinstance(metric, str) and metric.lstrip().startswith("{"):
        return create(**json.loads(metric), **kwargs)
    return METRICS.create(metric, *args, **kwargs)


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns lists of names and values.

    Examples
    --------
    >>> from minimx import nd
    >>> both = CompositeEvalMetric(['acc', 'f1'])
    >>> both.update([nd.array([0, 1, 1])], [nd.array([[0.3, 0.7], [0, 1], [0.4, 0.6]])])
    >>> both.get()
    (['accuracy', 'f1'], [0.6666666666666666, 0.8])
    """

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        self.metrics = []
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(metric) for metric in metrics or []]

    def add(self, metric):
        """Add a child metric (anything ``create`` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index``."""
        if not -len(self.metrics) <= index < len(self.metrics):
            raise MXNetError(f"metric index {index} is out of range: the composite metric "
                             f"has {len(self.metrics)} children")
        return self.metrics[index]

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = {name: value for name, value in labels.items() if name in self.label_names}
        if self.output_names is not None:
            preds = {name: value for name, value in preds.items() if name in self.output_names}
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def reset(self):
        for metric in self.metrics:
            metric.reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def get(self):
        return _concatenate(metric.get() for metric in self.metrics)

    def get_global(self):
        return _concatenate(metric.get_global() for metric in self.metrics)

    def get_config(self):
        config = super().get_config()
        config["metrics"] = [metric.get_config() for metric in self.metrics]
        return config


def _concatenate(results):
    """One ``(names, values)`` pair of lists from the children's results."""
    names, values = [], []
    for name, value in results:
        names.extend(name if isinstance(name, list) else [name])
        values.extend(value if isinstance(value, list) else [value])
    return (names, values)


@register
class CustomMetric(EvalMetric):
    """A metric from a function ``feval(label, pred)`` of numpy arrays, called per pair.

    ``feval`` returns a value (averaged over the pairs) or a tuple
    ``(sum_metric, num_inst)`` to add.

    Parameters
    ----------
    feval : callable
        The evaluation function.
    name : str, optional
        Default: the function's name, ``custom(<lambda>)`` for a lambda.
    allow_extra_outputs : bool
        Allow more predictions than labels (e.g. an RNN's states); extras are ignored.
    """

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = feval.__name__
            if "<" in name:
                name = f"custom({name})"
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if self._allow_extra_outputs:
            labels, preds = as_list(labels), as_list(preds)
        else:
            labels, preds = check_label_shapes(labels, preds, True, name=self.name)
        for label, pred in zip(labels, preds):
            result = self._feval(to_numpy(label), to_numpy(pred))
            if isinstance(result, tuple):
                self._accumulate(*result)
            else:
                self._accumulate(result, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized: it holds a function")


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A ``CustomMetric`` from a function of numpy arrays ``numpy_feval(label, pred)``.

    Examples
    --------
    >>> from minimx import metric, nd
    >>> def mean_gap(label, pred):
    ...     return abs(label - pred).mean()
    >>> metric = metric.np(mean_gap)
    >>> metric.update([nd.array([1, 2])], [nd.array([1, 4])])
    >>> metric.get()
    ('mean_gap', 1.0)
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
