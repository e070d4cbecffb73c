"""The hybridize-speedup view: sliders for the seed's benchmark, a run button, a bar chart.

Lesson: 10-hybridize.  Each click runs ``run_benchmark`` (model.py) in the
kernel with the chosen batch size, widths, depth, number of calls and engine,
and redraws the chart after every mode, so the bars appear as they are
measured.  Without ipywidgets the view is the chart of its last run.
"""
import html

from .chart import chart_svg, summary_text
from .model import MODES, run_benchmark, seed_widths

__all__ = ["HybridizeSpeedup"]

_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
_WIDTHS = [16, 32, 64, 128, 256, 512, 1024]
_CALLS = [10, 50, 100, 200, 500, 1000, 2000]
_ENGINES = ["ThreadedEngine", "NaiveEngine"]


def _nearest(options, value):
    return min(options, key=lambda option: abs(option - value))


class HybridizeSpeedup:
    """Imperative vs ``hybridize()`` vs ``hybridize(static_alloc=True)`` vs numpy, measured here.

    Parameters
    ----------
    batch_size, width, depth : int
        The input batch and the hidden layers: ``depth`` Dense+relu layers, the first
        ``width`` wide, each next one half as wide (the seed: width 256, depth 2).
    calls : int
        Forward calls per timing (the seed uses 1000).
    engine_type : str
        ``"ThreadedEngine"`` or ``"NaiveEngine"``.
    run : bool
        Run the benchmark once now (so a static page shows a measured chart).
    """

    def __init__(self, batch_size=1, width=256, depth=2, calls=1000,
                 engine_type="ThreadedEngine", in_units=512, out_units=2, repeats=5, run=False):
        self.in_units, self.out_units, self.repeats = in_units, out_units, repeats
        self.settings = {"batch_size": batch_size, "width": width, "depth": depth,
                         "calls": calls, "engine_type": engine_type}
        self.result = None
        self.widget = None
        self.widget = self._make_widget()
        if run:
            self.run()

    # -- controls ----------------------------------------------------------------------------
    def _make_widget(self):
        try:
            import ipywidgets as w
        except ImportError:
            return None
        s = self.settings
        style = {"description_width": "110px"}
        layout = w.Layout(width="420px")
        self.controls = {
            "batch_size": w.SelectionSlider(options=_BATCHES,
                                            value=_nearest(_BATCHES, s["batch_size"]),
                                            description="batch size", style=style, layout=layout),
            "width": w.SelectionSlider(options=_WIDTHS, value=_nearest(_WIDTHS, s["width"]),
                                       description="first width", style=style, layout=layout),
            "depth": w.IntSlider(value=s["depth"], min=1, max=6, description="hidden layers",
                                 style=style, layout=layout),
            "calls": w.SelectionSlider(options=_CALLS, value=_nearest(_CALLS, s["calls"]),
                                       description="calls", style=style, layout=layout),
            "engine_type": w.Dropdown(options=_ENGINES, value=s["engine_type"],
                                      description="engine", style=style, layout=layout),
        }
        self.button = w.Button(description="run benchmark", button_style="primary")
        self.button.add_class("mx-hs-run")
        self.status = w.HTML(value=self._status_text())
        self.chart = w.HTML(value="<i>press “run benchmark” to measure</i>")
        self.chart.add_class("mx-hs-chart")
        self.button.on_click(lambda _: self.run())
        for name, control in self.controls.items():
            control.add_class(f"mx-hs-{name.replace('_', '-')}")
            control.observe(lambda _: self._show_status(), names="value")
        box = w.VBox([w.HBox([w.VBox(list(self.controls.values())),
                              w.VBox([self.button, self.status])]), self.chart])
        box.add_class("mx-hybridize-speedup")
        return box

    def _read_controls(self):
        if self.widget is not None:
            self.settings = {name: control.value for name, control in self.controls.items()}
        return self.settings

    def _status_text(self, running=None):
        s = self._read_controls() if self.widget is not None else self.settings
        widths = seed_widths(s["width"], s["depth"])
        text = (f"network: {self.in_units} → {' → '.join(map(str, widths))} → "
                f"{self.out_units}")
        if running:
            text += f"<br><b>measuring {html.escape(running)}…</b>"
        return text

    def _show_status(self, running=None):
        if self.widget is not None:
            self.status.value = self._status_text(running)

    # -- running -----------------------------------------------------------------------------
    def run(self):
        """Run the benchmark with the current settings; returns the result (plain data)."""
        s = self._read_controls()
        if self.widget is not None:
            self.button.disabled = True
        try:
            self._show_status("imperative")
            self.result = run_benchmark(
                batch_size=s["batch_size"], in_units=self.in_units,
                widths=seed_widths(s["width"], s["depth"]), out_units=self.out_units,
                calls=s["calls"], engine_type=s["engine_type"], repeats=self.repeats,
                on_result=self._partial)
        finally:
            if self.widget is not None:
                self.button.disabled = False
        self._partial(self.result)
        return self.result

    def _partial(self, result):
        if self.widget is None:
            return
        self.chart.value = chart_svg(result)
        done = [r["mode"] for r in result["results"]]
        remaining = [mode for mode in MODES if mode not in done]
        self._show_status(remaining[0] if remaining else None)

    # -- display -----------------------------------------------------------------------------
    def static_html(self):
        if self.result is None:
            return "<p>HybridizeSpeedup: not run yet (call .run())</p>"
        return f"<div class='mx-hybridize-static'>{chart_svg(self.result)}</div>"

    def save_svg(self, path):
        """Write the chart of the last run as an SVG file."""
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(chart_svg(self.result))
        return path

    def summary(self):
        return summary_text(self.result) if self.result else "not run yet"

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": f"<HybridizeSpeedup: {self.summary()}>",
                  "text/html": self.static_html()}
        if self.widget is not None:
            widget_bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
            if isinstance(widget_bundle, tuple):
                widget_bundle = widget_bundle[0]
            bundle.update({k: v for k, v in widget_bundle.items() if k != "text/plain"})
        return bundle
