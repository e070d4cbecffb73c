"""A Symbol as a table of layers: ``mx.viz.print_summary``.

Lesson: 07-symbolic-programming.  Mirrors ``print_summary`` in ``python/mxnet/visualization.py``.
One row per operator node (and one for the data input): its output shape
without the batch axis, how many learned parameters it owns, and the layers
it reads from.  Parameter counts come from the inferred weight shapes.
"""
import math

from ..symbol import Symbol
from ..symbol.graph import topo_order
from .graph_shapes import entry_shapes, without_batch_axis

__all__ = ["print_summary"]

# operator inputs that hold learned parameters (the others are data, labels or statistics)
PARAMETER_INPUTS = ("weight", "bias", "gamma", "beta", "parameters")
_HEADER = ("Layer (type)", "Output Shape", "Param #", "Previous Layer")


def parameter_count(node, shapes):
    """Elements in the node's learned-parameter inputs (0 while their shapes are unknown)."""
    total = 0
    for name, entry in zip(node.input_names(), node.inputs):
        shape = shapes.get(entry)
        if name in PARAMETER_INPUTS and entry[0].is_variable and shape is not None:
            total += math.prod(shape)
    return int(total)


def _layers(symbol, shapes):
    """(name, op name, output shape, parameter count, previous layers) per row.

    As in MXNet, the graph's first variable (the data) is a row of its own and
    counts as a previous layer; the other variables (weights, labels) do not.
    """
    order = topo_order(symbol._entries)
    data = order[0] if order[0].is_variable else None
    rows = []
    for node in order:
        if node.is_variable and node is not data:
            continue
        shown = node.num_visible() == 1       # a node with several outputs has no one shape
        previous = [source.name for source, _ in node.inputs
                    if not source.is_variable or source is data]
        rows.append((node.name, node.op_name(),
                     without_batch_axis(shapes.get((node, 0))) if shown else "",
                     0 if node.is_variable else parameter_count(node, shapes), previous))
    return rows


def _format_row(fields, stops):
    """Each field starts where the previous one stops; too-long text is cut at its stop."""
    line = ""
    for field, stop in zip(fields, stops):
        line = (line + str(field))[:stop].ljust(stop)
    return line


def print_summary(symbol, shape=None, line_length=120,
                  positions=[.44, .64, .74, 1.]):  # noqa: B006  (MXNet's signature)
    """Print the layers of ``symbol`` as a table, with the total number of parameters.

    Parameters
    ----------
    symbol : Symbol
    shape : dict, optional
        Input name -> shape.  Without it the shapes (and the parameter counts they
        determine) stay empty, unless the variables carry their own shapes.
    line_length : int
        Width of the table in characters.
    positions : list of float or int
        Where each column stops: fractions of ``line_length``, or character positions.

    Examples
    --------
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc')
    >>> mx.viz.print_summary(net, shape={'data': (1, 4)}, line_length=64,
    ...                      positions=[24, 38, 48, 64])  # doctest: +NORMALIZE_WHITESPACE
    ________________________________________________________________
    Layer (type)            Output Shape  Param #   Previous Layer
    ================================================================
    data(null)              4             0
    ________________________________________________________________
    fc(FullyConnected)      3             15        data
    ================================================================
    Total params: 15
    ________________________________________________________________
    """
    if not isinstance(symbol, Symbol):
        raise TypeError(f"print_summary: symbol must be a Symbol, got {type(symbol).__name__}")
    shapes = entry_shapes(symbol, shape, "print_summary", complete=shape is not None)
    stops = [int(line_length * p) for p in positions] if positions[-1] <= 1 else positions
    print("_" * line_length)
    print(_format_row(_HEADER, stops))
    print("=" * line_length)
    rows = _layers(symbol, shapes)
    for position, (name, op_name, out_shape, count, previous) in enumerate(rows):
        first = previous[0] if previous else ""
        print(_format_row((f"{name}({op_name})", out_shape, count, first), stops))
        for other in previous[1:]:
            print(_format_row(("", "", "", other), stops))
        print(("=" if position == len(rows) - 1 else "_") * line_length)
    print(f"Total params: {sum(row[3] for row in rows)}")
    print("_" * line_length)
