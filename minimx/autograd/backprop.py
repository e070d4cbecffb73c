"""``backward`` and ``grad``: walk the tape from the heads back to the variables.

Lesson: 04-autograd.  Mirrors ``Imperative::Backward``.  Each recorded call's
gradient is one engine push (``dispatch.push_backward``), so backward is as
lazy as forward.  With ``create_graph=True`` the gradient is computed with
recorded NDArray operations instead, so it can be differentiated again.
"""
from ..base import GradientError
from ..ndarray import NDArray, add_n, ones_like, zeros, zeros_like
from ..ndarray.dispatch import push_backward
from ..tape.recording import set_recording, set_training
from ..tape.nodes import FunctionNode, LinkNode, OpNode, VariableNode

__all__ = ["mark_variables", "backward", "grad"]

_GRAD_REQS = ("write", "add", "null")


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark NDArrays as variables whose gradients go into ``gradients``."""
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for variable, gradient, req in zip(variables, gradients, grad_reqs):
        if req not in _GRAD_REQS:
            raise GradientError(f"grad_req must be one of {_GRAD_REQS}, got {req!r}")
        variable._grad = gradient
        variable._autograd = (VariableNode(gradient, req), 0)


def _entry_of(head):
    entry = head._autograd
    if entry is None:
        raise GradientError(
            "cannot differentiate: this NDArray is not in a recorded graph; compute it inside "
            "autograd.record() from arrays that had attach_grad() called")
    return entry


def _topological_order(heads):
    """Nodes reachable from the heads, each after every node it takes input from: the
    depth-first post-order that visits a node's inputs first to last (nnvm's ``DFSVisit``,
    which numbers MXNet's graph)."""
    order, visited = [], set()
    for head_node, _ in heads:
        stack = [(head_node, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in visited:
                continue
            visited.add(id(node))
            stack.append((node, True))
            for entry in reversed(node.inputs):
                if entry is not None and id(entry[0]) not in visited:
                    stack.append((entry[0], False))
    return order


def _backward_order(order):
    """The recorded calls in the order MXNet runs their backward, each after every call that
    reads its outputs.

    The order matters where a backward writes state: BatchNorm called twice in one graph
    (a discriminator on a real and a fake batch) moves its statistics twice, and the last
    move weighs most.  MXNet's gradient graph is walked depth first from the gradient of
    each variable (in ``order``'s order); the gradient of an array is the sum of its
    readers' contributions, the reader recorded *last* first (nnvm's gradient pass
    makes them in reverse order); a call's backward comes after all of its readers'."""
    readers = {}        # (id(node), output index) -> its readers, in ``order``'s order
    for node in order:
        for entry in node.inputs:
            if entry is not None:
                readers.setdefault((id(entry[0]), entry[1]), []).append(node)

    def children(node):
        outputs = 1 if isinstance(node, VariableNode) else node.num_outputs()
        found = []
        for index in range(outputs):
            # the reader recorded last first: ``readers`` lists them in ``order``'s order
            found += reversed(readers.get((id(node), index), ()))
        return found

    result, visited = [], set()
    variables = [node for node in order if isinstance(node, VariableNode)]
    variables.sort(key=lambda v: v.grad_req == "null")       # MXNet skips those: last here
    for variable in variables:
        stack = [(variable, iter(children(variable)))]
        while stack:
            node, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                stack.pop()
                if node is not variable:
                    result.append(node)
            elif id(child) not in visited:
                visited.add(id(child))
                stack.append((child, iter(children(child))))
    result += [node for node in reversed(order)          # calls no variable leads to
               if id(node) not in visited and not isinstance(node, VariableNode)]
    return result


def _run_backward(heads, head_grads, create_graph, into_grads=False):
    """Gradients of ``heads`` for every node reached: {(id(node), index): NDArray}.

    ``into_grads``: the steps may write a variable's gradient into its ``.grad`` directly
    (``_direct_targets``); its entry is then that ``.grad`` itself."""
    entries = [_entry_of(head) for head in heads]
    grads = {}              # (id(node), output index) -> the gradients arrived so far
    for entry, head, head_grad in zip(entries, heads, head_grads):
        _accumulate(grads, entry, ones_like(head) if head_grad is None else head_grad)
    order = _topological_order(entries)
    nodes = _backward_order(order)
    for node in nodes:      # before anything is pushed: a failed backward changes no .grad
        if node.freed:
            raise GradientError(
                f"the graph through {node.name} was freed by an earlier backward; pass "
                f"retain_graph=True to the first backward to differentiate twice")
    targets = _direct_targets(order, entries) if into_grads else None
    for node in nodes:
        count = node.num_outputs()
        outputs = [_total(grads.pop((id(node), index), None)) for index in range(count)]
        if all(g is None for g in outputs):
            continue
        outputs = [g if g is not None else zeros(shape, ctx=node.ctx, dtype=dtype)
                   for g, shape, dtype in zip(outputs, node.output_shapes, node.output_dtypes)]
        into = None
        if targets:
            into = [targets.get(id(entry[0])) if entry is not None else None
                    for entry in node.inputs]
            if not any(target is not None for target in into):
                into = None
        for entry, input_grad in zip(node.inputs,
                                     _input_grads(node, outputs, create_graph, into)):
            if entry is not None and input_grad is not None:
                _accumulate(grads, entry, input_grad)
    return order, {key: _total(values) for key, values in grads.items()}


def _direct_targets(order, head_entries):
    """{id(variable node): its ``.grad``} for the variables whose gradient the backward step
    computing it may write straight into ``.grad`` (MXNet's ``req='write'``), saving a copy
    per variable: ``grad_req='write'``, dense, and reached through exactly one input of one
    recorded call (several parts are summed first; a head gets its head gradient).  Empty
    when a step could fail in Python after others were pushed (a call without gradient,
    a user's ``autograd.Function``, a sparse gradient): a failed backward leaves every
    ``.grad`` as it was, as MXNet's (which checks the whole graph before running it)."""
    uses = {id(entry[0]): 2 for entry in head_entries}
    for node in order:
        if isinstance(node, VariableNode):
            continue
        if isinstance(node, OpNode):
            if not node.op.has_gradient or node.op.input_grad_stypes() is not None:
                return {}
        elif isinstance(node, FunctionNode):
            writes_into = getattr(node.function, "writes_into", None)     # a CachedOp call
            if writes_into is None or not writes_into():
                return {}
        for entry in node.inputs:
            if entry is not None:
                uses[id(entry[0])] = uses.get(id(entry[0]), 0) + 1
    targets = {id(node): node.grad for node in order
               if isinstance(node, VariableNode) and node.grad_req == "write"
               and uses.get(id(node)) == 1 and node.grad is not None
               and node.grad.stype == "default"}
    # one array as the .grad of two variables: the copies decide which value stays
    arrays = [id(grad) for grad in targets.values()]
    if len(set(arrays)) < len(arrays):
        return {}
    return targets


def _accumulate(grads, entry, value):
    grads.setdefault((id(entry[0]), entry[1]), []).append(value)


def _total(values):
    """The sum of the gradients that reached one output: kept apart until the node is
    reached, then added by one ``add_n`` (as MXNet sums them), not one push per addition:
    a weight shared by the 10 steps of a recurrent decoder gets one sum, not 9."""
    if not values:
        return None
    first = values[0]
    if len(values) == 1:
        return first
    if all(v.shape == first.shape and v.dtype == first.dtype for v in values):
        return add_n(*values)
    total = first
    for value in values[1:]:
        total = total + value                       # broadcast or promote as ``+`` does
    return total


def _input_grads(node, out_grads, create_graph, into=None):
    if isinstance(node, OpNode) and not node.op.has_gradient:
        raise GradientError(
            f"operator {node.op.name} has no gradient, and the gradient of the heads reaches "
            f"it; compute it on detached inputs (x.detach()) or outside autograd.record()")
    if isinstance(node, LinkNode) or (isinstance(node, OpNode) and not node.op.differentiable):
        return [None] * len(node.inputs)          # no gradient flows back through it
    if isinstance(node, FunctionNode):
        if into is not None:
            return node.function._run_backward(out_grads, create_graph, into)
        return node.function._run_backward(out_grads, create_graph)
    if create_graph:
        from .higher_order import backward_as_operations
        return backward_as_operations(node, out_grads)
    return push_backward(node, out_grads, into)


def _free(order):
    for node in order:
        node.free()


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Compute the gradients of ``heads`` and store them in the variables' ``.grad``.

    ``grad_req`` of each variable decides: ``'write'`` replaces, ``'add'``
    accumulates, ``'null'`` skips.
    """
    heads, head_grads = _as_lists(heads, head_grads)
    previous_training = set_training(train_mode)
    previous_recording = set_recording(False)
    try:
        order, grads = _run_backward(heads, head_grads, create_graph=False, into_grads=True)
    finally:
        set_recording(previous_recording)
        set_training(previous_training)
    untouched = None
    for node in order:
        if isinstance(node, VariableNode):
            value = grads.get((id(node), 0))
            if value is None and node.grad_req == "write":
                if untouched is None:           # worked out only when some gradient is None
                    untouched = _untouched_variables(order, heads)
                if id(node) in untouched:
                    continue
            _store(node, value)
    if not retain_graph:
        _free(order)


def _untouched_variables(order, heads):
    """The ids of the variables whose ``.grad`` backward leaves as it was: every recorded
    call reading them reads them as an input it declares ``grad_untouched_inputs`` (a loss
    layer's ``label``, as MXNet), and none is a head itself."""
    touched = {id(entry[0]) for entry in map(_entry_of, heads)}
    untouched = set()
    for node in order:
        if not isinstance(node, OpNode):
            touched.update(id(entry[0]) for entry in getattr(node, "inputs", ()) if entry)
            continue
        kept = node.op.grad_untouched_inputs
        names = node.op.list_inputs(len(node.inputs))
        for entry, name in zip(node.inputs, names):
            if entry is not None:
                (untouched if name in kept else touched).add(id(entry[0]))
    return untouched - touched


def _store(variable, value):
    if variable.grad_req == "null":
        return
    variable.fresh_grad = True
    if value is variable.grad:          # the backward step wrote it there (_direct_targets)
        return
    if value is None:
        if variable.grad_req == "write":
            variable.grad[...] = 0      # (a zero-dimensional gradient has no axis to slice)
        return
    if variable.grad_req == "add":
        variable.grad += value
    else:
        value.copyto(variable.grad)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):
    """Return the gradients of ``heads`` with respect to ``variables`` (not stored in ``.grad``),
    as a list (one NDArray per variable, also when ``variables`` is one NDArray, as in MXNet).

    With ``create_graph=True`` the gradients are themselves recorded, so they
    can be differentiated again (second order).
    """
    variables = [variables] if isinstance(variables, NDArray) else list(variables)
    heads, head_grads = _as_lists(heads, head_grads)
    for variable in variables:
        if variable._autograd is None or not isinstance(variable._autograd[0], VariableNode):
            raise GradientError("grad(): every variable must have attach_grad() called first")
    retain_graph = create_graph if retain_graph is None else retain_graph
    previous_training = set_training(train_mode)
    previous_recording = set_recording(create_graph)
    try:
        order, grads = _run_backward(heads, head_grads, create_graph)
    finally:
        set_recording(previous_recording)
        set_training(previous_training)
    results = [grads.get((id(v._autograd[0]), 0)) for v in variables]
    results = [zeros_like(v) if g is None else g for g, v in zip(results, variables)]
    if not retain_graph:
        _free(order)
    return results


def _as_lists(heads, head_grads):
    if isinstance(heads, NDArray):
        heads = [heads]
        head_grads = None if head_grads is None else [head_grads]
    heads = list(heads)
    head_grads = [None] * len(heads) if head_grads is None else list(head_grads)
    if len(head_grads) != len(heads):
        raise GradientError(f"backward: {len(heads)} heads but {len(head_grads)} head gradients")
    return heads, head_grads

