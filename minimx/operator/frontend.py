"""``nd.Custom`` and ``sym.Custom``: calling a registered custom operator.

Lesson: 04-autograd, 07-symbolic-programming.  Mirrors the ``Custom`` functions MXNet
generates in ``mx.nd`` and ``mx.sym``.  They are written here rather than
generated from the registry because a Custom call's inputs are named by its
Prop, which only the ``op_type`` argument picks: inputs come by position (the
Prop's arguments, then its auxiliary states) or by those names, and every
other keyword argument goes to the Prop as a string.
"""
import inspect

from .. import attribute, name as naming
from ..ndarray import NDArray
from ..ndarray.dispatch import invoke
from ..symbol.graph import Node, hide_keys
from ..symbol.symbol import Symbol
from .custom import Custom

__all__ = ["ndarray_custom", "symbol_custom"]


def ndarray_custom(*data, op_type=None, out=None, name=None, ctx=None, **kwargs):
    """Run a user-written operator: the ``mx.operator.CustomOpProp`` registered as ``op_type``.

    Computes on NDArrays, recorded by autograd like any operator.

    Parameters
    ----------
    *data : NDArray
        The inputs: the Prop's arguments, then its auxiliary states (also by name).
    op_type : str
        The name given to ``@mx.operator.register``.
    **kwargs
        Passed to the Prop's ``__init__`` as strings.

    Returns
    -------
    NDArray or list of NDArrays
    """
    named = {key: kwargs.pop(key) for key in list(kwargs) if isinstance(kwargs[key], NDArray)}
    op = Custom.create(op_type=op_type, **kwargs)
    inputs = _match_inputs(op, data, named)
    missing = [key for key, value in zip(op.list_inputs(), inputs) if value is None]
    if missing:
        raise op.param_error(f"input(s) {missing} missing; the inputs are "
                             f"{list(op.list_inputs())}")
    return invoke(op, inputs, out=out, ctx=ctx)


def symbol_custom(*data, op_type=None, name=None, attr=None, **kwargs):
    """A Symbol node running a user-written operator (``op='Custom'`` in the JSON).

    Inputs not given become variables named ``<node name>_<input name>``, as
    MXNet does for weights and labels.  Returns a Symbol with one output per
    name in the Prop's ``list_outputs``.
    """
    named = {key: kwargs.pop(key) for key in list(kwargs) if isinstance(kwargs[key], Symbol)}
    attrs = hide_keys(attribute.current().get(attr))
    attrs.update({key: str(value) for key, value in kwargs.items()})
    if op_type is not None:
        attrs["op_type"] = str(op_type)
    # Built from the attributes exactly as a node loaded from JSON is (Node.instance).
    op = Custom.create(**{key: value for key, value in attrs.items() if key in Custom.params})
    node_name = naming.current().get(name, "custom")
    entries = []
    for input_name, given in zip(op.list_inputs(), _match_inputs(op, data, named)):
        if given is None:
            given = Symbol([(Node(None, f"{node_name}_{input_name}", attrs), 0)])
        if len(given) != 1:
            raise op.param_error(f"input '{input_name}' must be a single-output Symbol, got "
                                 f"{len(given)} outputs")
        entries.append(given._entries[0])
    node = Node(Custom, node_name, attrs, entries)
    node._instance = op
    return Symbol([(node, index) for index in range(op.num_visible())])


def _match_inputs(op, data, named):
    """The inputs in the Prop's order (None where not given), from positions and names."""
    names = op.list_inputs()
    if len(data) > len(names):
        raise op.param_error(f"takes {len(names)} input(s) {list(names)}, but {len(data)} "
                             f"were given")
    given = dict(zip(names, data))
    for key, value in named.items():
        if key not in names:
            raise op.param_error(f"no input named {key!r}; the inputs are {list(names)}")
        if key in given:
            raise op.param_error(f"input {key!r} given both by position and by name")
        given[key] = value
    return [given.get(key) for key in names]


def _signature(*keywords):
    kind = inspect.Parameter
    return inspect.Signature(
        [kind("data", kind.VAR_POSITIONAL), kind("op_type", kind.KEYWORD_ONLY, default=None)]
        + [kind(key, kind.KEYWORD_ONLY, default=None) for key in keywords]
        + [kind("kwargs", kind.VAR_KEYWORD)])


def _finish(function, module, keywords):
    function.__name__ = function.__qualname__ = "Custom"
    function.__module__ = module
    function.__signature__ = _signature(*keywords)
    function.op = Custom
    return function


_finish(ndarray_custom, "minimx.ndarray", ("out", "name", "ctx"))
_finish(symbol_custom, "minimx.symbol", ("name", "attr"))
