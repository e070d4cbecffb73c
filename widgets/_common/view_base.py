"""What every view shares: a payload (plain JSON), an anywidget showing it, a static fallback.

A view object is displayed as one MIME bundle holding both the widget and an
HTML/SVG picture of the same payload: JupyterLab and the built book draw the
widget; viewers without widget support (a code-hosting site) show the picture.
"""
import pathlib

from .live import anywidget_class, in_kernel

__all__ = ["WidgetView"]

COMMON = pathlib.Path(__file__).resolve().parent


class WidgetView:
    """Base of the views: subclasses define ``payload()``, ``render_html(data)``, ``summary_text``
    and the class attributes ``widget_name`` and ``widget_js`` (paths of their JavaScript)."""

    widget_name = None
    widget_js = ()
    final = True

    def __init__(self):
        self._widget = None
        self._handle = None

    def payload(self):
        raise NotImplementedError

    def render_html(self, data):
        raise NotImplementedError

    def summary_text(self, data):
        return type(self).__name__

    def _widget_class(self):
        try:
            import traitlets
        except ImportError:
            return None
        return anywidget_class(self.widget_name, [COMMON / "draw.js", *self.widget_js],
                               COMMON / "draw.css",
                               {"data": traitlets.Dict(), "autoplay": traitlets.Bool(True)})

    def _ensure_widget(self, data):
        if self._widget is None:
            widget_class = self._widget_class() if in_kernel() else None
            if widget_class is None:
                return None
            self._widget = widget_class(data=data)
        else:
            self._widget.data = data
        return self._widget

    def publish(self):
        """Send the current payload to the live widget, if one is shown."""
        if self._widget is not None:
            self._widget.data = self.payload()

    def redisplay(self):
        """Replace the displayed output by the current state (the stored static picture too)."""
        if self._handle is not None:
            self._handle.update(self)

    def _repr_html_(self):
        return self.render_html(self.payload())

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = self.payload()
        bundle = {"text/plain": self.summary_text(data), "text/html": self.render_html(data)}
        widget = self._ensure_widget(data)
        if widget is None:
            return bundle
        view = widget._repr_mimebundle_()       # anywidget: (data, metadata)
        view, metadata = view if isinstance(view, tuple) else (view, {})
        key = "application/vnd.jupyter.widget-view+json"
        bundle[key] = view[key]
        return bundle, metadata
