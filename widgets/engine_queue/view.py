"""EngineTimeline: watch the engine queue fill and drain while a cell runs, then replay it.

Lesson: 05-lazy-evaluation.  ``with EngineTimeline() as t: ...`` subscribes to
the engine's events for the body, shows a live view (refreshed from a
background thread at most every ``interval`` seconds), waits for the work the
body pushed, and leaves a timeline that replays in the browser with no kernel.
``EngineTimeline.from_trace(path)`` shows a trace saved by ``mx.profiler.dump``.  The sync
points of the body (the frontend waiting for the engine) are drawn on the frontend's lane;
those of a value-dependent shape (``np.nonzero``, ``np.unique``, a boolean mask) stand out.
Without anywidget (or outside Jupyter) the same picture is a static SVG.
"""
import pathlib
import sys
import time

from minimx import engine

from .._common.live import Throttled, show
from .._common.view_base import WidgetView
from .labels import var_labels
from .model import EngineRecording, add_events
from .payload import build_payload
from .static import render_html, render_svg
from .trace import recording_from_trace

__all__ = ["EngineTimeline"]

HERE = pathlib.Path(__file__).resolve().parent


class EngineTimeline(WidgetView):
    """The engine queue view: a recording of engine events and how to draw it.

    Parameters
    ----------
    title : str
        Shown above the picture.
    live : bool or None
        Refresh the view while the body runs (None: only when a widget is shown).
    display : bool
        Show the view when the ``with`` block begins (inside Jupyter only).
    interval : float
        Seconds between live refreshes, at least.
    max_ops : int
        Up to this many operations are drawn one by one; longer runs as time bins.
    wait : bool
        On leaving the block, wait (up to ``timeout`` seconds) for the operations it
        pushed, so the timeline shows them finish.  Errors are not raised here.

    Examples
    --------
    >>> with EngineTimeline(display=False) as t:
    ...     y = nd.dot(nd.ones((50, 50)), nd.ones((50, 50)))
    >>> t.recording.summary()["operations"]
    3
    """

    widget_name = "EngineQueueWidget"
    widget_js = (HERE / "view.js",)

    def __init__(self, title="", live=None, display=True, interval=0.15, max_ops=600,
                 wait=True, timeout=60.0):
        super().__init__()
        self.title = title
        self.live = live
        self.display = display
        self.interval = interval
        self.max_ops = max_ops
        self.wait = wait
        self.timeout = timeout
        self.recording = EngineRecording([])
        self.refresher = None
        self._events = []
        self._syncs = []
        self._records, self._folded = {}, 0
        self._caller = None
        self.final = True

    # -- recording ---------------------------------------------------------------------
    def __enter__(self):
        self._events, self._syncs = [], []
        self._record = self._events.append     # the subscriber: a bare list append
        self._record_sync = self._syncs.append
        self._records, self._folded = {}, 0
        self._caller = sys._getframe(1)
        self.final = False
        self.recording = EngineRecording([], origin=time.perf_counter())
        if self.display:
            self._handle = show(self)
        self.recording = EngineRecording([], origin=time.perf_counter())    # after showing
        engine.subscribe(self._record)
        engine.subscribe_sync(self._record_sync)
        if self.live or (self.live is None and self._widget is not None):
            self.refresher = Throttled(self._refresh, self.interval).start()
        return self

    def __exit__(self, *exc_info):
        try:
            if self.wait:
                self._wait_for_pushed_ops()
        finally:
            engine.unsubscribe(self._record)
            engine.unsubscribe_sync(self._record_sync)
            if self.refresher is not None:
                self.refresher.stop(final=False)
            caller, self._caller = self._caller, None
            labels = var_labels(caller.f_globals, caller.f_locals) if caller else {}
            self.final = True
            self.recording = self._snapshot(labels)
            self.publish()
            self.redisplay()                    # the stored output gets the final picture
        return False

    def _wait_for_pushed_ops(self):
        """Poll the recorded events until every pushed operation has ended."""
        open_ops, seen = set(), 0
        deadline = time.perf_counter() + self.timeout
        while True:
            events = self._events
            for event in events[seen:len(events)]:
                if event.kind == "push":
                    open_ops.add(event.op_id)
                elif event.kind == "end":
                    open_ops.discard(event.op_id)
            seen = len(events)
            if not open_ops or time.perf_counter() > deadline:
                return
            time.sleep(0.001)

    def _snapshot(self, labels=None):
        """The recording so far, folding in only the events new since the last snapshot."""
        count = len(self._events)
        add_events(self._records, self._events[self._folded:count])
        self._folded = count
        ended = all(op.end is not None for op in self._records.values() if op.push is not None)
        now = None if self.final and ended else time.perf_counter()
        return EngineRecording(list(self._records.values()), origin=self.recording.origin,
                               now=now, var_labels=labels, syncs=list(self._syncs))

    def _refresh(self):
        self.recording = self._snapshot()
        self.publish()

    # -- other sources -------------------------------------------------------------------
    @classmethod
    def from_trace(cls, source, title=""):
        """The view of a Chrome trace saved by ``mx.profiler.dump`` (path, JSON or dict)."""
        view = cls(title=title, display=False)
        view.recording = recording_from_trace(source)
        return view

    @classmethod
    def from_events(cls, events, title="", var_labels=None, syncs=()):
        """The view of a list of ``EngineEvent``s collected by any subscriber (and of the
        ``SyncEvent``s a sync subscriber collected)."""
        view = cls(title=title, display=False)
        view.recording = EngineRecording.from_events(events, var_labels=var_labels,
                                                     syncs=syncs)
        return view

    # -- drawing -------------------------------------------------------------------------
    def payload(self):
        """What the browser draws (see payload.py)."""
        return build_payload(self.recording, self.title, self.final, self.max_ops)

    def to_svg(self):
        """The static picture, as SVG text."""
        return render_svg(self.payload())

    def render_html(self, data):
        return render_html(data)

    def summary_text(self, data):
        summary = data["summary"]
        return (f"EngineTimeline({summary['operations']} operations, "
                f"finished at {summary['finished_ms']:.3f} ms, {summary['syncs']} sync points)")

