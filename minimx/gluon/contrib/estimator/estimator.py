"""Estimator: ``fit`` and ``evaluate`` loops that raise events for handlers.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/contrib/estimator/estimator.py``.
``fit`` adds the handlers a plain training loop needs unless given ones of their kind:
StoppingHandler (epochs or batches), GradientUpdateHandler (``trainer.step``),
MetricHandler (the training metrics), ValidationHandler (with ``val_data``) and
LoggingHandler.  The training metrics are the ones given (or one suggested by the loss:
accuracy for softmax cross-entropy) plus the loss's running mean, renamed
'training ...'; the validation metrics are copies renamed 'validation ...'.
"""
import copy
import logging
import sys
import warnings

from .... import metric as metric_module
from ....context import Context, cpu, gpu, num_gpus
from ...data.dataloader import DataLoader
from ...loss import Loss
from ...trainer import Trainer
from .batch_processor import BatchProcessor
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler,
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin,
                            TrainEnd, ValidationHandler)
from .utils import (_check_event_handlers, _check_handler_metric_ref, _check_metrics,
                    _suggest_metric_for_loss)

__all__ = ["Estimator"]


def _check_data_loader(data, what):
    if not isinstance(data, DataLoader):
        raise ValueError(f"Estimator.{what} takes a gluon.data.DataLoader, got "
                         f"{type(data).__name__}; wrap a DataIter's or NDArrays' data in a "
                         f"gluon.data.ArrayDataset and a DataLoader")


class Estimator:
    """Train ``net`` with ``loss`` by event handlers.

    Parameters
    ----------
    net : gluon.Block
    loss : gluon.loss.Loss
    train_metrics, val_metrics : EvalMetric or list of EvalMetric, optional
    initializer : Initializer, optional
        Initializes ``net`` if it is not yet (a warning if it is).
    trainer : gluon.Trainer, optional
        Default: SGD with learning rate 0.001 (with a warning).
    context : Context or list of Context, optional
        Default: gpu(0) if there is a GPU, else cpu().
    val_net : gluon.Block, optional
        The net ``evaluate`` runs (sharing ``net``'s parameters); default ``net``.
    val_loss : gluon.loss.Loss, optional
        Default ``loss``.
    batch_processor : BatchProcessor, optional
        What one batch does (``fit_batch``, ``evaluate_batch``).
    """

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None,
                 trainer=None, context=None, val_net=None, val_loss=None,
                 batch_processor=None):
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self._check_loss(val_loss) if val_loss is not None else self.loss
        self.val_net = val_net if val_net is not None else self.net
        self.logger = logging.Logger(name="Estimator", level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = self.max_batch = None
        self.batch_axis = 0

    # -- checks --------------------------------------------------------------------------
    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, Loss):
            raise ValueError(f"Estimator: loss must be a gluon.loss.Loss, got {loss!r}")
        return loss

    @staticmethod
    def _check_context(context):
        gpus = [gpu(i) for i in range(num_gpus())]
        if not context:
            if len(gpus) > 1:
                warnings.warn("You have multiple GPUs, gpu(0) will be used by default. To "
                              "use them all, pass context=[mx.gpu(0), mx.gpu(1), ...]")
            return [gpus[0]] if gpus else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and all(isinstance(c, Context) for c in context)):
            raise ValueError(f"Estimator: context must be a Context or a list of Context, "
                             f"e.g. mx.cpu() or [mx.gpu(0), mx.gpu(1)], got {context!r}")
        for ctx in context:
            assert ctx in gpus or ctx.device_type == "cpu", (
                f"{ctx} is not available; use one of mx.cpu(), "
                f"{', '.join(str(g) for g in gpus)}")
        return context

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, "fit_batch", None))
                and callable(getattr(batch_processor, "evaluate_batch", None))):
            raise ValueError("Estimator: a batch_processor must have fit_batch() and "
                             "evaluate_batch() methods")
        return batch_processor

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn("No trainer specified, default SGD optimizer with learning rate "
                          "0.001 is used.")
            return Trainer(self.net.collect_params(), "sgd", {"learning_rate": 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError(f"Estimator: trainer must be a gluon.Trainer, got {trainer!r}")
        return trainer

    def _is_initialized(self):
        params = self.net.collect_params()
        for name in params:
            try:
                params[name].list_ctx()
            except RuntimeError:
                return False
        return True

    def _initialize(self, initializer):
        if not self._is_initialized():
            self.net.initialize(init=initializer, ctx=self.context) if initializer else \
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. Pass "
                          "no initializer, or call net.initialize(init=..., "
                          "force_reinit=True) to initialize it again.")

    # -- metrics -------------------------------------------------------------------------
    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(metric_module.Loss(self.loss.name.rstrip("0123456789")))
        for metric in self._train_metrics:
            metric.name = "training " + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(metric) for metric in self._train_metrics]
        for metric in self._val_metrics:
            metric.name = (metric.name.replace("training", "validation")
                           if "training" in metric.name else "validation " + metric.name)

    @property
    def train_metrics(self):
        return self._train_metrics

    @property
    def val_metrics(self):
        return self._val_metrics

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        return self.batch_processor._get_data_and_label(batch, ctx, batch_axis)

    # -- the loops -----------------------------------------------------------------------
    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """One pass of ``val_net`` over ``val_data`` (a DataLoader), updating
        ``val_metrics``; a MetricHandler and a LoggingHandler are added unless given."""
        _check_data_loader(val_data, "evaluate")
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = \
            self._categorize_handlers(handlers)
        self._run_epoch(val_data, self.batch_processor.evaluate_batch, batch_axis,
                        epoch_begin, batch_begin, batch_end, stoppable=False)
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None,
            batch_axis=0):
        """Train on ``train_data`` (a DataLoader) for ``epochs`` epochs or ``batches``
        batches (exactly one of them), validating on ``val_data`` after each epoch."""
        _check_data_loader(train_data, "fit")
        if (not epochs) == (not batches):
            raise ValueError("Estimator.fit: give exactly one of epochs and batches")
        self.max_epoch, self.max_batch, self.batch_axis = epochs, batches, batch_axis
        handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = \
            self._categorize_handlers(handlers)
        for handler in train_begin:
            handler.train_begin(self)
        stop = False
        while not stop:
            self._run_epoch(train_data, self.batch_processor.fit_batch, batch_axis,
                            epoch_begin, batch_begin, batch_end, stoppable=True)
            stop = any([handler.epoch_end(self) for handler in epoch_end])
        for handler in train_end:
            handler.train_end(self)

    def _run_epoch(self, data, step, batch_axis, epoch_begin, batch_begin, batch_end,
                   stoppable):
        """One pass over ``data``: ``step(self, batch, batch_axis)`` per batch between the
        batch events.  In training (``stoppable``) a ``batch_end`` returning True ends the
        pass, after every handler has seen that batch's end."""
        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = step(self, batch, batch_axis)
            results = [handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                       for handler in batch_end]
            if stoppable and any(results):
                return

    # -- handlers ------------------------------------------------------------------------
    def _with_defaults(self, event_handlers, known_metrics, defaults, always=()):
        """The given handlers, the ``always`` ones and a default of each kind in
        ``defaults`` not given, sorted by priority.  When both kinds are there, a given
        handler's metrics must be the estimator's (``known_metrics``): those are the ones
        the defaults update."""
        handlers = _check_event_handlers(event_handlers)
        added = list(always) + [make() for kind, make in defaults
                                if not any(isinstance(handler, kind) for handler in handlers)]
        if handlers and added:
            for handler in handlers + added:
                _check_handler_metric_ref(handler, set(known_metrics))
        handlers.extend(added)
        handlers.sort(key=lambda handler: getattr(handler, "priority", 0))
        return handlers

    def _prepare_default_handlers(self, val_data, event_handlers):
        defaults = [(GradientUpdateHandler, GradientUpdateHandler),
                    (MetricHandler, lambda: MetricHandler(metrics=self.train_metrics))]
        if val_data:
            defaults.append((ValidationHandler, lambda: ValidationHandler(
                val_data=val_data, eval_fn=self.evaluate)))
        defaults.append((LoggingHandler, lambda: LoggingHandler(metrics=self.train_metrics)))
        return self._with_defaults(event_handlers, self.train_metrics + self.val_metrics,
                                   defaults, always=[StoppingHandler(self.max_epoch,
                                                                     self.max_batch)])

    def _prepare_default_validation_handlers(self, event_handlers):
        return self._with_defaults(event_handlers, self.val_metrics, [
            (MetricHandler, lambda: MetricHandler(metrics=self.val_metrics)),
            (LoggingHandler, lambda: LoggingHandler(metrics=self.val_metrics))])

    @staticmethod
    def _categorize_handlers(event_handlers):
        """The handlers of each event, in order: train_begin, epoch_begin, batch_begin,
        batch_end, epoch_end, train_end (a handler is in the lists of its mixins)."""
        kinds = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)
        return tuple([handler for handler in event_handlers if isinstance(handler, kind)]
                     for kind in kinds)
