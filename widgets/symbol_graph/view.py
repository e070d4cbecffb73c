"""The symbol-graph view: a Symbol, a hybridized block or an Executor, as traced and as planned.

Lesson: 07-symbolic-programming, 08-executors, 10-hybridize.  ``SymbolGraph(net)`` computes
the model (model.py), draws both pictures once (draw.py) and shows them in an
anywidget whose toggle and details panel run in the browser, so the built book
keeps them interactive without a kernel.  Without anywidget (or outside
Jupyter) it shows the static SVGs, both modes one above the other.
"""
import html
import pathlib

from .._common.live import anywidget_class
from .._common.view_base import COMMON, WidgetView
from .draw import caption_html, details, drawing, render_svg, tooltip_texts
from .model import graph_model

__all__ = ["SymbolGraph"]

_HERE = pathlib.Path(__file__).resolve().parent
_NO_DOT = ("Graphviz's dot program is not installed, so this is minimx's own simple layout "
           "(apt-get install graphviz for the usual drawing).")


class SymbolGraph(WidgetView):
    """An interactive drawing of a graph before and after the executor's passes.

    Parameters
    ----------
    source : Symbol, HybridBlock or Executor
        A block must be hybridized and called once (its cached graph and plan are drawn).
    shape, dtype : dict, optional
        Input shapes/dtypes (a Symbol needs shapes for the planned view).
    is_train : bool
        Draw the training plan (nothing released early) instead of the inference plan.
    hide_weights : bool
        Leave weight and bias variables out of the picture (their counts stay on the ops).
    mode : str
        ``"traced"`` or ``"planned"``: what is shown first.
    use_dot : bool or None
        Lay out with Graphviz's ``dot`` (None: when it is installed).

    Examples
    --------
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc')
    >>> SymbolGraph(net, shape={'data': (2, 3)}).model["planned"]["steps_after"]
    1
    """

    widget_name = "SymbolGraphWidget"
    widget_js = (_HERE / "symbol_graph.js",)

    def __init__(self, source, shape=None, dtype=None, is_train=False, hide_weights=True,
                 mode="traced", use_dot=None):
        super().__init__()
        self.model = graph_model(source, shape, dtype, is_train)
        self.modes = ["traced"] + (["planned"] if self.model["planned"] else [])
        if mode not in self.modes:
            raise ValueError(f"SymbolGraph: mode {mode!r} is not available; modes: {self.modes}")
        self.mode = mode
        self.info = {m: details(self.model, m) for m in self.modes}
        self.svgs, engines = {}, set()
        for m in self.modes:
            svg, engine = render_svg(drawing(self.model, m, hide_weights),
                                     tooltip_texts(self.info[m]), use_dot)
            self.svgs[m] = svg
            engines.add(engine)
        self.engine = engines.pop() if len(engines) == 1 else "mixed"
        self.captions = {m: caption_html(self.model, m) for m in self.modes}
        self.note = "" if self.engine == "graphviz" else _NO_DOT
        if not self.model["planned"]:
            self.note += " No planned view: the input shapes are unknown (pass shape=...)."
        self.note = self.note.strip()

    def _widget_class(self):
        import traitlets
        return anywidget_class(self.widget_name, [COMMON / "draw.js", *self.widget_js],
                               _HERE / "symbol_graph.css",
                               {"data": traitlets.Dict(), "autoplay": traitlets.Bool(False)})

    def payload(self):
        """What the browser draws: both pictures, their captions and the details per element."""
        return {"title": self.model["title"], "mode": self.mode, "modes": self.modes,
                "svgs": self.svgs, "info": self.info, "captions": self.captions,
                "note": self.note, "engine": self.engine}

    def summary_text(self, data):
        return f"<SymbolGraph {data['title']}: {', '.join(data['modes'])}>"

    def render_html(self, data):
        """Both pictures with their captions, for pages where widgets do not run."""
        parts = [f"<div class='mx-symbol-graph-static'><p><b>{html.escape(data['title'])}"
                 f"</b></p>"]
        for m in data["modes"]:
            parts.append(f"<div>{data['captions'][m]}</div><div style='overflow:auto'>"
                         f"{data['svgs'][m]}</div>")
        if data["note"]:
            parts.append(f"<p style='color:#a05a00'>{html.escape(data['note'])}</p>")
        return "".join(parts) + "</div>"

    def static_html(self):
        return self.render_html(self.payload())

    def save_svg(self, path, mode="traced"):
        """Write one picture as an SVG file (for slides or the book)."""
        pathlib.Path(path).write_text(self.svgs[mode], encoding="utf-8")
        return path
