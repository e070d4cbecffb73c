"""``gluon.nn``: layers and containers.

Lesson: 08-gluon.  Mirrors ``python/mxnet/gluon/nn/``.
"""
from ..block import Block
from ..hybrid_block import HybridBlock
from ..symbol_block import SymbolBlock
from .sequential import HybridSequential, Sequential

__all__ = ["Block", "HybridBlock", "SymbolBlock", "Sequential", "HybridSequential"]
