"""The graph record shared by Symbol, the Executor and hybridize: ``Node`` and its order.

Lesson: 06-symbol.  Mirrors nnvm's ``Node`` and ``NodeEntry``.  A node is an
operator call (``op`` is an OpDef class, ``attrs`` its parameters as strings,
as JSON stores them) or a variable (``op`` is None).  An *entry* is a pair
``(node, output_index)``; a Symbol is a list of entries.
"""
__all__ = ["Node", "topo_order", "is_aux_input"]


class Node:
    """One operator call or variable in a symbolic graph."""

    __slots__ = ("op", "name", "attrs", "inputs", "_instance", "__weakref__")

    def __init__(self, op, name, attrs=None, inputs=()):
        self.op = op                    # OpDef subclass, or None for a variable
        self.name = name
        self.attrs = dict(attrs or {})  # str -> str: op parameters and __dunder__ attributes
        self.inputs = list(inputs)      # [(Node, output_index)]
        self._instance = None

    @property
    def is_variable(self):
        return self.op is None

    @property
    def instance(self):
        """The operator instance with this node's parameters (parsed from the strings)."""
        if self._instance is None:
            params = {k: v for k, v in self.attrs.items() if k in self.op.params}
            self._instance = self.op.create(**params)
        return self._instance

    def op_name(self):
        return "null" if self.op is None else self.op.name

    def num_outputs(self):
        """All outputs, hidden ones included (BatchNorm has three)."""
        return 1 if self.op is None else len(self.instance.list_outputs())

    def num_visible(self):
        return 1 if self.op is None else self.instance.num_visible()

    def output_name(self, index):
        """MXNet's name for output ``index``: ``fc1_output``, ``split0_output1``, or the var name."""
        if self.op is None:
            return self.name
        if self.num_visible() == 1 and index == 0:
            return f"{self.name}_output"
        return f"{self.name}_output{index}"

    def input_names(self):
        return () if self.op is None else self.instance.list_inputs(len(self.inputs))

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


def is_aux_input(node, position):
    """Whether input ``position`` of ``node`` is an auxiliary state (updated, not learned)."""
    if node.op is None or not node.op.aux:
        return False
    return node.input_names()[position] in node.op.aux
