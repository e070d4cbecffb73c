"""``minimx.symbol`` (``sym``): build a graph first, run it later with an Executor.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/symbol/``.  Every ``sym.<op>`` is
generated from the same operator declaration as ``nd.<op>``.
"""
import types

from ..op.registry import install_generated_functions
from . import contrib, image, linalg, random, register, sparse
from . import from_tape  # noqa: F401  (puts autograd.get_symbol in place)
from .arithmetic import hypot, maximum, minimum, pow, power
from .creation import arange, full, ones, zeros
from .functions import histogram, split_v2
from .symbol import Group, Symbol, Variable, load, load_json, var

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "zeros", "ones", "full",
           "arange", "pow", "power", "maximum", "minimum", "hypot", "_internal", "op", "random",
           "contrib", "linalg", "image", "split_v2", "histogram", "np", "npx"]

_internal = types.ModuleType("minimx.symbol._internal", "Operators whose names start with _.")
op = types.ModuleType("minimx.symbol.op", "Every generated operator function.")

# one function per operator (and alias); ``method = True`` ones become Symbol methods
install_generated_functions(globals(), __all__, op, _internal, Symbol, register,
                            {"contrib": contrib, "linalg": linalg, "image": image})

# mx.sym.np / mx.sym.npx: the NumPy frontend's functions on np Symbols (after the operators)
from .numpy import np, npx  # noqa: E402
