"""``sym.contrib.foreach``, ``while_loop``, ``cond``: one graph node holding its bodies.

Lesson: 10-hybridize.  Mirrors the symbolic half of MXNet's control flow.  The body, a
Python function, is called *once*, on placeholder variables, inside an ``AttrScope`` that
marks every node it creates with ``__subgraph_name__``.  Those marked nodes are copied into
the body graph; whatever the body reads from outside (a parameter, a value computed before
the loop) is *cut*: the body gets a variable in its place, and the outside value becomes an
input of the loop node.  The loop node (``op/control_flow.py``) runs the body per step.
"""
from .. import attribute
from ..attribute import AttrScope
from ..ndarray.contrib_control_flow import flatten, regroup
from .graph import Node, topo_order
from .symbol import Symbol, compose_op

__all__ = ["foreach", "while_loop", "cond"]


def unique_subgraph_name(name):
    """``name`` numbered per use (``foreach0``, ``foreach1``), inside an enclosing body
    prefixed by its name (``foreach0$foreach0``), counted in ``AttrScope._subgraph_names``
    as MXNet's."""
    outer = attribute.current().get({}).get("__subgraph_name__", "")
    if outer:
        name = f"{outer}${name}"
    count = AttrScope._subgraph_names[name]
    AttrScope._subgraph_names[name] = count + 1
    return f"{name}{count}"


def _placeholders(symbols, fmt):
    """Body variables standing for ``symbols``, named ``<node name>-<output index>`` as
    MXNet's."""
    made = [Symbol([(Node(None, f"{s._entries[0][0].name}-{s._entries[0][1]}",
                          attribute.current().get({})), 0)]) for s in symbols]
    return made, regroup(list(made), fmt)[0]


class _Cut:
    """The body graph copied out of the traced nodes marked ``name``; every value read from
    outside becomes a body variable, and ``outside`` lists (body variable, outer entry)."""

    def __init__(self, name):
        self.name = name
        self.copies = {}
        self.outside = {}

    def inside(self, node):
        return node.attrs.get("__subgraph_name__") == self.name

    def entry(self, entry):
        node, index = entry
        if not self.inside(node):
            key = (id(node), index)
            if key not in self.outside:
                label = node.name if node.is_variable else node.output_name(index)
                self.outside[key] = (Node(None, label, {}), entry)
            return self.outside[key][0], 0
        clone = self.copies.get(id(node))
        if clone is None:
            clone = self.copies[id(node)] = Node(node.op, node.name, node.attrs, [],
                                                  node.subgraphs)
            clone.inputs = [self.entry(source) for source in node.inputs]
        return clone, index


def trace_body(name, func, inputs, input_format):
    """Call ``func`` on placeholders for the flat Symbols ``inputs`` (grouped as
    ``input_format``; it returns the body's flat output Symbols) inside a scope marking
    its nodes ``name``.  Returns the body graph's entries and, per body input in graph
    order, its source: the position of the placeholder among ``inputs``, or the outer
    Symbol the loop node must read (a cut value, or a copy of a variable the body made)."""
    with AttrScope(__subgraph_name__=name):
        placeholders, grouped = _placeholders(inputs, input_format)
        flat = []
        for symbol in func(grouped):
            node, _ = symbol._entries[0]
            if node.is_variable or node.attrs.get("__subgraph_name__") != name or \
                    any(symbol._entries[0] == kept._entries[0] for kept in flat):
                from . import identity
                symbol = identity(symbol)
            flat.append(symbol)
    cut = _Cut(name)
    entries = [cut.entry(symbol._entries[0]) for symbol in flat]
    by_placeholder = {id(cut.copies.get(id(p._entries[0][0]))): k
                      for k, p in enumerate(placeholders)}
    outer = {id(body_var): entry for body_var, entry in cut.outside.values()}
    sources = []
    for node in topo_order(entries):
        if not node.is_variable:
            continue
        if id(node) in by_placeholder:
            sources.append(by_placeholder[id(node)])
        elif id(node) in outer:
            sources.append(Symbol([outer[id(node)]]))
        else:      # a variable the body made: the loop node reads a copy of it
            sources.append(Symbol([(Node(None, node.name, node.attrs), 0)]))
    return entries, sources


def _placeholder_positions(sources):
    """{placeholder number: its position among the body's inputs}."""
    return {source: position for position, source in enumerate(sources)
            if isinstance(source, int)}


def _union_inputs(inputs, *bodies_sources, names=None):
    """The loop node's inputs and each body's input locations among them.  As MXNet's, a
    loop variable several bodies read is one input; every cut value is an input of its
    own, even one the same as a loop variable's initial value (the loop changes the
    variable, never the cut value) -- except, with ``names`` (each body's input names,
    ``cond``'s rule), a body input named as an input taken already is that input."""
    values, placeholder_input, locations = [], {}, []
    for body, sources in enumerate(bodies_sources):
        body_locations = []
        for position, source in enumerate(sources):
            if not isinstance(source, int):
                taken = [k for k, value in enumerate(values)
                         if names is not None and value.name == names[body][position]]
                body_locations.append(taken[0] if taken else len(values))
                if not taken:
                    values.append(source)
                continue
            if source not in placeholder_input:
                placeholder_input[source] = len(values)
                values.append(inputs[source])
            body_locations.append(placeholder_input[source])
        locations.append(body_locations)
    return values, locations


def _check(symbols, what):
    if not all(isinstance(s, Symbol) for s in symbols):
        raise AssertionError(f"{what} should be a symbol or a nested list of symbols")


def foreach(body, data, init_states, name="foreach"):
    """The symbolic ``foreach``: ``out, states = body(data[i], states)`` over axis 0, as one
    ``_foreach`` node holding ``body`` as its subgraph."""
    from ..op.control_flow import Foreach
    flat_data, data_format = flatten(data, "foreach input", Symbol)
    _check(flat_data, "data")
    flat_states, state_format = flatten(init_states, "foreach states", Symbol)
    _check(flat_states, "init_states")
    name = unique_subgraph_name(name)
    shape = {}

    def traced(grouped):
        in_data, in_states = grouped
        out, states = body(in_data, in_states)
        flat_out, out_format = flatten(out, "foreach output", Symbol)
        flat_new, new_format = flatten(states, "foreach loop_vars", Symbol)
        if new_format != state_format:
            raise AssertionError("foreach: the input and output loop_vars have different "
                                 "format")
        shape.update(out_format=out_format, num_out=len(flat_out), num_states=len(flat_new))
        return flat_out + flat_new

    entries, sources = trace_body(name, traced, flat_data + flat_states,
                                  [data_format, state_format])
    located = _placeholder_positions(sources)
    if any(k not in located for k in range(len(flat_data))):
        raise AssertionError("foreach: the data arrays have to be used in the loop body")
    if any(k + len(flat_data) not in located for k in range(len(flat_states))):
        raise AssertionError("foreach: the state arrays have to be used in the loop body")
    data_locs = [located[k] for k in range(len(flat_data))]
    state_locs = [located[k + len(flat_data)] for k in range(len(flat_states))]
    remain = [(position, source) for position, source in enumerate(sources)
              if not isinstance(source, int)]
    num_outputs = shape["num_out"] + shape["num_states"]
    inputs = flat_data + flat_states + [symbol for _, symbol in remain]
    result = compose_op(Foreach, inputs, dict(
        num_args=len(inputs) + 1, num_outputs=num_outputs, num_out_data=shape["num_out"],
        in_state_locs=_locations(state_locs), in_data_locs=_locations(data_locs),
        remain_locs=_locations(position for position, _ in remain)), "_foreach")
    _attach(result, [entries])
    outs = [result[i] for i in range(shape["num_out"])]
    states = [result[i] for i in range(shape["num_out"], num_outputs)]
    return regroup(outs, shape["out_format"])[0], regroup(states, state_format)[0]


def _locations(positions):
    """A list of positions as MXNet writes it in a graph's attributes: ``[0, 2]``."""
    return "[" + ", ".join(str(p) for p in positions) + "]"


def _attach(result, subgraphs):
    node = result._entries[0][0]
    node.subgraphs = tuple(subgraphs)
    node._instance = node._call = None


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """The symbolic ``while_loop``: one ``_while_loop`` node holding ``cond`` and ``func``
    as subgraphs.  The step outputs have ``max_iterations`` rows (the rows after the last
    step are zeros)."""
    from ..ndarray.contrib_control_flow import as_python_scalar
    from ..op.control_flow import WhileLoop
    flat_vars, var_format = flatten(loop_vars, "while loop_vars", Symbol)
    _check(flat_vars, "loop_vars")
    if max_iterations is None:
        raise ValueError("while_loop: max_iterations should be specified")
    max_iterations = as_python_scalar(max_iterations, int, "max_iteration")
    if len(flat_vars) == 0:
        raise ValueError("while_loop: loop_vars should contain at least one element")
    shape = {}

    def traced_cond(grouped):
        result = cond(*grouped)
        if not isinstance(result, Symbol):
            raise ValueError("while_loop: the return of cond must be a Symbol")
        return [result]

    def traced_func(grouped):
        step_output, new_vars = func(*grouped)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        flat_out, out_format = flatten(list(step_output) if isinstance(step_output, tuple)
                                       else step_output, "while output", Symbol)
        flat_new, _ = flatten(list(new_vars) if isinstance(new_vars, tuple) else new_vars,
                              "while loop_vars", Symbol)
        if len(flat_new) != len(flat_vars):
            raise ValueError(f"while_loop: func returned {len(flat_new)} loop variables, "
                             f"expected {len(flat_vars)} (their number must stay the same)")
        shape.update(out_format=out_format, num_out=len(flat_out))
        return flat_out + flat_new

    cond_entries, cond_sources = trace_body(unique_subgraph_name(name + "_cond"),
                                            traced_cond, flat_vars, var_format)
    func_entries, func_sources = trace_body(unique_subgraph_name(name + "_func"),
                                            traced_func, flat_vars, var_format)
    inputs, (cond_locs, func_locs) = _union_inputs(flat_vars, cond_sources, func_sources)
    placeholder_at = _placeholder_positions(func_sources)
    var_locs = [placeholder_at.get(k, -1) for k in range(len(flat_vars))]
    for position, location in enumerate(var_locs, 1):
        if location == -1:
            raise ValueError(f"while_loop: the {position}-th loop_var doesn't involve into "
                             f"the computation")
    num_outputs = shape["num_out"] + len(flat_vars)
    result = compose_op(WhileLoop, inputs, dict(
        num_args=len(inputs) + 2, num_outputs=num_outputs, num_out_data=shape["num_out"],
        max_iterations=max_iterations, cond_input_locs=_locations(cond_locs),
        func_input_locs=_locations(func_locs), func_var_locs=_locations(var_locs)),
        "_while_loop")
    _attach(result, [cond_entries, func_entries])
    outputs = regroup([result[i] for i in range(shape["num_out"])], shape["out_format"])[0]
    final = regroup([result[i] for i in range(shape["num_out"], num_outputs)], var_format)[0]
    return outputs, final


def cond(pred, then_func, else_func, name="cond"):
    """The symbolic ``cond``: one ``_cond`` node holding the condition and both branches
    as subgraphs; everything they read from outside becomes an input of the node."""
    from ..op.control_flow import Cond
    shape = {}

    def branch(function, key):
        def traced(_):
            outputs, out_format = flatten(function(), "cond outputs", Symbol)
            shape[key] = (len(outputs), out_format)
            return outputs
        return traced

    traced = [trace_body(unique_subgraph_name(name + suffix), branch(function, suffix), [], [])
              for suffix, function in (("_pred", lambda: pred), ("_then", then_func),
                                       ("_else", else_func))]
    if shape["_pred"][0] != 1:
        raise ValueError("cond: pred should always be a single output")
    if shape["_then"][0] != shape["_else"][0]:
        raise ValueError(f"cond: the then-branch gives {shape['_then'][0]} outputs, the "
                         f"else-branch {shape['_else'][0]}")
    names = [[node.name for node in topo_order(entries) if node.is_variable]
             for entries, _ in traced]
    inputs, locations = _union_inputs([], *(sources for _, sources in traced), names=names)
    count = shape["_then"][0]
    result = compose_op(Cond, inputs, dict(
        num_args=len(inputs) + 3, num_outputs=count, cond_input_locs=_locations(locations[0]),
        then_input_locs=_locations(locations[1]), else_input_locs=_locations(locations[2])),
        "_cond")
    _attach(result, [entries for entries, _ in traced])
    return regroup([result[i] for i in range(count)], shape["_then"][1])[0]
