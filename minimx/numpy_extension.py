"""``mx.npx``: the NumPy extension operators of MXNet -- not part of minimx.

Lesson: 02-ndarray-and-context.  MXNet 1.6+ added ``mx.np`` and ``mx.npx`` beside
``mx.nd``.  minimx implements ``mx.nd`` (NDArray, and NumPy shape semantics through
``mx.np_shape``), not that second interface.  Importing ``mxnet.numpy_extension`` works, so that
code that mentions it loads; using any of its names raises an error saying so.
"""
from .base import MXNetError


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise MXNetError(f"mx.npx.{name}: the NumPy-compatible interface mx.np is not part of "
                     f"minimx; use mx.nd (with mx.np_shape(True) for NumPy shapes)")
