"""Running a plan: the forward and backward interpreters inside one engine push.

Lesson: 08-executors.  Mirrors ``GraphExecutor::RunOps``.  ``run_forward``
walks the steps with raw backend arrays; in training it keeps what each
node's ``saves`` asks for, and ``run_backward`` walks the same nodes in
reverse, calling each declaration's ``backward``.
"""
from .sparse_step import add_gradients, backward_node, forward_node, is_sparse

__all__ = ["run_forward", "run_backward", "forward_schedule", "backward_schedule"]


def run_forward(plan, xp, values, is_train, rng_seeds, make_rng, saved, monitor=None,
                monitor_all=False, monitor_variables=False):
    """Compute every step; ``values`` maps value keys to arrays and receives the results.

    ``monitor(name, array, op_name)`` sees every node output (``fc1_output``) and, with
    ``monitor_all``, every node input first (``fc1_weight``), as MXNet names them (an
    operator MXNet gives no input names reports ``input0``: ``OpDef.monitor_input_names``).
    With ``monitor_variables`` an input that is a graph variable is reported under the
    variable's own name first (``data``, then ``fc1_data``), as an Executor's monitor does.
    """
    for constant, inputs, nodes, outputs, releases in forward_schedule(plan):
        if constant is not None:
            values.update(zip(outputs, constant))
            continue
        arrays = [values[key] for key in inputs]
        for node, call in nodes:
            rng = make_rng(rng_seeds[id(node)]) if call.random else None
            if monitor is not None and monitor_all:
                sources = inputs if node is nodes[0][0] else [None] * len(arrays)
                for name, key, value in zip(node.instance.monitor_input_names(
                        call.input_names), sources, arrays):
                    if monitor_variables and key is not None and key[0].is_variable:
                        monitor(key[0].name, value, "null")
                    monitor(f"{node.name}_{name}", value, node.op.name)
            if call.op.name == "cast_storage" or any(map(is_sparse, arrays)):   # sparse values
                result, arrays = forward_node(call, xp, arrays, is_train, rng)
            else:
                result = call.forward(xp, arrays, is_train, rng)
            if saved is not None:       # training, or a recorded call in predict mode
                saved[id(node)] = call.saved(arrays, result)
            if monitor is not None:
                for position, value in enumerate(result[:call.num_visible]):
                    monitor(node.output_name(position), value, node.op.name)
            arrays = result
        values.update(zip(outputs, arrays))
        for key in releases:
            values.pop(key, None)


def forward_schedule(plan):
    """The steps as ``run_forward`` walks them, ``(folded constant or None, input keys,
    [(node, its OpCall)], output keys, keys released after it)``: looked up once per
    plan rather than on every call."""
    if plan.forward_schedule is None:
        plan.forward_schedule = [
            (step.constant, step.inputs, [(node, node.call()) for node in step.nodes],
             step.outputs, plan.release_after.get(index, ()))
            for index, step in enumerate(plan.steps)]
    return plan.forward_schedule


def run_backward(plan, xp, head_grads, saved, needs_grad, is_train, meta, monitor=None):
    """Gradients of every value that needs one: {value key: array}.

    ``meta`` maps a value key to its (shape, dtype), for outputs nobody sent a
    gradient to (they count as zeros).  ``monitor(name, array, op_name)`` sees each
    node's input gradients, named as MXNet's backward nodes: ``fc1_backward_output1``.
    """
    grads = dict(head_grads)
    for node, call, out_keys, needs in backward_schedule(plan, needs_grad):
        out_grads = [grads.pop(key, None) for key in out_keys]
        if all(g is None for g in out_grads):
            continue
        out_grads = [g if g is not None else xp.zeros(*meta[key])
                     for g, key in zip(out_grads, out_keys)]
        kept = saved[id(node)]
        if any(map(is_sparse, out_grads)) or any(map(is_sparse, kept.values())):
            result = backward_node(call, xp, out_grads, kept, needs, is_train)
        else:
            result = call.backward_needs(xp, out_grads, kept, needs, is_train)
        if monitor is not None:
            _report_gradients(monitor, node, result)
        for key, value in zip(node.inputs, result):
            if value is not None:     # row_sparse stays so (Embedding(sparse_grad=True))
                grads[key] = value if key not in grads else add_gradients(grads[key], value)
    return grads


def backward_schedule(plan, needs_grad):
    """The nodes ``run_backward`` visits, last first, each as ``(node, call, its output
    keys, needs)``: what depends only on the plan and on which values need a gradient is
    decided once per ``needs_grad`` set (an executor and a CachedOp keep theirs), not on
    every backward.  A node no gradient flows into, or one that has none (a comparison:
    zero gradient), is left out."""
    cached = plan.backward_schedules.get(id(needs_grad))
    if cached is not None and cached[0] is needs_grad:
        return cached[1]
    schedule = []
    for step in reversed(plan.steps):
        if step.constant is not None:
            continue
        for node in reversed(step.nodes):
            if not node.instance.differentiable or not any(
                    key in needs_grad for key in node.inputs):
                continue
            call = node.call()
            out_keys = tuple((node, index) for index in range(call.num_visible))
            schedule.append((node, call, out_keys,
                             call.needs([key in needs_grad for key in node.inputs])))
    plan.backward_schedules[id(needs_grad)] = (needs_grad, schedule)   # kept: its id stays
    return schedule


def _report_gradients(monitor, node, gradients):
    for position, value in enumerate(gradients):
        if value is not None:
            suffix = "" if len(node.inputs) == 1 else str(position)
            monitor(f"{node.name}_backward_output{suffix}", value, f"_backward_{node.op.name}")
