"""``autograd.get_symbol(y)``: the graph autograd recorded for ``y``, as a Symbol.

Lesson: 07-symbolic-programming.  Mirrors ``MXAutogradGetSymbol``: each recorded operator
call becomes a node with the call's parameters, and each array the recording did not
compute (a leaf with ``attach_grad``, or a constant) becomes a variable ``var0``,
``var1``, ... .  The tape sits below the Symbol layer, so this module puts the function
into ``minimx.autograd`` (as ``gluon/cached_op.py`` does with ``nd.CachedOp``).
"""
from .. import autograd
from ..base import MXNetError
from ..tape.nodes import OpNode, VariableNode
from .graph import Node
from .symbol import Symbol, _attr_string

__all__ = ["get_symbol"]


def get_symbol(x):
    """The recorded computation of ``x`` (an NDArray computed under ``autograd.record()``)."""
    entry = getattr(x, "_autograd", None)
    if entry is None:
        raise MXNetError("get_symbol: this array was not computed under autograd.record()")
    built, counts = {}, {}

    def fresh_name(stem):
        counts[stem] = counts.get(stem, -1) + 1
        return f"{stem}{counts[stem]}"

    def node_of(tape_node):
        if id(tape_node) in built:
            return built[id(tape_node)]
        if isinstance(tape_node, VariableNode):
            node = Node(None, fresh_name("var"))
        elif isinstance(tape_node, OpNode):
            op = tape_node.op
            attrs = {key: _attr_string(value) for key, value in op.param_values().items()}
            inputs = [(Node(None, fresh_name("var")), 0) if item is None else
                      (node_of(item[0]), item[1]) for item in tape_node.inputs]
            node = Node(type(op), fresh_name(op.name.lower()), attrs, inputs)
        else:
            raise MXNetError(f"get_symbol: a recorded {tape_node.name} (a Python "
                             f"autograd.Function or a gradient link) has no Symbol form")
        built[id(tape_node)] = node
        return node

    return Symbol([(node_of(entry[0]), entry[1])])


autograd.get_symbol = get_symbol
if "get_symbol" not in autograd.__all__:
    autograd.__all__.append("get_symbol")
