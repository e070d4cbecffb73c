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
import gc as _gc
import os as _os

from . import storage  # noqa: I001  (order: lowest layer first)
storage.pool_host_memory()
from . import base, context, engine  # noqa: I001
from . import util
from .util import is_np_shape, np_shape, set_np_shape, use_np_shape
from .base import MXNetError
from .context import Context, cpu, cpu_pinned, current_context, gpu, num_gpus
from . import op, ndarray, autograd, random
from . import name, attribute, symbol
from . import ndarray as nd
from . import symbol as sym
from .attribute import AttrScope
from . import executor, registry, operator, initializer, lr_scheduler, optimizer
from . import kvstore, gluon
from . import numpy as np
from . import numpy_extension as npx
from . import initializer as init
from . import kvstore as kv

__version__ = "0.1.0"

# The import made tens of thousands of Python objects (modules, classes, functions, the
# operator registry, numpy's own) that live as long as the process.  A full garbage
# collection walks every object the collector tracks, and one falls within a program's
# first steps: 12-16 ms of CPU in the first pass of bench/bucketing_lm.py (53,000 objects;
# the pass takes about 85 ms).  They are moved to the collector's permanent generation,
# which it no longer walks (``gc.freeze``); objects made later are collected as before.
# ``MINIMX_GC_FREEZE=0`` leaves the collector alone.
if _os.environ.get("MINIMX_GC_FREEZE", "1") != "0":
    _gc.freeze()
del _gc, _os

# Imported on first use (``mx.io``, ``from minimx import io``; ``dir(mx)`` lists them): a
# first program -- arrays, autograd, a Gluon network and its Trainer -- runs none of their
# code, and every lesson, test process and data-loader worker would pay for them.
# ``mx.test_utils`` brings ``numpy.testing``; ``compat`` the import machinery's classes.
_ON_FIRST_USE = {"profiler": "profiler", "metric": "metric", "callback": "callback",
                 "monitor": "monitor", "mon": "monitor", "recordio": "recordio", "io": "io",
                 "viz": "viz", "module": "module", "mod": "module", "image": "image",
                 "img": "image", "rnn": "rnn", "contrib": "contrib", "model": "model",
                 "runtime": "runtime", "compat": "compat", "test_utils": "test_utils"}


def _first_use(name):
    import importlib
    if name == "install_as_mxnet":
        return importlib.import_module(".compat", __name__).install_as_mxnet
    return importlib.import_module("." + _ON_FIRST_USE[name], __name__)


util.serve_on_first_use(globals(), {*_ON_FIRST_USE, "install_as_mxnet"}, _first_use)

__all__ = ["base", "context", "engine", "op", "ndarray", "nd", "autograd", "random", "symbol",
           "sym", "name", "attribute", "AttrScope", "executor", "registry", "operator",
           "initializer", "init", "lr_scheduler", "optimizer", "metric", "callback", "monitor",
           "mon", "model", "recordio", "image", "img", "rnn", "io", "kvstore", "kv", "viz", "gluon",
           "module", "mod", "profiler", "test_utils", "MXNetError", "Context", "cpu", "gpu",
           "cpu_pinned", "current_context", "num_gpus", "compat", "install_as_mxnet", "util",
           "is_np_shape", "np_shape", "set_np_shape", "use_np_shape",
           "__version__"]
