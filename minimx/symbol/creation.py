"""``sym.zeros``/``ones``/``full``/``arange``: graph nodes that make arrays from parameters.

Lesson: 07-symbolic-programming.  With no variable upstream, the executor folds them into
constants when it plans the graph.
"""
from ..base import normalize_dtype
from ..op import get_op
from .symbol import compose_op

__all__ = ["zeros", "ones", "full", "arange"]


def _make(op_name, name, **params):
    """A creation node; attributes like ``__layout__`` are kept as node attributes (MXNet)."""
    attr = {key: str(params.pop(key)) for key in list(params) if key.startswith("__")}
    return compose_op(get_op(op_name), (), dict(params, name=name, attr=attr), op_name)


def zeros(shape, dtype=None, name=None, **kwargs):
    """A node producing zeros of ``shape``."""
    return _make("_zeros", name, shape=shape, dtype=normalize_dtype(dtype).name, **kwargs)


def ones(shape, dtype=None, name=None, **kwargs):
    """A node producing ones of ``shape``."""
    return _make("_ones", name, shape=shape, dtype=normalize_dtype(dtype).name, **kwargs)


def full(shape, val, dtype=None, name=None, **kwargs):
    """A node producing ``val`` everywhere."""
    return _make("_full", name, shape=shape, value=val, dtype=normalize_dtype(dtype).name,
                 **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """A node producing ``[start, stop)`` in steps of ``step``."""
    return _make("_arange", name, start=start, stop=stop, step=step, repeat=repeat,
                 infer_range=infer_range, dtype=normalize_dtype(dtype).name)
