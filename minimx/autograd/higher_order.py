"""Gradients that can be differentiated again (``grad(..., create_graph=True)``).

Lesson: 03-autograd.  An operator's ``backward`` is written against ``xp``.
Handing it ``nd_as_xp`` instead of numpy makes the same code build recorded
NDArray operations, so the gradient has a graph of its own.  This works for
every operator whose backward uses only functions listed in ``nd_as_xp``
(the element-wise family); others raise a clear error.
"""
from ..base import GradientError

__all__ = ["backward_as_operations", "nd_as_xp"]

# numpy name -> nd function name; each must itself be differentiable
_XP_NAMES = {
    "exp": "exp", "log": "log", "log1p": "log1p", "expm1": "expm1", "sqrt": "sqrt",
    "square": "square", "sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh",
    "sinh": "sinh", "cosh": "cosh", "arctan": "arctan", "abs": "abs", "sign": "sign",
    "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint", "maximum": "maximum",
    "minimum": "minimum", "power": "power", "zeros_like": "zeros_like",
    "ones_like": "ones_like", "negative": "negative", "reciprocal": "reciprocal",
    "broadcast_to": "broadcast_to",
}


class _NDArrayNamespace:
    """Looks like numpy/CuPy to an operator's ``backward``, but computes with NDArrays."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)      # introspection (doctest, copy) is not an op
        from .. import ndarray as nd
        if name in _XP_NAMES:
            return getattr(nd, _XP_NAMES[name])
        if name == "sum":
            return _sum
        if name == "where":
            return _where
        raise GradientError(
            f"second-order gradient: the backward of this operator uses xp.{name}, which has "
            f"no differentiable NDArray version in minimx.autograd.higher_order")


def _sum(data, axis=None, keepdims=False, dtype=None):
    from .. import ndarray as nd
    if axis == ():
        return data
    return nd.sum(data, axis=axis, keepdims=keepdims)


def _where(condition, x, y):
    from .. import ndarray as nd
    return nd.where(condition, x, y)


nd_as_xp = _NDArrayNamespace()


def backward_as_operations(node, out_grads):
    """One recorded call's input gradients, as recorded NDArray operations."""
    op = node.op
    names = op.list_inputs(len(node.inputs))
    saved = {}
    for key, value in node.saved.items():
        if hasattr(value, "_chunk"):
            value = value._detached()
            if key in names:
                value._autograd = node.inputs[names.index(key)]
            elif key in op.list_outputs():
                value._autograd = (node, op.list_outputs().index(key))
        saved[key] = value
    if "is_train" in op.backward_extras:
        saved["is_train"] = node.is_train
    if "needs" in op.backward_extras:
        saved["needs"] = tuple(entry is not None and name not in op.no_grad_inputs
                               and name not in op.aux for entry, name in zip(node.inputs, names))
    result = op.backward(nd_as_xp, *out_grads, **saved)
    if not isinstance(result, (tuple, list)):
        result = (result,)
    result = list(result) + [None] * (len(names) - len(result))
    return [None if entry is None or name in op.no_grad_inputs or name in op.aux else value
            for entry, name, value in zip(node.inputs, names, result)]
