"""The graph record shared by Symbol, the Executor and hybridize: ``Node`` and its order.

Lesson: 07-symbolic-programming.  Mirrors nnvm's ``Node`` and ``NodeEntry``.  A node is an
operator call (``op`` is an OpDef class, ``attrs`` its parameters as strings,
as JSON stores them) or a variable (``op`` is None).  An *entry* is a pair
``(node, output_index)``; a Symbol is a list of entries.
"""
__all__ = ["Node", "topo_order", "is_aux_input", "entries_depending_on",
           "nodes_without_gradient", "check_gradients_exist", "aux_variables",
           "HIDDEN_KEYS", "MXNET_ONLY_PARAMS", "hide_keys", "attribute_items", "unknown_params",
           "set_input_init_hints"]

from ..base import GradientError
from ..op.call import op_call

# Attributes MXNet stores as ``__key__`` even when given as ``key`` (nnvm's kHiddenKeys).
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")
# MXNet parameters that change nothing in minimx (a creation op's ``ctx``, a scalar op's
# ``is_int``): kept as attributes so they survive JSON, never passed to the operator.
MXNET_ONLY_PARAMS = frozenset({"ctx", "is_int"})


class Node:
    """One operator call or variable in a symbolic graph."""

    __slots__ = ("op", "name", "attrs", "inputs", "subgraphs", "_instance", "_call",
                 "__weakref__")

    def __init__(self, op, name, attrs=None, inputs=(), subgraphs=()):
        self.op = op                    # OpDef subclass, or None for a variable
        self.name = name
        self.attrs = dict(attrs or {})  # str -> str: op parameters and __dunder__ attributes
        self.inputs = list(inputs)      # [(Node, output_index)]
        # a control-flow operator's bodies: each the entries (outputs) of a graph of its own,
        # whose variables, in graph order, are the body's inputs (``op/control_flow.py``)
        self.subgraphs = tuple(subgraphs)
        self._instance = None
        self._call = None

    @property
    def is_variable(self):
        return self.op is None

    @property
    def instance(self):
        """The operator instance with this node's parameters (parsed from the strings)."""
        if self._instance is None:
            params = {k: v for k, v in self.attrs.items() if k in self.op.params}
            instance = self.op.create(**params)
            if self.subgraphs:
                instance = instance.with_subgraphs(self.subgraphs)
            self._instance = instance
        return self._instance

    def op_name(self):
        return "null" if self.op is None else self.op.name

    def num_outputs(self):
        """All outputs, hidden ones included (BatchNorm has three)."""
        return 1 if self.op is None else len(self.instance.list_outputs())

    def num_visible(self):
        return 1 if self.op is None else self.instance.num_visible()

    def output_name(self, index):
        """MXNet's name for output ``index``: ``fc1_output``, ``split0_output1``,
        ``bn_mean`` (see ``OpDef.graph_output_names``), or the variable's name."""
        if self.op is None:
            return self.name
        return f"{self.name}_{self.instance.graph_output_names()[index]}"

    def call(self):
        """How to call this node's operator (``op.call.OpCall``); None for a variable."""
        call = self._call
        if call is None or call.op is not self._instance:
            if self.op is None:
                return None
            call = self._call = op_call(self.instance, len(self.inputs))
        return call

    def input_names(self):
        return () if self.op is None else self.call().input_names

    def __repr__(self):
        return f"Node({self.op_name()}, {self.name!r})"


def topo_order(entries):
    """Every node the entries depend on, inputs first, in MXNet's depth-first order."""
    order, seen = [], set()
    for head, _ in entries:
        stack = [(head, iter(head.inputs))]
        if id(head) in seen:
            continue
        seen.add(id(head))
        while stack:
            node, pending = stack[-1]
            for child, _ in pending:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, iter(child.inputs)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def _mergeable(node):
    """Whether two such calls with the same inputs give the same result, as MXNet's
    ``NodeEqual``: not for variables, operators without inputs, random draws, or
    operators that update inputs in place (BatchNorm's moving statistics), nor control-flow
    operators (their bodies are not among the attributes compared)."""
    return (not node.is_variable and bool(node.inputs) and not node.op.aux
            and not node.subgraphs and not node.instance.draws_random())


def eliminate_common_expressions(entries, copy_op):
    """A copy of the graph with every repeated computation done once (MXNet's
    ``EliminateCommonExpr`` pass, on while ``MXNET_ELIMINATE_COMMON_EXPR`` is not 0).

    Nodes are visited inputs first; a node with the same operator, attributes and
    (already merged) inputs as an earlier one is replaced by it.  Graph outputs that
    end up the same entry are kept apart by ``copy_op`` nodes named
    ``<node>_<k>_copy``, as MXNet names them.
    """
    memo, seen = {}, {}
    for node in topo_order(entries):
        inputs = [(memo[id(source)], index) for source, index in node.inputs]
        key = (node.op, tuple(sorted(node.attrs.items())),
               tuple((id(source), index) for source, index in inputs))
        if _mergeable(node) and key in seen:
            memo[id(node)] = seen[key]
            continue
        clone = memo[id(node)] = Node(node.op, node.name, node.attrs, inputs, node.subgraphs)
        if _mergeable(node):
            seen[key] = clone
    outputs, copies = [], {}
    for node, index in entries:
        entry = (memo[id(node)], index)
        key = (id(entry[0]), index)
        if key in copies:
            source = entry[0]
            entry = (Node(copy_op, f"{source.name}_{copies[key]}_copy", {}, [entry]), 0)
            copies[key] += 1
        else:
            copies[key] = 0
        outputs.append(entry)
    return outputs


def is_aux_input(node, position):
    """Whether input ``position`` of ``node`` is an auxiliary state (updated, not learned)."""
    if node.op is None:
        return False
    aux = node.instance.aux       # per instance: a Custom op's come from its CustomOpProp
    return bool(aux) and node.input_names()[position] in aux


def entries_depending_on(entries, variable_ids, order=None):
    """Every entry whose value depends on one of the variables in ``variable_ids``
    (the values backward must compute gradients for).  ``order``, here and below: the
    entries' ``topo_order`` when the caller has it (``Symbol._order``)."""
    needs = set()
    for node in topo_order(entries) if order is None else order:
        if node.is_variable:
            if id(node) in variable_ids:
                needs.add((node, 0))
        elif any(entry in needs for entry in node.inputs):
            needs.update((node, index) for index in range(node.num_outputs()))
    return needs


def untouched_gradient_variables(entries, order=None):
    """The ids of the variables whose gradient array a backward pass from ``entries``
    leaves as it was: every operator reading them reads them as an input it declares
    ``grad_untouched_inputs`` (a loss layer's ``label``), and none is a head itself."""
    touched = {id(node) for node, _ in entries}
    untouched = set()
    for node in topo_order(entries) if order is None else order:
        if node.is_variable:
            continue
        kept = node.instance.grad_untouched_inputs
        for (source, _), name in zip(node.inputs, node.input_names()):
            if source.is_variable:
                (untouched if name in kept else touched).add(id(source))
    return untouched - touched


def nodes_without_gradient(entries, order=None):
    """The nodes a backward pass from ``entries`` would carry a gradient into although
    their operator has none (``has_gradient = False``), in MXNet's gradient pass order.

    The gradient starts at every head and flows back through each operator's inputs that
    get one; a zero-gradient operator (``differentiable = False``: ``BlockGrad``, a
    comparison) stops it.  MXNet checks every node reached, whichever arguments want a
    gradient: an operator without one anywhere on the way is an error.
    """
    reached = {id(node) for node, _ in entries}
    found = []
    for node in reversed(topo_order(entries) if order is None else order):
        if node.is_variable or id(node) not in reached:
            continue
        operator = node.instance
        if not operator.has_gradient:
            found.append(node)
        elif operator.differentiable:
            reached.update(id(source) for (source, _), gets in
                           zip(node.inputs, node.call().gets_grad) if gets)
    return found


def check_gradients_exist(entries, order=None):
    """Before a backward pass over the graph (``bind`` for one, a hybridized block's
    backward): as MXNet, refuse when the heads' gradient would reach an operator that has
    none (see ``nodes_without_gradient``)."""
    missing = nodes_without_gradient(entries, order)
    if missing:
        node = missing[0]
        raise GradientError(
            f"operator {node.op.name} (node {node.name!r}) has no gradient, and a gradient "
            f"of the outputs reaches it; cut the gradient off before it with BlockGrad "
            f"(stop_gradient), or ask for no gradient (bind with grad_req='null')")


def aux_variables(entries):
    """Ids of the variables used as auxiliary states (written by the graph, not learned)."""
    result = set()
    for node in topo_order(entries):
        for position, (source, _) in enumerate(node.inputs):
            if source.is_variable and is_aux_input(node, position):
                result.add(id(source))
    return result


def is_dunder(key):
    return len(key) > 4 and key.startswith("__") and key.endswith("__")


def hide_keys(attrs):
    """``attrs`` with hidden keys renamed as MXNet stores them: ``lr_mult`` -> ``__lr_mult__``."""
    return {f"__{key}__" if key in HIDDEN_KEYS else key: value for key, value in attrs.items()}


def attribute_items(attrs):
    """(key, value) pairs as MXNet lists them: hidden keys also without their underscores."""
    for key, value in attrs.items():
        yield key, value
        if is_dunder(key) and key[2:-2] in HIDDEN_KEYS:
            yield key[2:-2], value


def unknown_params(op, attrs):
    """Attribute keys that an operator with parameters would reject, as MXNet does.

    Dunder attributes (``__shape__``, ``__profiler_scope__``, ``__layout__`` ...)
    and MXNet-only parameters are not parameters; an op without any parameter
    ignores every attribute, as MXNet's ops without a parameter parser do.
    """
    if op.ignores_unknown_params():
        return []
    return [key for key in attrs if key not in op.params and key not in MXNET_ONLY_PARAMS
            and not is_dunder(key) and key not in HIDDEN_KEYS]


def set_input_init_hints(node):
    """Give the node's input variables the op's ``__init__`` hint (``input_init_hints``)
    unless they have one."""
    hints = node.instance.input_init_hints
    for input_name, (source, _) in zip(node.input_names(), node.inputs):
        if input_name in hints and source.is_variable and "__init__" not in source.attrs:
            source.attrs["__init__"] = hints[input_name]
