"""Gradients that can be differentiated again (``grad(..., create_graph=True)``).

Lesson: 04-autograd.  An operator's ``backward`` is written against ``xp``.
Handing it ``nd_as_xp`` instead of numpy makes the same code build recorded
NDArray operations, so the gradient has a graph of its own.  This works for
every operator whose backward uses only xp functions that some operator
declares as its ``xp_name`` (the element-wise family); others raise a clear
error naming the function.
"""
from .. import ndarray as nd
from ..base import GradientError
from ..op.call import op_call
from ..op.registry import list_ops
from ..tape.nodes import LinkNode
from ..tape.recording import is_training

__all__ = ["backward_as_operations", "nd_as_xp"]


def _differentiable_xp_functions():
    """xp function name -> the nd function that computes it with a recorded graph.

    Read from the declarations: an operator with ``xp_name = "exp"`` is what ``xp.exp``
    computes.  The nd function of the xp name is preferred where nd has one
    (``nd.maximum`` also takes scalars, as ``xp.maximum`` does), else the operator's own
    (a hidden ``_npi_`` operator is reached through ``nd._internal``).
    """
    functions = {}
    for op_cls in list_ops():
        if op_cls.xp_name:
            functions[op_cls.xp_name] = getattr(nd, op_cls.xp_name, None) or \
                getattr(nd, op_cls.name, None) or getattr(nd._internal, op_cls.name)
    functions.update(sum=_sum)        # xp.sum's signature differs from nd.sum's
    return functions


class _NDArrayNamespace:
    """Looks like numpy/CuPy to an operator's ``backward``, but computes with NDArrays."""

    def __init__(self):
        self._functions = None

    def __getattr__(self, name):
        if name.startswith("__") or name == "_functions":
            raise AttributeError(name)      # introspection (doctest, copy) is not an op
        if self._functions is None:
            self._functions = _differentiable_xp_functions()
        if name in self._functions:
            return self._functions[name]
        raise GradientError(
            f"second-order gradient: the backward of this operator uses xp.{name}, which no "
            f"operator declares as its xp_name (see OpDef.xp_name), so it has no "
            f"differentiable NDArray version")


def _sum(data, axis=None, keepdims=False, dtype=None):
    if axis == ():
        return data
    return nd.sum(data, axis=axis, keepdims=keepdims)


nd_as_xp = _NDArrayNamespace()


def backward_as_operations(node, out_grads):
    """One recorded call's input gradients, as recorded NDArray operations."""
    call = op_call(node.op, len(node.inputs))
    saved = {}
    for key, value in node.saved.items():
        if isinstance(value, nd.NDArray):
            value = value._detached()
            if key in call.input_names:
                value._autograd = node.inputs[call.input_names.index(key)]
            elif key in call.output_names:
                value._autograd = (node, call.output_names.index(key))
        saved[key] = value
    wanted = [entry is not None for entry in node.inputs]
    grads = call.backward(nd_as_xp, out_grads, saved, wanted, is_training())
    return [_linked(grad, node) for grad in grads]


def _linked(grad, node):
    """``grad``, tied to the node's inputs when nothing differentiable links them."""
    if grad is None or grad._autograd is not None or not any(node.inputs):
        return grad
    linked = grad._detached()
    linked._autograd = (LinkNode(list(node.inputs), [grad.shape], [grad._dtype], node.ctx), 0)
    return linked
