"""``mx.callback``: functions ``fit`` calls after each batch or epoch.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/callback.py``.  A batch-end callback
is any callable taking a ``BatchEndParam`` (``epoch``, ``nbatch``,
``eval_metric``, ``locals``, see ``mx.model``); an epoch-end callback takes
``(epoch, symbol, arg_params, aux_params)``.  The log lines have MXNet 1.9.1's
exact format, written with ``logging.info`` to the root logger.
"""
import logging
import math
import time

from . import model

__all__ = ["module_checkpoint", "do_checkpoint", "log_train_metric", "Speedometer",
           "ProgressBar", "LogValidationMetricsCallback"]


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback: ``mod.save_checkpoint(prefix, epoch + 1, ...)`` every ``period``."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1):
    """Epoch-end callback saving ``prefix-symbol.json`` and ``prefix-%04d.params``.

    Epoch ``i`` (counted from 0) is saved as number ``i + 1``, every ``period`` epochs.

    Examples
    --------
    >>> callback = do_checkpoint("mymodel", period=2)
    >>> callback(0, None, {}, {})          # epoch 1 of every 2: nothing saved
    """
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            model.save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """Batch-end callback logging ``Iter[e] Batch[n] Train-name=value`` every ``period``."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch,
                             name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Batch-end callback logging samples per second and the metric every ``frequent`` batches.

    Parameters
    ----------
    batch_size : int
        Samples per batch.
    frequent : int
        Log every this many batches.
    auto_reset : bool
        Call ``eval_metric.reset_local()`` after each line, so each line shows the
        metric over its own batches (``Batch [50-100]``) rather than since the
        epoch began (``Batch [0-100]``).

    Notes
    -----
    The first call of an epoch (``nbatch`` going down) only starts the clock, and
    the speed is measured between two logged batches, so it includes whatever the
    loop waited for: with the asynchronous engine, the metric's ``asnumpy`` sync.
    """

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0
        self.last_count = 0
        self.auto_reset = auto_reset

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:        # a new epoch began
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        try:
            speed = self.frequent * self.batch_size / (time.time() - self.tic)
        except ZeroDivisionError:
            speed = float("inf")
        self._log(param, count, speed)
        self.tic = time.time()

    def _log(self, param, count, speed):
        if param.eval_metric is None:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count,
                         speed)
            return
        name_value = param.eval_metric.get_name_value()
        pairs = [item for pair in name_value for item in pair]
        metrics = "\t%s=%f" * len(name_value)
        if self.auto_reset:
            param.eval_metric.reset_local()
            logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + metrics,
                         param.epoch, count - self.frequent, count, speed, *pairs)
        else:
            logging.info("Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec" + metrics,
                         param.epoch, count, speed, *pairs)


class ProgressBar:
    """Batch-end callback logging ``[=====-----] 50%`` through each epoch of ``total`` batches.

    ``length`` is the width of the bar in characters.
    """

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        count = param.nbatch
        filled_len = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        prog_bar = "=" * filled_len + "-" * (self.bar_len - filled_len)
        logging.info("[%s] %s%s\r", prog_bar, percents, "%")


class LogValidationMetricsCallback:
    """Epoch-end (eval-end) callback logging ``Epoch[e] Validation-name=value``."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)
