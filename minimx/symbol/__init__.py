"""``minimx.symbol`` (``sym``): build a graph first, run it later with an Executor.

Lesson: 06-symbolic-programming.  Mirrors ``python/mxnet/symbol/``.  Every ``sym.<op>`` is
generated from the same operator declaration as ``nd.<op>``.
"""
import types

from ..op import list_ops
from . import random, register
from .arithmetic import hypot, maximum, minimum, pow, power
from .creation import arange, full, ones, zeros
from .symbol import Group, Symbol, Variable, load, load_json, var

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "zeros", "ones", "full",
           "arange", "pow", "power", "maximum", "minimum", "hypot", "_internal", "op", "random"]

_internal = types.ModuleType("minimx.symbol._internal", "Operators whose names start with _.")
op = types.ModuleType("minimx.symbol.op", "Every generated operator function.")


def _install_generated_functions():
    """One function per operator (and alias); ``method = True`` ones become Symbol methods."""
    for op_cls in list_ops():
        for public_name in (op_cls.name, *op_cls.aliases):
            function = register.make_function(op_cls, public_name)
            setattr(op, public_name, function)
            if public_name.startswith("_"):
                setattr(_internal, public_name, function)
            elif public_name not in globals():
                globals()[public_name] = function
                __all__.append(public_name)
        if op_cls.method:
            method_name = op_cls.name if op_cls.method is True else op_cls.method
            if not hasattr(Symbol, method_name):
                setattr(Symbol, method_name, register.make_method(getattr(op, op_cls.name)))


_install_generated_functions()
