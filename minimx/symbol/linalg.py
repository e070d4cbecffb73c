"""``sym.linalg``: the ``_linalg_<name>`` operators as Symbol functions.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/symbol/linalg.py``.
"""
__all__ = []
