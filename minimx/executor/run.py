"""Running a plan: the forward and backward interpreters inside one engine push.

Lesson: 07-executor.  Mirrors ``GraphExecutor::RunOps``.  ``run_forward``
walks the steps with raw backend arrays; in training it keeps what each
node's ``saves`` asks for, and ``run_backward`` walks the same nodes in
reverse, calling each declaration's ``backward``.
"""
__all__ = ["run_forward", "run_backward"]


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
            op = node.instance
            extras = {}
            if "is_train" in op.forward_extras:
                extras["is_train"] = is_train
            if "rng" in op.forward_extras:
                extras["rng"] = make_rng(rng_seeds[id(node)])
            if monitor is not None and monitor_all:
                for name, value in zip(op.list_inputs(len(arrays)), arrays):
                    monitor(f"{node.name}_{name}", value)
            result = op.forward(xp, *arrays, **extras)
            result = result if isinstance(result, tuple) else (result,)
            if is_train:
                saved[id(node)] = _saved(node, arrays, result)
            if monitor is not None:
                for position, value in enumerate(result[:op.num_visible()]):
                    monitor(node.output_name(position), value)
            arrays = list(result)
        values.update(zip(step.outputs, arrays))
        for key in plan.release_after.get(index, ()):
            values.pop(key, None)


def _saved(node, arrays, outputs):
    op = node.instance
    names = op.list_inputs(len(node.inputs))
    output_names = op.list_outputs()
    result = {}
    for name in op.saves:
        if name == "input_shapes":
            result[name] = tuple(a.shape for a in arrays)
        elif name.endswith("_shape") and name[:-6] in names:
            result[name] = arrays[names.index(name[:-6])].shape
        elif name in names:
            result[name] = arrays[names.index(name)]
        elif name in output_names:
            result[name] = outputs[output_names.index(name)]
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
            op = node.instance
            out_keys = [(node, index) for index in range(op.num_visible())]
            out_grads = [grads.pop(key, None) for key in out_keys]
            if all(g is None for g in out_grads):
                continue
            out_grads = [g if g is not None else xp.zeros(*meta[key])
                         for g, key in zip(out_grads, out_keys)]
            extras = {"is_train": is_train} if "is_train" in op.backward_extras else {}
            result = op.backward(xp, *out_grads, **saved[id(node)], **extras)
            result = list(result) if isinstance(result, (tuple, list)) else [result]
            if monitor is not None:
                _report_gradients(monitor, node, result)
            names = op.list_inputs(len(node.inputs))
            for key, name, value in zip(node.inputs, names, result):
                if value is None or key not in needs_grad or name in op.no_grad_inputs \
                        or name in op.aux:
                    continue
                grads[key] = value if key not in grads else grads[key] + value
    return grads


def _report_gradients(monitor, node, gradients):
    for position, value in enumerate(gradients):
        if value is not None:
            suffix = "" if len(node.inputs) == 1 else str(position)
            monitor(f"{node.name}_backward_output{suffix}", value)
