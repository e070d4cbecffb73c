"""Pictures of a Symbol: ``mx.viz.plot_network`` (Graphviz) and ``mx.viz.print_summary``.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/visualization.py``.  Both read the
graph of ``symbol/graph.py`` and the shapes of ``symbol/inference.py``; only
``plot_network`` needs the optional ``graphviz`` package.
"""
from .plot import (FAMILY_COLORS, INPUT_COLOR, OTHER_COLOR, GraphvizMissingError, node_label,
                   op_color, plot_network)
from .summary import parameter_count, print_summary

__all__ = ["plot_network", "print_summary", "GraphvizMissingError", "op_color", "node_label",
           "parameter_count", "INPUT_COLOR", "OTHER_COLOR", "FAMILY_COLORS"]
