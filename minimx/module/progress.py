"""The progress display of ``Module.fit``: a tqdm bar, or a log line now and then.

Lesson: 12-training-with-module.  MXNet's ``fit`` shows nothing between the callbacks' log
lines; on a long epoch a learner wants to see that training moves.  With
``progress='auto'`` an epoch that has run for ``DELAY`` seconds gets a bar:
tqdm's notebook widget in Jupyter, its text bar in a terminal.  Without tqdm
installed (it is part of the ``notebook`` extra), the same moments produce a
plain ``logging`` line every ``LOG_EVERY`` seconds.  Short runs, and runs whose
output goes to a file, print nothing extra.
"""
import logging
import sys
import time

__all__ = ["EpochProgress", "wants_progress"]

DELAY = 2.0         # seconds an epoch runs before any progress appears
LOG_EVERY = 10.0    # seconds between the log lines of the fallback
REFRESH = 0.2       # seconds between redraws of the bar


def _in_notebook():
    shell = sys.modules.get("IPython")
    if shell is None or not hasattr(shell, "get_ipython"):
        return False
    ipython = shell.get_ipython()
    return ipython is not None and "IPKernelApp" in getattr(ipython, "config", {})


def wants_progress(progress):
    """Whether ``fit(progress=...)`` shows progress: True, False, or ``'auto'`` (in a
    notebook or when standard error is a terminal)."""
    if progress == "auto":
        return _in_notebook() or bool(getattr(sys.stderr, "isatty", lambda: False)())
    return bool(progress)


def _tqdm():
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


class EpochProgress:
    """Progress through one epoch: call ``update(metric)`` after each batch, then ``close()``.

    Parameters
    ----------
    epoch : int
    total : int or None
        Batches in the epoch when known (from the previous epoch).
    logger : logging.Logger
        Where the fallback writes.
    """

    def __init__(self, epoch, total=None, logger=logging):
        self.epoch = epoch
        self.total = total
        self.logger = logger
        self.count = 0
        self.start = time.time()
        self.last_log = self.start
        tqdm = _tqdm()
        self.bar = None if tqdm is None else tqdm(
            total=total, desc=f"Epoch[{epoch}]", unit="batch", delay=DELAY, leave=False,
            mininterval=REFRESH)

    def update(self, eval_metric=None):
        self.count += 1
        if self.bar is not None:
            if eval_metric is not None:
                self.bar.set_postfix_str(_metric_text(eval_metric), refresh=False)
            self.bar.update(1)
            return
        now = time.time()
        if now - self.start >= DELAY and now - self.last_log >= LOG_EVERY:
            self.last_log = now
            of_total = f"/{self.total}" if self.total else ""
            text = _metric_text(eval_metric) if eval_metric is not None else ""
            self.logger.info("Epoch[%d] Batch[%d%s] %.1f batches/sec %s", self.epoch,
                             self.count, of_total, self.count / (now - self.start), text)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _metric_text(eval_metric):
    return " ".join(f"{name}={value:.4f}" if isinstance(value, float) else f"{name}={value}"
                    for name, value in eval_metric.get_name_value())
