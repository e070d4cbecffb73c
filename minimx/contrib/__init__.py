"""``mx.contrib``: the parts of MXNet kept apart as contributions.

Lesson: 11-data.  Mirrors ``python/mxnet/contrib/``.  ``contrib.ndarray`` (``contrib.nd``)
and ``contrib.symbol`` (``contrib.sym``) are the very modules ``nd.contrib`` and
``sym.contrib`` (the ``_contrib_`` operators: detection boxes, ROI pooling ...);
``contrib.text`` builds vocabularies and reads pretrained token embeddings that are on disk.
ONNX export, quantization, TensorRT and TensorBoard are not part of minimx.
"""
import sys

from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol
from . import amp, io, text

nd = ndarray
sym = symbol
# ``import mxnet.contrib.ndarray`` finds the same module objects
sys.modules[__name__ + ".ndarray"] = ndarray
sys.modules[__name__ + ".symbol"] = symbol

__all__ = ["ndarray", "nd", "symbol", "sym", "text", "io"]
