"""``mx.gluon``: the imperative-first API — Parameters, Blocks, hybridize, layers, training.

Lesson: 09-gluon, 10-hybridize.  Mirrors ``python/mxnet/gluon/``.
"""
from . import parameter
from .block import Block
from .cached_op import CachedOp
from .hybrid_block import HybridBlock
from .parameter import Constant, DeferredInitializationError, Parameter, ParameterDict
from .symbol_block import SymbolBlock
from . import nn  # noqa: E402  (layers need the block classes above)
from . import loss, rnn  # noqa: E402
from .trainer import Trainer  # noqa: E402
from . import data, utils  # noqa: E402

_ON_FIRST_USE = ("model_zoo", "contrib")


def __getattr__(name):
    """``gluon.model_zoo`` and ``gluon.contrib`` are imported on first use: their layer
    definitions cost every ``import minimx`` a noticeable share of its time, and most
    programs never use them."""
    if name in _ON_FIRST_USE:
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Block", "HybridBlock", "SymbolBlock", "CachedOp", "Parameter", "ParameterDict",
           "Constant", "DeferredInitializationError", "parameter", "nn"]
