"""Every operator of minimx, one declaration each, grouped in families.

Lesson: 06-symbol.  ``list_ops()`` returns them all; the frontends
(``minimx.ndarray``, ``minimx.symbol``) are generated from this registry.
"""
from . import arithmetic, creation, getitem  # noqa: F401  (each import registers a family)
from .registry import OPS, OpDef, Param, TestHints, get_op, list_ops, register_op

__all__ = ["OPS", "OpDef", "Param", "TestHints", "get_op", "list_ops", "register_op"]
