"""Argument checks shared by Estimator and its handlers."""
from .... import metric as metric_module

__all__ = []


def _check_metrics(metrics):
    """A list of EvalMetrics from one, a list of them or None."""
    if isinstance(metrics, metric_module.CompositeEvalMetric):
        return [m for m in metrics.metrics]
    if isinstance(metrics, metric_module.EvalMetric):
        return [metrics]
    metrics = metrics or []
    if not all(isinstance(m, metric_module.EvalMetric) for m in metrics):
        raise ValueError(f"metrics must be a Metric or a list of Metric (mx.metric), "
                         f"got {metrics!r}")
    return list(metrics)


def _check_handler_metric_ref(handler, known_metrics):
    """A handler's metrics must be the estimator's own objects (they are the ones updated)."""
    referred = list(getattr(handler, "metrics", None) or [])
    if getattr(handler, "monitor", None) is not None:
        referred.append(handler.monitor)
    for metric in referred:
        if metric not in known_metrics:
            raise ValueError(f"Event handler {type(handler).__name__} refers to a metric "
                             f"instance {metric.name!r} outside of the estimator's training "
                             f"and validation metrics; use est.train_metrics or "
                             f"est.val_metrics, or pass your metrics to the Estimator")


def _check_event_handlers(handlers):
    from .event_handler import EventHandler
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    if not all(isinstance(handler, EventHandler) for handler in handlers):
        raise ValueError(f"event_handlers must be an EventHandler or a list of them, got "
                         f"{handlers!r}")
    return handlers


def _suggest_metric_for_loss(loss):
    from ...loss import SoftmaxCrossEntropyLoss
    if isinstance(loss, SoftmaxCrossEntropyLoss):
        return metric_module.Accuracy()
    return None
