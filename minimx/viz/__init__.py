"""Pictures of a Symbol: ``mx.viz.plot_network`` (Graphviz) and ``mx.viz.print_summary``.

Lesson: 06-symbolic-programming.  Mirrors ``python/mxnet/visualization.py``.  Both read the
graph of ``symbol/graph.py`` and the shapes of ``symbol/inference.py``; only
``plot_network`` needs the optional ``graphviz`` package.
"""
from .plot import GraphvizMissingError, plot_network
from .summary import print_summary

__all__ = ["plot_network", "print_summary", "GraphvizMissingError"]
