"""minimx: a readable re-implementation of Apache MXNet 1.x, for teaching.

``import minimx as mx`` and MXNet 1.x code runs.  Layers, lowest first:
``backend``/``context`` -> ``engine`` -> ``op`` (the operator registry) -> ``tape``
-> ``ndarray`` -> ``autograd`` -> ``symbol`` -> ``executor`` -> ... -> ``gluon``,
``module``.  The whole map is ``notebooks/architecture.md``; ``.importlinter`` is the
same map as a contract that ``lint-imports`` checks.

Glossary of the short names used throughout the code:
    ctx  a Context (device)           xp   the array module: numpy or CuPy
    nd   minimx.ndarray               sym  minimx.symbol
    op   an operator declaration      req  a gradient request: write, add or null
    F    nd or sym inside hybrid_forward
"""
from . import storage  # noqa: I001  (order: lowest layer first)
storage.pool_host_memory()
from . import base, context, engine  # noqa: I001
from . import util
from .util import is_np_shape, np_shape, set_np_shape, use_np_shape
from .base import MXNetError
from .context import Context, cpu, cpu_pinned, current_context, gpu, num_gpus
from . import op, ndarray, autograd, random, profiler
from . import name, attribute, symbol
from . import ndarray as nd
from . import symbol as sym
from .attribute import AttrScope
from . import executor, registry, operator, initializer, lr_scheduler, optimizer, metric
from . import callback, monitor, recordio, io, kvstore, viz, gluon, module
from . import image, rnn, contrib
from . import numpy as np
from . import numpy_extension as npx
from . import initializer as init
from . import kvstore as kv
from . import module as mod
from . import monitor as mon
from . import image as img    # MXNet's short name for mx.image
from . import model
from . import runtime, compat
from .compat import install_as_mxnet

__version__ = "0.1.0"


def __getattr__(name):
    """``mx.test_utils`` is imported on first use (as ``import minimx.test_utils`` is):
    it brings ``numpy.testing``, a tenth of the time ``import minimx`` would take."""
    if name == "test_utils":
        import importlib
        return importlib.import_module(".test_utils", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["base", "context", "engine", "op", "ndarray", "nd", "autograd", "random", "symbol",
           "sym", "name", "attribute", "AttrScope", "executor", "registry", "operator",
           "initializer", "init", "lr_scheduler", "optimizer", "metric", "callback", "monitor",
           "mon", "model", "recordio", "image", "img", "rnn", "io", "kvstore", "kv", "viz", "gluon",
           "module", "mod", "profiler", "test_utils", "MXNetError", "Context", "cpu", "gpu",
           "cpu_pinned", "current_context", "num_gpus", "compat", "install_as_mxnet", "util",
           "is_np_shape", "np_shape", "set_np_shape", "use_np_shape",
           "__version__"]
