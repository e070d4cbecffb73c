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
from . import model_zoo  # noqa: E402
from . import contrib  # noqa: E402

__all__ = ["Block", "HybridBlock", "SymbolBlock", "CachedOp", "Parameter", "ParameterDict",
           "Constant", "DeferredInitializationError", "parameter", "nn"]
