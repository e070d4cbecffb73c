"""The symbol-graph view: a Symbol, a hybridized block or an Executor, as traced and as planned.

Lesson: 06-symbol, 07-executor, 09-hybridize.  ``SymbolGraph(net)`` computes
the model (model.py), draws both pictures once (draw.py) and shows them in an
anywidget whose toggle and details panel run in the browser, so the built book
keeps them interactive without a kernel.  Without anywidget (or outside
Jupyter) it shows the static SVGs, both modes one above the other.
"""
import html
import pathlib

import traitlets

from .._common import anywidget_class
from .draw import caption_html, details, drawing, render_svg, tooltip_texts
from .model import graph_model

__all__ = ["SymbolGraph"]

_HERE = pathlib.Path(__file__).parent
_TRAITS = {"mode": traitlets.Unicode("traced"), "modes": traitlets.List(),
           "svgs": traitlets.Dict(), "info": traitlets.Dict(), "captions": traitlets.Dict(),
           "title": traitlets.Unicode(), "note": traitlets.Unicode()}
_NO_DOT = ("Graphviz's dot program is not installed, so this is minimx's own simple layout "
           "(apt-get install graphviz for the usual drawing).")


class SymbolGraph:
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
    """

    def __init__(self, source, shape=None, dtype=None, is_train=False, hide_weights=True,
                 mode="traced", use_dot=None):
        self.model = graph_model(source, shape, dtype, is_train)
        self.modes = ["traced"] + (["planned"] if self.model["planned"] else [])
        if mode not in self.modes:
            raise ValueError(f"SymbolGraph: mode {mode!r} is not available; modes: {self.modes}")
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
        self.widget = self._make_widget(mode)

    def _make_widget(self, mode):
        cls = anywidget_class("SymbolGraphWidget", [_HERE / "symbol_graph.js"],
                              _HERE / "symbol_graph.css", _TRAITS)
        if cls is None:
            return None
        return cls(mode=mode, modes=self.modes, svgs=self.svgs, info=self.info,
                   captions=self.captions, title=self.model["title"], note=self.note.strip())

    @property
    def mode(self):
        return self.widget.mode if self.widget is not None else self.modes[0]

    @mode.setter
    def mode(self, value):
        if value not in self.modes:
            raise ValueError(f"SymbolGraph: no mode {value!r}; modes: {self.modes}")
        if self.widget is not None:
            self.widget.mode = value

    def static_html(self):
        """Both pictures with their captions, for pages where widgets do not run."""
        parts = [f"<div class='mx-symbol-graph-static'><p><b>{html.escape(self.model['title'])}"
                 f"</b></p>"]
        for m in self.modes:
            parts.append(f"<div>{self.captions[m]}</div><div style='overflow:auto'>"
                         f"{self.svgs[m]}</div>")
        if self.note:
            parts.append(f"<p style='color:#a05a00'>{html.escape(self.note)}</p>")
        return "".join(parts) + "</div>"

    def save_svg(self, path, mode="traced"):
        """Write one picture as an SVG file (for slides or the book)."""
        pathlib.Path(path).write_text(self.svgs[mode], encoding="utf-8")
        return path

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": f"<SymbolGraph {self.model['title']}: {', '.join(self.modes)}>",
                  "text/html": self.static_html()}
        if self.widget is not None:
            widget_bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
            if isinstance(widget_bundle, tuple):
                widget_bundle = widget_bundle[0]
            bundle.update({k: v for k, v in widget_bundle.items() if k != "text/plain"})
        return bundle
