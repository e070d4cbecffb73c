"""``sym`` functions MXNet writes in Python over its operators: ``split_v2`` and
``histogram``, the graph twins of ``nd.split_v2`` and ``nd.histogram``.

Lesson: 07-symbolic-programming.  Mirrors the helpers of the same names in
``python/mxnet/symbol/symbol.py``.  The rule that turns numpy-style arguments into
operator parameters lives on the operator (``params_for``), so both front ends share it.
"""
from ..op.registry import get_op
from .symbol import compose_op

__all__ = ["split_v2", "histogram"]


def _compose(op_name, args, kwargs):
    return compose_op(get_op(op_name), args, kwargs, op_name.lower())


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False, name=None):
    """The parts of ``ary`` along ``axis`` as one Symbol with an output per part."""
    params = get_op("_split_v2").params_for(indices_or_sections)
    return _compose("_split_v2", (ary,), dict(params, axis=axis, squeeze_axis=squeeze_axis,
                                             name=name))


def histogram(a, bins=10, range=None, name=None):
    """A Symbol of two outputs, the counts and the edges of ``a``'s histogram."""
    params, extra = get_op("_histogram").params_for(bins, range)
    return _compose("_histogram", (a, *extra), dict(params, name=name))
