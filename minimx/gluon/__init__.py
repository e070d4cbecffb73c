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
from . import loss  # noqa: E402
from .trainer import Trainer  # noqa: E402
from ..util import serve_on_first_use as _serve_on_first_use  # noqa: E402


def _first_use(name):
    import importlib
    return importlib.import_module(f".{name}", __name__)


# ``gluon.data`` (its data sets, transforms and worker pools), ``gluon.rnn``, ``gluon.utils``,
# ``gluon.model_zoo`` and ``gluon.contrib`` are imported on first use: a first program
# (a network of ``nn`` layers, a loss, a Trainer) runs none of their code.
_serve_on_first_use(globals(), ("data", "rnn", "utils", "model_zoo", "contrib"), _first_use)


__all__ = ["Block", "HybridBlock", "SymbolBlock", "CachedOp", "Parameter", "ParameterDict",
           "Constant", "DeferredInitializationError", "parameter", "nn"]
