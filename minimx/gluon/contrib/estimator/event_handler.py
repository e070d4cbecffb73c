"""The event mixins and the handlers ``Estimator.fit`` adds or takes.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/contrib/estimator/event_handler.py``.
A handler subclasses the mixins of the events it handles; each event method gets the
estimator, and ``batch_begin``/``batch_end`` also the batch (``batch=``) and, at the end,
``pred``, ``label`` and ``loss`` (lists, one entry per device).  ``priority`` orders the
handlers of one event, lowest first: GradientUpdateHandler (-2000) steps the trainer
before MetricHandler (-1000) reads the batch, and LoggingHandler (infinity) reports last.
"""
import os
import re
import time
import warnings

import numpy as np

from .... import metric as metric_module
from .utils import _check_metrics

__all__ = ["EventHandler", "TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin",
           "BatchEnd", "StoppingHandler", "MetricHandler", "ValidationHandler",
           "LoggingHandler", "CheckpointHandler", "EarlyStoppingHandler",
           "GradientUpdateHandler"]


class EventHandler:
    """The base of every handler."""


class TrainBegin(EventHandler):
    def train_begin(self, estimator, *args, **kwargs):
        pass


class TrainEnd(EventHandler):
    def train_end(self, estimator, *args, **kwargs):
        pass


class EpochBegin(EventHandler):
    def epoch_begin(self, estimator, *args, **kwargs):
        pass


class EpochEnd(EventHandler):
    def epoch_end(self, estimator, *args, **kwargs):
        """Return True to stop training."""
        return False


class BatchBegin(EventHandler):
    def batch_begin(self, estimator, *args, **kwargs):
        pass


class BatchEnd(EventHandler):
    def batch_end(self, estimator, *args, **kwargs):
        """Return True to end the epoch (and training, when a StoppingHandler agrees)."""
        return False


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stop after ``max_epoch`` epochs or ``max_batch`` batches (the ``fit`` arguments)."""

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        # a CheckpointHandler resuming a run may have shortened the estimator's counts
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Reset ``metrics`` each epoch and update them after each batch (a ``metric.Loss`` with
    the batch's loss, the others with labels and predictions)."""

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        pred, label, loss = kwargs["pred"], kwargs["label"], kwargs["loss"]
        for metric in self.metrics:
            if isinstance(metric, metric_module.Loss):
                metric.update(0, loss)
            else:
                metric.update(label, pred)


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Call ``eval_fn(val_data=..., event_handlers=...)`` every ``epoch_period`` epochs and,
    if given, every ``batch_period`` batches."""

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.priority = priority
        self.event_handlers = event_handlers
        self.current_batch = 0
        self.current_epoch = 0

    def _validate(self):
        self.eval_fn(val_data=self.val_data, event_handlers=self.event_handlers)

    def train_begin(self, estimator, *args, **kwargs):
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._validate()

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._validate()


def _metric_text(metrics):
    return ", ".join(f"{name}: {value:.4f}" for metric in metrics
                     for name, value in _name_values(metric))


def _name_values(metric):
    names, values = metric.get()
    if isinstance(names, str):
        return [(names, values)]
    return list(zip(names, values))


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Log the run to ``estimator.logger``: its start (optimizer, learning rate), each epoch
    (time and ``metrics``) or, with an int ``log_interval``, every that many batches, and
    its end."""

    def __init__(self, log_interval="epoch", metrics=None, priority=np.inf):
        if not (isinstance(log_interval, int) or log_interval == "epoch"):
            raise ValueError(f"LoggingHandler: log_interval must be 'epoch' or an int, got "
                             f"{log_interval!r}")
        self.metrics = _check_metrics(metrics)
        self.log_interval = log_interval
        self.priority = priority
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s with current learning rate "
                              "%.4f ", type(trainer.optimizer).__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        seconds = time.time() - self.train_start
        estimator.logger.info("Train finished using total %ds with %d epochs. %s", seconds,
                              self.current_epoch, _metric_text(self.metrics))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            self.processed_samples += kwargs["batch"][0].shape[0]
            if self.batch_index % self.log_interval == 0:
                estimator.logger.info("[Epoch %d][Batch %d][Samples %s] time/interval: "
                                      "%.3fs %s", self.current_epoch, self.batch_index,
                                      self.processed_samples, self.log_interval_time,
                                      _metric_text(self.metrics))
                self.log_interval_time = 0
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs):
        self.epoch_start = time.time()
        if any("training" in metric.name for metric in self.metrics):
            estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f",
                                  self.current_epoch, estimator.trainer.learning_rate)
        else:       # the handler of an evaluation
            estimator.logger.info("Validation Begin")

    def epoch_end(self, estimator, *args, **kwargs):
        seconds = time.time() - self.epoch_start
        estimator.logger.info("[Epoch %d] Finished in %.3fs, %s", self.current_epoch, seconds,
                              _metric_text(self.metrics))
        self.current_epoch += 1
        self.batch_index = 0        # the samples are counted over the whole run


def _monitor_mode(mode, monitor, who):
    """``np.greater`` or ``np.less``: is a new value better?  'auto' looks for 'acc' or
    'f1' in the metric's name (higher is better) and takes lower otherwise."""
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{who}: mode {mode!r} is unknown, falling back to 'auto'")
        mode = "auto"
    if mode == "auto":
        name = monitor.get()[0]
        mode = "max" if "acc" in name or "f1" in name else "min"
    return np.greater if mode == "max" else np.less


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Save ``{model_prefix}-epoch{E}batch{B}.params`` and ``.states`` (the trainer's) in
    ``model_dir`` every ``epoch_period`` epochs and/or ``batch_period`` batches, keeping the
    last ``max_checkpoints``; with ``save_best`` also ``{model_prefix}-best.*`` whenever
    ``monitor`` improves (``mode``).  ``resume_from_checkpoint`` loads the newest checkpoint
    and trains only the epochs or batches that remain.  A hybridized net's graph is saved
    once as ``{model_prefix}-symbol.json``."""

    def __init__(self, model_dir, model_prefix="model", monitor=None, verbose=0,
                 save_best=False, mode="auto", epoch_period=1, batch_period=None,
                 max_checkpoints=5, resume_from_checkpoint=False):
        self.monitor = monitor
        self.verbose = verbose
        if not os.path.exists(model_dir):
            os.makedirs(model_dir)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        if save_best and monitor is None:
            raise ValueError("CheckpointHandler: save_best=True needs a monitor metric")
        if save_best:
            self.monitor_op = _monitor_mode(mode, monitor, "CheckpointHandler")
            self.best = -np.inf if self.monitor_op is np.greater else np.inf
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        self.current_batch = 0
        self.current_epoch = 0
        self.trained_epoch = -1
        self.trained_batch = -1

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = 0
        self.current_batch = 0
        if self.save_best:
            self.best = -np.inf if self.monitor_op is np.greater else np.inf
        if self.resume_from_checkpoint:
            if (estimator.max_batch and self.epoch_period) or (
                    estimator.max_epoch and self.batch_period):
                raise ValueError("CheckpointHandler: to resume from a checkpoint, save by the "
                                 "unit fit counts in (epoch_period with epochs, batch_period "
                                 "with batches, the other None)")
            self._resume(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _path(self, name):
        return os.path.join(self.model_dir, f"{self.model_prefix}-{name}")

    def _save_symbol(self, estimator):
        graph = getattr(estimator.net, "_cached_graph", None)
        if graph:
            graph[1].save(self._path("symbol.json"))
        elif self.verbose > 0:
            estimator.logger.info("CheckpointHandler: the net is not hybridized; only its "
                                  "parameters are saved")

    def _save_params_and_trainer(self, estimator, name):
        estimator.net.save_parameters(self._path(name + ".params"))
        estimator.trainer.save_states(self._path(name + ".states"))

    def _save_checkpoint(self, estimator):
        name = f"epoch{self.current_epoch + self.trained_epoch + 1}batch" \
               f"{self.current_batch + self.trained_batch + 1}"
        self._save_params_and_trainer(estimator, name)
        if self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: saved %s", self.current_epoch,
                                  self._path(name))
        self.saved_checkpoints.append(name)
        while len(self.saved_checkpoints) > self.max_checkpoints:
            oldest = self.saved_checkpoints.pop(0)
            for suffix in (".params", ".states"):
                if os.path.exists(self._path(oldest + suffix)):
                    os.remove(self._path(oldest + suffix))
        if self.save_best:
            _, value = self.monitor.get()
            if np.isnan(value):
                warnings.warn(f"CheckpointHandler: {self.monitor.get()[0]} is NaN, not "
                              f"comparing it with the best")
            elif self.monitor_op(value, self.best):
                self.best = value
                self._save_params_and_trainer(estimator, "best")
                if self.verbose > 0:
                    estimator.logger.info("[Epoch %d] CheckpointHandler: %s improved to %.5f, "
                                          "saved %s", self.current_epoch,
                                          self.monitor.get()[0], value, self._path("best"))

    def _resume(self, estimator):
        pattern = re.compile(re.escape(self.model_prefix) + r"-epoch(\d+)batch(\d+)\.params$")
        found = sorted((int(m.group(1)), int(m.group(2))) for m in map(
            pattern.match, os.listdir(self.model_dir)) if m)
        if not found:
            estimator.logger.info("CheckpointHandler: no checkpoint in %s, training from "
                                  "the start", self.model_dir)
            return
        self.trained_epoch, self.trained_batch = found[-1]
        if estimator.max_epoch:
            if self.trained_epoch >= estimator.max_epoch - 1:
                raise ValueError(f"CheckpointHandler: the checkpoint of epoch "
                                 f"{self.trained_epoch} already reaches epochs="
                                 f"{estimator.max_epoch}; pass resume_from_checkpoint=False "
                                 f"or more epochs")
            estimator.max_epoch -= self.trained_epoch + 1
        if estimator.max_batch:
            if self.trained_batch >= estimator.max_batch - 1:
                raise ValueError(f"CheckpointHandler: the checkpoint of batch "
                                 f"{self.trained_batch} already reaches batches="
                                 f"{estimator.max_batch}; pass resume_from_checkpoint=False "
                                 f"or more batches")
            estimator.max_batch -= self.trained_batch + 1
        name = f"epoch{self.trained_epoch}batch{self.trained_batch}"
        estimator.net.load_parameters(self._path(name + ".params"), ctx=estimator.context)
        estimator.trainer.load_states(self._path(name + ".states"))
        estimator.logger.info("CheckpointHandler: resumed from %s", self._path(name))


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stop when ``monitor`` has not improved by more than ``min_delta`` for ``patience``
    epochs (``mode`` 'min', 'max' or 'auto'); ``baseline`` is the value to beat first."""

    def __init__(self, monitor, min_delta=0, patience=0, mode="auto", baseline=None):
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.monitor_op = _monitor_mode(mode, monitor, "EarlyStoppingHandler")
        self.min_delta = min_delta if self.monitor_op is np.greater else -min_delta
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = -np.inf if self.monitor_op is np.greater else np.inf

    def epoch_end(self, estimator, *args, **kwargs):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(f"EarlyStoppingHandler: {name} is NaN, not comparing it with the "
                          f"best")
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info("[Epoch %d] EarlyStoppingHanlder: early stopping due to %s "
                                  "not improving", self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """``trainer.step(batch size)`` after each batch, before the metrics are read."""

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        loss = kwargs["loss"]
        batch_size = sum(value.shape[estimator.batch_axis] for value in loss) \
            if isinstance(loss, list) else loss.shape[estimator.batch_axis]
        estimator.trainer.step(batch_size)
