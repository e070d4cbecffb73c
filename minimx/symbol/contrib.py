"""``sym.contrib``: the ``_contrib_<name>`` operators as Symbol functions.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/symbol/contrib.py``; generated from
the same declarations as ``nd.contrib``.
"""
from .contrib_control_flow import cond, foreach, while_loop

__all__ = ["rand_zipfian", "foreach", "while_loop", "cond"]


def rand_zipfian(true_classes, num_sampled, range_max):
    """``nd.contrib.rand_zipfian`` as a graph: three Symbols (the sampled classes and the
    expected counts of the true and of the sampled classes)."""
    from .. import symbol
    from ..ndarray.contrib import rand_zipfian as build
    return build(true_classes, num_sampled, range_max, F=symbol)
