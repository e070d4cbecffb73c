"""Shapes and dtypes of every value in a Symbol's graph, for the drawings and the summary.

Lesson: 07-symbolic-programming.  Mirrors the ``get_internals().infer_shape(**shape)`` step
of ``python/mxnet/visualization.py``: the user gives the input shapes, the
graph's inference passes (``symbol/inference.py``) give every other shape.
"""
from ..base import MXNetError
from ..symbol import inference
from ..symbol.graph import topo_order

__all__ = ["entry_shapes", "entry_dtypes", "without_batch_axis"]


def _check_names(symbol, given, caller):
    names = set(symbol.list_inputs())
    for key in given:
        if key not in names:
            raise MXNetError(f"{caller}: the symbol has no input {key!r}; its inputs are "
                             f"{sorted(names)}")


def _first_unknown(entries, values):
    """The MXNet name of the first value of the graph whose shape/dtype is still unknown."""
    for node in topo_order(entries):
        for index in range(node.num_visible()):
            if values.get((node, index)) is None:
                return node.output_name(index)
    return None


def entry_shapes(symbol, shape, caller, complete=True):
    """{(node, index): shape or None} from the input shapes in the dict ``shape``.

    With ``complete``, every shape must be known: a ``ValueError`` (MXNet's
    type) names the first value that the given shapes do not determine.
    """
    given = dict(shape or {})
    _check_names(symbol, given, caller)
    _, shapes = inference.infer_shapes(symbol._entries, given)
    missing = _first_unknown(symbol._entries, shapes) if complete else None
    if missing is not None:
        raise ValueError(f"{caller}: input shape is incomplete: the shape of {missing!r} "
                         f"does not follow from {given}")
    return shapes


def entry_dtypes(symbol, dtype, caller):
    """{(node, index): numpy dtype} from the input dtypes in the dict ``dtype`` (all needed)."""
    given = dict(dtype)
    _check_names(symbol, given, caller)
    _, dtypes = inference.infer_types(symbol._entries, given)
    missing = _first_unknown(symbol._entries, dtypes)
    if missing is not None:
        raise ValueError(f"{caller}: input type is incomplete: the dtype of {missing!r} "
                         f"does not follow from {given}")
    return dtypes


def without_batch_axis(shape):
    """``"3x8x8"`` for (N, 3, 8, 8): the shape as the drawings print it (``""`` if unknown)."""
    if shape is None:
        return ""
    return "x".join(str(size) for size in shape[1:])
