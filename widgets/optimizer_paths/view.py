"""OptimizerPaths: minimx's optimizers racing on a 2-D loss surface, replayed step by step.

Lesson: 13-optimizers.  ``OptimizerPaths('rosenbrock', lr=0.001)`` runs every
optimizer of ``model.OPTIMIZERS`` from the same start and shows the surface,
the paths and the losses.  In JupyterLab the controls (objective, learning
rates, momentum, steps, a click on the surface for the start) ask the kernel
for a new run; on a static page the recorded run replays in the browser with no
kernel.  Without anywidget (or outside Jupyter) the picture is a static SVG.
"""
import pathlib

from .._common.live import anywidget_class
from .._common.view_base import COMMON, WidgetView
from .model import compute_paths
from .objectives import OBJECTIVES
from .static import LAYOUT, band_color, render_html, render_svg

__all__ = ["OptimizerPaths"]

HERE = pathlib.Path(__file__).resolve().parent


class OptimizerPaths(WidgetView):
    """The optimizer-trajectory view: one run of every optimizer on one objective.

    Parameters
    ----------
    objective : str
        One of ``objectives.OBJECTIVES``: 'quadratic', 'rosenbrock', 'beale', 'saddle'.
    steps, lr, adaptive_lr : optional
        Updates per optimizer; the learning rate of SGD, momentum and NAG; that of
        AdaGrad, RMSProp and Adam (None: the objective's defaults).
    momentum : float
        The momentum of momentum SGD and NAG.
    start : (float, float), optional
        Where every optimizer starts (None: the objective's default).
    names : list of str, optional
        Which optimizers to run (labels of ``model.OPTIMIZERS``; None: all).

    Examples
    --------
    >>> view = OptimizerPaths("quadratic", steps=5, names=["SGD", "Adam"])
    >>> [len(path["points"]) for path in view.data["paths"]]
    [6, 6]
    """

    widget_name = "OptimizerPathsWidget"
    widget_js = (HERE / "view.js",)

    def __init__(self, objective="quadratic", steps=None, lr=None, adaptive_lr=None,
                 momentum=0.9, start=None, names=None):
        super().__init__()
        self.names = names
        self.seq = 0
        self.error = ""
        self.data = compute_paths(objective, steps, lr, adaptive_lr, momentum, start, names)

    def recompute(self, objective=None, **settings):
        """A new run; settings not given keep their current values (the objective's
        defaults when the objective changes).  Redraws the live widget."""
        current = self.data["settings"]
        if objective is None or objective == self.data["objective"]["name"]:
            objective = self.data["objective"]["name"]
            for key in ("steps", "lr", "adaptive_lr", "momentum", "start"):
                settings.setdefault(key, current[key])
        settings.setdefault("momentum", current["momentum"])
        self.data = compute_paths(objective, names=self.names, **settings)
        self.publish()
        return self

    def _on_request(self, change):
        """The browser's controls changed: run again with its settings."""
        request = dict(change["new"] or {})
        seq = request.pop("seq", 0)
        try:
            self.error = ""
            self.recompute(**{key: request.get(key) for key in
                              ("objective", "steps", "lr", "adaptive_lr", "momentum", "start")})
        except Exception as error:          # shown in the widget, not lost in the kernel log
            self.error = f"{type(error).__name__}: {error}"
        self.seq = seq
        self.publish()

    # -- drawing -------------------------------------------------------------------------
    def payload(self):
        """What the browser draws: ``compute_paths``'s dict plus the layout and band fills."""
        bands = len(self.data["surface"]["bands"])
        fills = [band_color(i / max(1, bands - 1)) for i in range(bands)]
        return dict(self.data, layout=LAYOUT, fills=fills, seq=self.seq, error=self.error)

    def _widget_class(self):
        import traitlets
        return anywidget_class(self.widget_name, [COMMON / "draw.js", *self.widget_js],
                               COMMON / "draw.css",
                               {"data": traitlets.Dict(), "autoplay": traitlets.Bool(True),
                                "choices": traitlets.List(), "request": traitlets.Dict()})

    def _ensure_widget(self, data):
        fresh = self._widget is None
        widget = super()._ensure_widget(data)
        if widget is not None and fresh:
            widget.choices = [{"name": o.name, "title": o.title, "lr": o.lr,
                               "adaptive_lr": o.adaptive_lr, "steps": o.steps}
                              for o in OBJECTIVES.values()]
            widget.observe(self._on_request, names="request")
        return widget

    def to_svg(self):
        """The static picture (final step), as SVG text."""
        return render_svg(self.payload())

    def render_html(self, data):
        return render_html(data)

    def summary_text(self, data):
        ends = ", ".join(f"{p['name']} {p['losses'][-1]:.3g}" for p in data["paths"])
        return f"OptimizerPaths({data['objective']['name']}: final loss {ends})"
