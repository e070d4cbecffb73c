"""Watching the values inside an Executor while it trains: ``mx.mon.Monitor``.

Lesson: 08-executors.  Mirrors ``python/mxnet/monitor.py``.  ``install`` asks
an executor to report every node output and gradient
(``Executor.set_monitor_callback``).  Every ``interval`` batches, ``tic``
opens a window; ``toc`` closes it and turns each reported array, then each
argument and auxiliary state, into one line of statistics.

A gradient nobody asked for (an input with ``grad_req='null'``: a Module's data and label
unless ``inputs_need_grad``) is never computed, so it is not reported.  MXNet 1.9.1 lists it
anyway (``fc_0_backward_output0``, ``softmax_backward_output1``: 21 lines where minimx has 19
in its ``test_module.py::test_monitor``), with the statistics of a buffer its backward never
wrote: there, the data's "gradient" has exactly the statistic of ``act_1_output``, whose
memory it reuses, and the label's changes from run to run (1.1e12, 2e-22, 65537: memory never
written).  Those lines are not values, so minimx leaves them out (tests/test_monitor.py
compares the rest with MXNet).
"""
import logging
import math
import re

from . import ndarray as nd
from .base import MXNetError

__all__ = ["Monitor", "default_stat"]


def default_stat(array):
    """``norm(x) / sqrt(x.size)``: the root mean square of the array (MXNet's default)."""
    return nd.norm(array) / math.sqrt(array.size)


class Monitor:
    """Statistics of the arrays inside executors, every ``interval`` batches.

    Parameters
    ----------
    interval : int
        Collect on batches 1, 1 + interval, 1 + 2 * interval, ...
    stat_func : callable, optional
        NDArray -> NDArray (or list of NDArrays); default ``default_stat``.
    pattern : str
        Regular expression; only names it matches (from the start) are kept,
        e.g. ``'.*weight|.*output'``, or ``'.*backward.*'`` for the gradients.
    sort : bool
        Sort each batch's results by name.
    monitor_all : bool
        Also report every operator's inputs, not only its outputs.

    Examples
    --------
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    >>> exe = net.simple_bind(mx.cpu(), data=(1, 3))
    >>> mon = mx.mon.Monitor(1, pattern='fc_output')
    >>> mon.install(exe)
    >>> mon.tic(); _ = exe.forward(); [name for _, name, _ in mon.toc()]
    ['fc_output']
    """

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        self.interval = interval
        self.stat_func = default_stat if stat_func is None else stat_func
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all
        self.activated = False
        self.queue = []          # (step, name, array) reported in the open window
        self.step = 0
        self.exes = []

    def stat_helper(self, name, array):
        """The executor's callback.  It runs inside the engine, so it only keeps the array:
        ``stat_func`` runs later, in ``toc``, on the caller's thread."""
        if self.activated and self.re_prog.match(name):
            self.queue.append((self.step, name, array))

    def install(self, exe):
        """Ask ``exe`` to report its arrays to this monitor (several executors may share it)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start a batch: call before ``forward``.  Opens a window every ``interval`` batches."""
        if self.step % self.interval == 0:
            nd.waitall()     # work pushed before this batch must not report into its window
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """End a batch: a list of ``(step, name, statistics text)``, empty outside a window."""
        if not self.activated:
            return []
        nd.waitall()         # forward and backward run asynchronously; wait for their reports
        for exe in self.exes:
            for names, arrays in ((exe._symbol.list_arguments(), exe.arg_arrays),
                                  (exe._symbol.list_auxiliary_states(), exe.aux_arrays)):
                self.queue += [(self.step, name, array) for name, array in zip(names, arrays)
                               if self.re_prog.match(name)]
        self.activated = False
        records, self.queue = self.queue, []
        if self.sort:
            records.sort(key=lambda record: record[1])
        return [(step, name, self._stat_text(array)) for step, name, array in records]

    def toc_print(self):
        """End a batch and log its statistics (``logging.info``), one line per array."""
        for step, name, text in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(step, name, text))

    def _stat_text(self, array):
        """The statistics of one array as MXNet prints them: tab-ended values."""
        values = self.stat_func(array)
        values = values if isinstance(values, (list, tuple)) else [values]
        text = ""
        for value in values:
            if not isinstance(value, nd.NDArray):
                raise MXNetError(f"Monitor: stat_func must return an NDArray or a list of "
                                 f"NDArrays, got {type(value).__name__}")
            text += (str(value.asscalar()) if value.shape == (1,) else str(value.asnumpy()))
            text += "\t"
        return text
