"""Running a plan: the forward and backward interpreters inside one engine push.

Lesson: 07-executors.  Mirrors ``GraphExecutor::RunOps``.  ``run_forward``
walks the steps with raw backend arrays; in training it keeps what each
node's ``saves`` asks for, and ``run_backward`` walks the same nodes in
reverse, calling each declaration's ``backward``.
"""
import weakref
from dataclasses import dataclass

__all__ = ["run_forward", "run_backward", "node_call"]


@dataclass(frozen=True)
class NodeCall:
    """What the interpreters need to call one node, worked out once per node.

    ``saves``: ``(name, kind, position)`` per saved value, kind being
    ``input``, ``output``, ``shape`` (of an input) or ``input_shapes``;
    ``gets_grad``: per input, whether backward's result for it is kept;
    ``backward_needs``: whether backward takes ``needs`` (see ``OpDef``).
    """

    op: object
    forward_train: bool
    forward_rng: bool
    backward_train: bool
    backward_needs: bool
    num_visible: int
    saves: tuple
    gets_grad: tuple


_CALLS = weakref.WeakKeyDictionary()


def node_call(node):
    """The ``NodeCall`` of an operator node (cached: nodes of a bound graph do not change)."""
    call = _CALLS.get(node)
    if call is None:
        call = _CALLS[node] = _make_call(node)
    return call


def _make_call(node):
    op = node.instance
    names = list(op.list_inputs(len(node.inputs)))
    outputs = list(op.list_outputs())
    saves = []
    for name in op.saves:
        if name == "input_shapes":
            saves.append((name, "input_shapes", None))
        elif name.endswith("_shape") and name[:-6] in names:
            saves.append((name, "shape", names.index(name[:-6])))
        elif name in names:
            saves.append((name, "input", names.index(name)))
        elif name in outputs:
            saves.append((name, "output", outputs.index(name)))
    gets_grad = tuple(name not in op.no_grad_inputs and name not in op.aux for name in names)
    return NodeCall(op, "is_train" in op.forward_extras, "rng" in op.forward_extras,
                    "is_train" in op.backward_extras, "needs" in op.backward_extras,
                    op.num_visible(), tuple(saves), gets_grad)


def run_forward(plan, xp, values, is_train, rng_seeds, make_rng, saved, monitor=None,
                monitor_all=False):
    """Compute every step; ``values`` maps value keys to arrays and receives the results.

    ``monitor(name, array)`` sees every node output (``fc1_output``) and, with
    ``monitor_all``, every node input first (``fc1_weight``), as MXNet names them.
    """
    for index, step in enumerate(plan.steps):
        if step.constant is not None:
            values.update(zip(step.outputs, step.constant))
            continue
        arrays = [values[key] for key in step.inputs]
        for node in step.nodes:
            call = node_call(node)
            extras = {}
            if call.forward_train:
                extras["is_train"] = is_train
            if call.forward_rng:
                extras["rng"] = make_rng(rng_seeds[id(node)])
            if monitor is not None and monitor_all:
                for name, value in zip(call.op.list_inputs(len(arrays)), arrays):
                    monitor(f"{node.name}_{name}", value)
            result = call.op.forward(xp, *arrays, **extras)
            result = result if isinstance(result, tuple) else (result,)
            if saved is not None:       # training, or a recorded call in predict mode
                saved[id(node)] = _saved(call, arrays, result)
            if monitor is not None:
                for position, value in enumerate(result[:call.num_visible]):
                    monitor(node.output_name(position), value)
            arrays = list(result)
        values.update(zip(step.outputs, arrays))
        for key in plan.release_after.get(index, ()):
            values.pop(key, None)


def _saved(call, arrays, outputs):
    """What backward receives as keyword arguments, as the op's ``saves`` declares."""
    result = {}
    for name, kind, position in call.saves:
        if kind == "input":
            result[name] = arrays[position]
        elif kind == "output":
            result[name] = outputs[position]
        elif kind == "shape":
            result[name] = arrays[position].shape
        else:
            result[name] = tuple(a.shape for a in arrays)
    return result


def run_backward(plan, xp, head_grads, saved, needs_grad, is_train, meta, monitor=None):
    """Gradients of every value that needs one: {value key: array}.

    ``meta`` maps a value key to its (shape, dtype), for outputs nobody sent a
    gradient to (they count as zeros).  ``monitor(name, array)`` sees each
    node's input gradients, named as MXNet's backward nodes: ``fc1_backward_output1``.
    """
    grads = dict(head_grads)
    for step in reversed(plan.steps):
        if step.constant is not None:
            continue
        for node in reversed(step.nodes):
            if not any(key in needs_grad for key in node.inputs):
                continue
            if not node.instance.differentiable:     # comparisons etc.: zero gradient
                continue
            call = node_call(node)
            out_keys = [(node, index) for index in range(call.num_visible)]
            out_grads = [grads.pop(key, None) for key in out_keys]
            if all(g is None for g in out_grads):
                continue
            out_grads = [g if g is not None else xp.zeros(*meta[key])
                         for g, key in zip(out_grads, out_keys)]
            extras = {"is_train": is_train} if call.backward_train else {}
            if call.backward_needs:
                extras["needs"] = tuple(wanted and key in needs_grad
                                        for key, wanted in zip(node.inputs, call.gets_grad))
            result = call.op.backward(xp, *out_grads, **saved[id(node)], **extras)
            result = list(result) if isinstance(result, (tuple, list)) else [result]
            if monitor is not None:
                _report_gradients(monitor, node, result)
            for key, wanted, value in zip(node.inputs, call.gets_grad, result):
                if value is None or not wanted or key not in needs_grad:
                    continue
                grads[key] = value if key not in grads else grads[key] + value
    return grads


def _report_gradients(monitor, node, gradients):
    for position, value in enumerate(gradients):
        if value is not None:
            suffix = "" if len(node.inputs) == 1 else str(position)
            monitor(f"{node.name}_backward_output{suffix}", value)
