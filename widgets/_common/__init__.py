"""Helpers the views share: throttled live updates, anywidget loading, static SVG drawing.

Nothing here knows about the engine or memory; each view's model says what to draw.
"""
from .live import Throttled, anywidget_class, in_kernel, show
from .svg import category_color, esc, nice_ticks, svg_document

__all__ = ["Throttled", "anywidget_class", "in_kernel", "show", "category_color", "esc",
           "nice_ticks", "svg_document"]
