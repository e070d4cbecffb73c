"""``sym.contrib``: the ``_contrib_<name>`` operators as Symbol functions.

Lesson: 06-symbolic-programming.  Mirrors ``python/mxnet/symbol/contrib.py``; generated from
the same declarations as ``nd.contrib``.
"""
__all__ = []
