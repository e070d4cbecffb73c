"""The symbol-graph view: a graph as traced and after the executor's passes (issue 6, view 2).

``SymbolGraph(symbol_or_block_or_executor, shape=...)`` in a notebook; ``graph_model`` for
the plain data it draws.
"""
from .model import graph_model
from .view import SymbolGraph

__all__ = ["SymbolGraph", "graph_model"]
