"""TrainingDashboard: live loss and metric curves, samples per second and progress bars.

Lesson: 12-training-with-module (and the Gluon loops after it).  One object serves three ways:

* ``mod.fit(..., batch_end_callback=dash, epoch_end_callback=dash,
  eval_end_callback=dash.eval_end)``: called with a ``BatchEndParam`` after each
  batch (one argument) and with ``(epoch, symbol, arg_params, aux_params)``
  after each epoch (four arguments);
* in a Gluon loop, ``dash.update(loss=loss, samples=batch_size)`` after each
  batch and ``dash.epoch_end(epoch)`` after each epoch;
* ``dash.close()`` at the end draws the final state (kept by the built page,
  which then replays the run in the browser with no kernel).

Drawing is throttled: the view is redrawn at most every ``interval`` seconds,
from the training loop's own thread, and only then are the values read from
the engine.  Outside Jupyter nothing is displayed and the history still fills.
"""
import pathlib
import time

from .._common.live import show
from .._common.view_base import WidgetView
from .model import TrainingHistory
from .static import render_html, render_svg, status_text

__all__ = ["TrainingDashboard"]

HERE = pathlib.Path(__file__).resolve().parent


class TrainingDashboard(WidgetView):
    """A callback (``Module.fit``) and a recorder (Gluon loops) showing training as it runs.

    Parameters
    ----------
    batch_size : int, optional
        Samples per batch, when the callback cannot tell (Gluon: ``update(samples=...)``,
        or the length of a per-sample loss; Module: the batch's data shape).
    batches_per_epoch, num_epochs : int, optional
        For the progress bars (batches per epoch is otherwise learnt after one epoch).
    interval : float
        Seconds between redraws, at least.
    title : str
        Shown before the status line.
    display : bool
        Show the dashboard when it is created (inside Jupyter only).
    clock : callable
        The time source (tests pass a fake one).

    Examples
    --------
    >>> dash = TrainingDashboard(batch_size=4, display=False)
    >>> for step in range(3):
    ...     dash.update(loss=1.0 / (step + 1))
    >>> dash.history.series("loss")
    ([0, 1, 2], [1.0, 0.5, 0.3333333333333333])
    """

    widget_name = "TrainingDashboardWidget"
    widget_js = (HERE / "view.js",)

    def __init__(self, batch_size=None, batches_per_epoch=None, num_epochs=None, interval=0.25,
                 title="", display=True, clock=time.perf_counter):
        super().__init__()
        self.batch_size = batch_size
        self.interval = interval
        self.title = title
        self.clock = clock
        self.history = TrainingHistory(batches_per_epoch, num_epochs, clock=clock)
        self.final = False
        self.redraws = 0
        self._last_draw = None
        self._epoch = 0
        self._batch = 0
        if display:
            self._handle = show(self)

    # -- Module.fit callbacks -------------------------------------------------------------
    def __call__(self, *args):
        """``batch_end_callback(param)`` or ``epoch_end_callback(epoch, sym, arg, aux)``."""
        if len(args) == 1:
            return self.batch_end(args[0])
        return self.epoch_end(*args)

    def batch_end(self, param):
        """Record a ``BatchEndParam`` (epoch, nbatch, eval_metric, locals)."""
        values = dict(param.eval_metric.get_name_value()) if param.eval_metric else {}
        self._record(param.epoch, param.nbatch, values, self._samples_of(param))

    def epoch_end(self, epoch=None, symbol=None, arg_params=None, aux_params=None):
        """The end of an epoch (``Module.fit``'s epoch-end callback, or call it yourself)."""
        epoch = self._epoch if epoch is None else epoch
        self.history.end_epoch(epoch)
        self._epoch, self._batch = epoch + 1, 0
        if self.history.num_epochs and len(self.history.epochs_done) >= self.history.num_epochs:
            self.close()                        # the last epoch: the run is over
        else:
            self._refresh(force=True)

    def eval_end(self, param):
        """``Module.fit``'s ``eval_end_callback``: the validation metric of the epoch."""
        if param.eval_metric is not None:
            self.history.add_validation(param.epoch, dict(param.eval_metric.get_name_value()))
            self._refresh(force=True)

    def _samples_of(self, param):
        if self.batch_size:
            return self.batch_size
        batch = (param.locals or {}).get("data_batch")
        data = getattr(batch, "data", None)
        if data:
            return int(data[0].shape[0]) - int(getattr(batch, "pad", 0) or 0)
        return 0

    # -- Gluon loops --------------------------------------------------------------------
    def update(self, loss=None, metric=None, samples=None, epoch=None, batch=None):
        """Record one batch of a Gluon loop.

        ``loss``: a number or an NDArray (its mean is drawn; a per-sample loss also
        gives the batch size).  ``metric``: an ``EvalMetric``, a ``{name: value}``
        dict or a number.  ``epoch``/``batch`` default to counting on from the
        previous call (``epoch_end`` starts the next epoch).
        """
        values = {}
        if loss is not None:
            values["loss"] = loss.mean() if hasattr(loss, "asscalar") else loss
        if hasattr(metric, "get_name_value"):
            values.update(metric.get_name_value())
        elif isinstance(metric, dict):
            values.update(metric)
        elif metric is not None:
            values["metric"] = metric
        if samples is None:
            samples = self.batch_size or _leading_dim(loss)
        if epoch is not None and epoch != self._epoch:
            self._epoch, self._batch = epoch, 0
        self._record(self._epoch, self._batch if batch is None else batch, values, samples)

    def _record(self, epoch, batch, values, samples):
        self.history.add_batch(epoch, batch, values, samples)
        self._epoch, self._batch = epoch, batch + 1
        self._refresh()

    def close(self):
        """The run is over: draw the final state (and store it in the notebook's output)."""
        self.final = True
        self._refresh(force=True)
        self.redisplay()

    # -- drawing -------------------------------------------------------------------------
    def _refresh(self, force=False):
        """Redraw the live widget if ``interval`` has passed since the last redraw."""
        now = self.clock()
        if not force and self._last_draw is not None and now - self._last_draw < self.interval:
            return False
        self._last_draw = now
        self.redraws += 1
        self.publish()
        return True

    def payload(self):
        data = self.history.to_dict()
        data.update(title=self.title, final=self.final)
        return data

    def to_svg(self):
        """The static picture, as SVG text."""
        return render_svg(self.payload(), self.title)

    def render_html(self, data):
        return render_html(data, self.title)

    def summary_text(self, data):
        return f"TrainingDashboard({status_text(data)})"


def _leading_dim(loss):
    shape = getattr(loss, "shape", ())
    return int(shape[0]) if shape else 0
