"""Drive the batch-end callbacks with a fake clock and collect their log lines.

Imported by test_callback.py with ``mx = minimx``, and run as a script by the
MXNet 1.9.1 interpreter (``python callback_driver.py`` prints the lines as
JSON), so both libraries' lines can be compared character for character.
"""
import json
import logging

import numpy as np


class FakeTime:
    """Stands in for the ``time`` module inside ``mx.callback``: ``time()`` returns ``now``."""

    def __init__(self, now=1000.0):
        self.now = now

    def time(self):
        return self.now


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def drive(mx):
    """The log lines of Speedometer (both auto_reset modes, no metric), log_train_metric,
    ProgressBar and LogValidationMetricsCallback over two epochs of five batches."""
    clock, collect = FakeTime(), Collect()
    real_time, mx.callback.time = mx.callback.time, clock
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.INFO)
    root.addHandler(collect)
    try:
        _run_epochs(mx, clock)
    finally:
        root.removeHandler(collect)
        root.setLevel(level)
        mx.callback.time = real_time
    return collect.lines


def _run_epochs(mx, clock):
    rng = np.random.RandomState(3)
    metric = mx.metric.create(["acc", "mse"])
    callbacks = [mx.callback.Speedometer(4, frequent=2),
                 mx.callback.Speedometer(4, frequent=3, auto_reset=False),
                 mx.callback.log_train_metric(2), mx.callback.ProgressBar(total=5, length=8)]
    silent = mx.callback.Speedometer(8, frequent=2)
    for epoch in range(2):
        metric.reset()
        for nbatch in range(5):
            labels = [mx.nd.array(rng.randint(0, 3, size=4))]
            metric.update(labels, [mx.nd.array(rng.rand(4, 3))])
            clock.now += 0.25 * (nbatch + 1)
            param = mx.model.BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=metric,
                                           locals=None)
            for callback in callbacks:
                callback(param)
            silent(mx.model.BatchEndParam(epoch, nbatch, None, None))
        mx.callback.LogValidationMetricsCallback()(
            mx.model.BatchEndParam(epoch, 5, metric, None))


if __name__ == "__main__":
    import mxnet
    print(json.dumps(drive(mxnet)))
