"""Drawing a Symbol's graph with Graphviz: ``mx.viz.plot_network``.

Lesson: 07-symbolic-programming.  Mirrors ``plot_network`` in ``python/mxnet/visualization.py``.
Each operator node becomes a box labelled with its key parameters and coloured
by family, each data input an oval; each edge points from a node back to one
of its inputs and, when input shapes are given, shows the shape flowing along
it without the batch axis.  Weights and biases are hidden by default.
"""
import contextlib
import functools
import warnings

from ..base import MXNetError
from ..op.registry import OPS
from ..symbol import Symbol
from ..symbol.graph import topo_order
from .graph_shapes import entry_dtypes, entry_shapes, without_batch_axis

__all__ = ["plot_network", "GraphvizMissingError", "op_color", "node_label", "INPUT_COLOR",
           "OTHER_COLOR", "FAMILY_COLORS"]

_INSTALL_PROGRAMS = ("install the Graphviz programs: `apt-get install graphviz` (Debian/Ubuntu), "
                     "`brew install graphviz` (macOS) or `conda install graphviz`")

_NODE_STYLE = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
               "style": "filled"}
INPUT_COLOR = "#8dd3c7"      # a data input (variable)
OTHER_COLOR = "#fccde5"      # an operator of no family below
FAMILY_COLORS = {            # by the ``family`` an operator declares (op/registry.py)
    "layer": "#fb8072",          # layers with weights: Convolution, FullyConnected
    "activation": "#ffffb3",     # nonlinearities
    "normalization": "#bebada",
    "pooling": "#80b1d3",
    "shape": "#fdb462",          # moving data around: Concat, Flatten, Reshape
}
# variables with these endings are learned parameters or statistics, hidden by default
_WEIGHT_ENDINGS = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                   "_running_var", "_running_mean")


class GraphvizMissingError(MXNetError, ImportError):
    """The ``graphviz`` Python package, or the Graphviz programs, are not installed."""


def op_color(op_name):
    """The fill colour of an operator's box: by the family its declaration names
    (``"null"``, a variable, gets the input colour).  The symbol-graph view uses it too."""
    if op_name in (None, "null"):
        return INPUT_COLOR
    op_cls = OPS.get(op_name)
    return FAMILY_COLORS.get(getattr(op_cls, "family", None), OTHER_COLOR)


def node_label(node):
    """The caption of a graph node: its operator's ``plot_label``, a Custom op's
    ``op_type``, else the node's name."""
    if node.is_variable:
        return node.name
    if node.op.name == "Custom":
        return node.attrs.get("op_type", node.name)
    return node.op.plot_label(node.attrs) or node.name


def _node_look(node, node_attrs):
    """(label, Graphviz attributes) of one node."""
    style = {**_NODE_STYLE, **node_attrs}
    if node.is_variable:
        return node.name, {**style, "shape": "oval", "fillcolor": INPUT_COLOR}
    return node_label(node), {**style, "fillcolor": op_color(node.op.name)}


def _edge_label(entry, shapes, dtypes):
    label = without_batch_axis(shapes[entry]) if shapes is not None else ""
    if dtypes is not None:
        label += f"({dtypes[entry].name})"
    return label


def _warn_repeated_names(order):
    seen, repeated = set(), []
    for node in order:
        if node.name in seen and node.name not in repeated:
            repeated.append(node.name)
        seen.add(node.name)
    if repeated:
        warnings.warn("plot_network: several nodes share a name, so the drawing may join them "
                      f"(and show a cycle): {', '.join(repeated)}", RuntimeWarning, stacklevel=3)


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None,
                 node_attrs={}, hide_weights=True):  # noqa: B006  (MXNet's signature)
    """A Graphviz ``Digraph`` of the graph that computes ``symbol``.

    Parameters
    ----------
    symbol : Symbol
    title : str
        The graph's name (and the file name ``render()`` writes).
    save_format : str
        The format ``render()`` writes: ``pdf``, ``png``, ``svg`` ...
    shape, dtype : dict, optional
        Input name -> shape / dtype; the edges then show shapes (without the batch
        axis) and dtypes.
    node_attrs : dict
        Graphviz attributes for every node, e.g. ``{"fixedsize": "false"}``.
    hide_weights : bool
        Leave out inputs named ``*_weight``, ``*_bias``, ``*_gamma``, ``*_beta`` and the
        moving statistics.

    Examples
    --------
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=8, name='fc')
    >>> mx.viz.plot_network(net, shape={'data': (2, 4)})  # doctest: +SKIP
    """
    graphviz = _import_graphviz()
    if not isinstance(symbol, Symbol):
        raise TypeError(f"plot_network: symbol must be a Symbol, got {type(symbol).__name__}")
    shapes = entry_shapes(symbol, shape, "plot_network") if shape is not None else None
    dtypes = entry_dtypes(symbol, dtype, "plot_network") if dtype is not None else None
    order = topo_order(symbol._entries)
    _warn_repeated_names(order)
    dot = _network_class(graphviz)(name=title, format=save_format)
    hidden = set()
    for node in order:
        if node.is_variable and node.name.endswith(_WEIGHT_ENDINGS):
            if hide_weights:
                hidden.add(node.name)
            continue      # shown weights get no box of their own: Graphviz draws a plain oval
        label, attributes = _node_look(node, node_attrs)
        dot.node(name=node.name, label=label, **attributes)
    for node in order:
        for entry in node.inputs:
            if entry[0].name not in hidden:
                dot.edge(tail_name=node.name, head_name=entry[0].name, dir="back",
                         arrowtail="open", label=_edge_label(entry, shapes, dtypes))
    return dot


def _import_graphviz():
    try:
        import graphviz
    except ImportError:
        raise GraphvizMissingError(
            "plot_network needs the graphviz Python package: pip install graphviz "
            f"(and, to render the drawing, {_INSTALL_PROGRAMS})") from None
    return graphviz


@functools.lru_cache(maxsize=None)
def _network_class(graphviz):
    """A ``graphviz.Digraph`` whose rendering says how to install Graphviz when it is missing.

    Building the graph and reading ``.source`` need only the Python package;
    ``render``, ``view``, ``pipe`` and the notebook display run the ``dot`` program.
    """
    class Network(graphviz.Digraph):
        """A Graphviz Digraph of a Symbol (see ``mx.viz.plot_network``)."""

        def render(self, *args, **kwargs):
            with _explain_missing_programs(graphviz):
                return super().render(*args, **kwargs)

        def pipe(self, *args, **kwargs):
            with _explain_missing_programs(graphviz):
                return super().pipe(*args, **kwargs)

    return Network


@contextlib.contextmanager
def _explain_missing_programs(graphviz):
    try:
        yield
    except getattr(graphviz, "ExecutableNotFound", ()) as error:
        raise GraphvizMissingError(
            f"rendering the network needs the Graphviz programs ({error}); "
            f"{_INSTALL_PROGRAMS}.  The graph's text is in .source") from error
