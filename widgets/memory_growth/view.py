"""MemoryGrowth: resident memory over time for sync / no sync / bounded queue, drawn live.

Lesson: 05-lazy-evaluation.  ``MemoryGrowth(batches=30).run()`` shows the view,
runs the three cases of ``MemoryGrowthExperiment`` in this thread and refreshes
the plot from a background thread (at most every ``interval`` seconds) while
they run.  Afterwards the recorded samples replay in the browser with no kernel;
without anywidget the same plot is a static SVG.
"""
import pathlib

from .._common.live import Throttled, show
from .._common.view_base import WidgetView
from .model import MemoryGrowthExperiment
from .payload import build_payload
from .static import render_html, render_svg

__all__ = ["MemoryGrowth"]

HERE = pathlib.Path(__file__).resolve().parent


class MemoryGrowth(WidgetView):
    """The memory-growth experiment and its plot.

    Parameters
    ----------
    batches, batch_size, width, max_pending, interval
        Passed to ``MemoryGrowthExperiment``.
    title : str
        Shown above the plot.
    display : bool
        Show the plot when ``run()`` starts (inside Jupyter only).
    refresh : float
        Seconds between live refreshes, at least.

    Examples
    --------
    >>> view = MemoryGrowth(batches=2, batch_size=8, width=8, display=False).run()
    >>> [run.label for run in view.experiment.runs]
    ['sync every batch', 'no sync', 'no sync, max_pending(8)']
    """

    widget_name = "MemoryGrowthWidget"
    widget_js = (HERE / "view.js",)

    def __init__(self, batches=60, batch_size=1024, width=1024, max_pending=8, interval=0.005,
                 title="", display=True, refresh=0.2):
        super().__init__()
        self.experiment = MemoryGrowthExperiment(batches, batch_size, width, max_pending,
                                                 interval)
        self.title, self.display, self.refresh = title, display, refresh

    def run(self):
        """Run every case, updating the view as memory is sampled; returns ``self``."""
        self.final = False
        if self.display:
            self._handle = show(self)
        refresher = Throttled(self.publish, self.refresh).start() if self._widget else None
        try:
            self.experiment.run()
        finally:
            if refresher is not None:
                refresher.stop(final=False)
            self.final = True
            self.publish()
            self.redisplay()
        return self

    @property
    def runs(self):
        return self.experiment.runs

    def payload(self):
        return build_payload(self.experiment, self.title, self.final)

    def to_svg(self):
        """The static picture, as SVG text."""
        return render_svg(self.payload())

    def render_html(self, data):
        return render_html(data)

    def summary_text(self, data):
        parts = [f"{run['label']}: +{run['growth_mb']:.1f} MB" for run in data["runs"]]
        return "MemoryGrowth(" + "; ".join(parts) + ")"
