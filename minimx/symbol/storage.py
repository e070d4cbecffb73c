"""Storage-type inference through a graph: which nodes give csr, row_sparse or dense values.

Lesson: 13-optimizers (sparse gradients).  Mirrors MXNet's ``InferStorageType`` pass
(``src/executor/infer_graph_attr_pass.cc``): a variable's storage type is its bound
array's, else its ``stype`` attribute (``__storage_type__``), else 'default'; each node's
follows from its inputs' by the same rule an imperative call uses
(``op/sparse_kernels.storage_kernel``): a kernel that keeps the result sparse, or the dense
fallback, whose result is 'default'.
"""
from ..base import STORAGE_TYPE_KEY, storage_type_name
from ..op.sparse_kernels import graph_kernel
from .graph import topo_order

__all__ = ["variable_storage_type", "infer_storage_types", "gradient_storage_types"]


def variable_storage_type(node):
    """The storage type a Variable node declares ('default' when none)."""
    number = node.attrs.get(STORAGE_TYPE_KEY)
    return "default" if number is None else storage_type_name(number)


def infer_storage_types(entries, shapes, known=None, order=None):
    """{(node, output index): storage type} for every value of the graph ``entries``;
    ``shapes`` holds each value's shape (``inference.infer_shapes``), ``known`` maps
    variable names to the storage type of the array bound to them; ``order``: the entries'
    ``topo_order`` if known."""
    known = known or {}
    stypes = {}
    order = topo_order(entries) if order is None else order
    for node in order:
        if node.is_variable:
            stypes[(node, 0)] = known.get(node.name) or variable_storage_type(node)
            continue
        inputs = [stypes[(source, index)] for source, index in node.inputs]
        result = node_storage_type(node.instance, inputs,
                                   [shapes.get(entry) for entry in node.inputs])
        for index in range(node.num_outputs()):
            stypes[(node, index)] = result if index == 0 else "default"
    return stypes


def node_storage_type(op, input_stypes, input_shapes):
    """The storage type of an operator's (first) output for inputs of these storage types:
    the sparse kernel's, or 'default' (the dense operator on dense copies)."""
    if all(s == "default" for s in input_stypes) and op.name != "cast_storage":
        return "default"
    op.check_input_stypes(input_stypes)
    if any(shape is None for shape in input_shapes):
        return "default"
    found = graph_kernel(op, list(input_stypes), [tuple(s) for s in input_shapes])
    return "default" if found is None else found[1]


def gradient_storage_types(entries, shapes, known=None, order=None):
    """{variable name: the storage type of its gradient}, as MXNet's backward storage
    inference gives it: row_sparse when every node reading the variable gives it a
    row_sparse gradient -- ``dot(csr, w)`` for ``w`` (``csr.T @ grad``), an
    ``Embedding(sparse_grad=True)`` for its weight, a node that keeps a row_sparse input
    row_sparse (``abs``, ``_square_sum``, ``retain``) -- else 'default'."""
    order = topo_order(entries) if order is None else order
    stypes = infer_storage_types(entries, shapes, known, order)
    kinds = {}
    for node in order:
        if node.is_variable:
            continue
        inputs = [stypes[entry] for entry in node.inputs]
        for position, (source, _) in enumerate(node.inputs):
            if source.is_variable:
                kinds.setdefault(source.name, set()).add(_input_gradient_storage_type(
                    node.instance, inputs, stypes[(node, 0)], position))
    return {name: "row_sparse" if found == {"row_sparse"} else "default"
            for name, found in kinds.items()}


def _input_gradient_storage_type(op, inputs, output, position):
    declared = op.input_grad_stypes()
    if declared is not None:
        return declared[position]
    if op.name == "dot" and inputs[0] == "csr" and position == 1 and not (
            op.transpose_a or op.transpose_b):
        return "row_sparse"
    if inputs[position] == "row_sparse" and (output == "row_sparse" or
                                             op.name == "_square_sum"):
        return "row_sparse"
    return "default"
