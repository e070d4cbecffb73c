"""``autograd.get_symbol(y)``: the graph autograd recorded for ``y``, as a Symbol.

Lesson: 07-symbolic-programming.  Mirrors ``MXAutogradGetSymbol``: each recorded operator
call becomes a node with the call's parameters, and each array the recording did not
compute (a leaf with ``attach_grad``, or a constant) becomes a variable ``var0``,
``var1``, ..., and each operator call ``node_<n>``, numbered when recorded (the n-th call
recorded in the process), as MXNet names them.  The tape sits below the Symbol layer, so this module puts the function
into ``minimx.autograd`` (as ``gluon/cached_op.py`` does with ``nd.CachedOp``).
"""
from .. import autograd
from ..base import MXNetError
from ..op.params import Param
from ..op.registry import OpDef
from ..tape.nodes import FunctionNode, OpNode, VariableNode
from .graph import Node
from .symbol import Symbol, _attr_string

__all__ = ["get_symbol"]


class RecordedFunction(OpDef):
    """The node of a recorded ``autograd.Function`` call, named as MXNet names it
    (``_CustomFunction``): it shows where the Python code ran and what it read, but the
    graph cannot run it -- the Python object is not part of a graph, in MXNet 1.9.1 (its
    ``eval`` fails) as here.  Not in the registry: only ``get_symbol`` makes it."""
    name = "_CustomFunction"
    variadic = True
    differentiable = False
    params = {"num_outputs": Param(int, default=1, doc="the function's outputs")}

    def list_outputs(self):
        return tuple(f"output{i}" if self.num_outputs > 1 else "output"
                     for i in range(self.num_outputs))

    def infer_shape(self, *shapes):
        raise self.shape_error("a recorded autograd.Function is Python code, not a graph "
                               "operator: this Symbol describes the recording and cannot "
                               "run (neither can MXNet 1.9.1's)")


def get_symbol(x):
    """The recorded computation of ``x`` (an NDArray computed under ``autograd.record()``)."""
    entry = getattr(x, "_autograd", None)
    if entry is None:
        raise MXNetError("get_symbol: this array was not computed under autograd.record()")
    built, counts = {}, {}

    def fresh_name(stem):
        counts[stem] = counts.get(stem, -1) + 1
        return f"{stem}{counts[stem]}"

    def inputs_of(tape_node):
        return [(Node(None, fresh_name("var")), 0) if item is None else
                (node_of(item[0]), item[1]) for item in tape_node.inputs]

    def node_of(tape_node):
        if id(tape_node) in built:
            return built[id(tape_node)]
        if isinstance(tape_node, VariableNode):
            node = Node(None, fresh_name("var"))
        elif isinstance(tape_node, OpNode):
            op = tape_node.op
            attrs = {key: _attr_string(value) for key, value in op.param_values().items()}
            inputs = inputs_of(tape_node)
            node = Node(type(op), f"node_{tape_node.serial}", attrs, inputs)
        elif isinstance(tape_node, FunctionNode):
            inputs = inputs_of(tape_node)
            node = Node(RecordedFunction, f"node_{tape_node.serial}", {}, inputs)
            node._instance = RecordedFunction(num_outputs=tape_node.num_outputs())
        else:
            raise MXNetError(f"get_symbol: a recorded {tape_node.name} (a gradient link) "
                             f"has no Symbol form")
        built[id(tape_node)] = node
        return node

    return Symbol([(node_of(entry[0]), entry[1])])


autograd.get_symbol = get_symbol
if "get_symbol" not in autograd.__all__:
    autograd.__all__.append("get_symbol")
