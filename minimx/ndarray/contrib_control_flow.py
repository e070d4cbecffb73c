"""``nd.contrib.foreach``, ``while_loop`` and ``cond``: control flow on NDArrays.

Lesson: 10-hybridize.  Mirrors the imperative half of MXNet's control-flow operators.  On
NDArrays the loop *is* a Python loop: each step's operators run (and, under
``autograd.record()``, are recorded on the tape) like any other, so the gradient flows
through every step with nothing special.  The symbolic forms (``sym.contrib``) are where a
loop needs an operator of its own: a traced Python loop would be unrolled into the graph.

Bad input raises ``AssertionError`` and ``ValueError`` where MXNet's do.  The bodies may take and return nested lists of arrays; ``flatten`` and ``regroup`` turn such
a structure into a flat list and back (the format is a nested list of ints, as MXNet's).
"""
__all__ = ["foreach", "while_loop", "cond", "flatten", "regroup", "as_python_scalar"]


def flatten(args, what, leaf_type):
    """``args`` (a ``leaf_type`` value or nested lists/tuples of them) as a flat list and
    its format: 0 for one leaf (a multi-output Symbol counts its outputs), else a list of
    the items' formats."""
    if isinstance(args, leaf_type):
        outputs = len(args.list_outputs()) if hasattr(args, "list_outputs") else 1
        return [args], outputs if outputs > 1 else 0
    if not isinstance(args, (list, tuple)):
        raise AssertionError(f"{what} must be a {leaf_type.__name__} or (nested) lists of "
                             f"them, got {type(args).__name__}")
    flat, formats = [], []
    for item in args:
        items, item_format = flatten(item, what, leaf_type)
        flat.extend(items)
        formats.append(item_format)
    return flat, formats


def regroup(flat, fmt):
    """The nested structure ``fmt`` describes, filled from ``flat``; returns it with the
    values left over."""
    if isinstance(fmt, int):
        return (flat[0], flat[1:]) if fmt == 0 else (flat[:fmt], flat[fmt:])
    result = []
    for item_format in fmt:
        item, flat = regroup(flat, item_format)
        result.append(item)
    return result, flat


def as_python_scalar(value, kind, what):
    """``value`` (an NDArray of one element, or a number) as a Python ``kind``."""
    if hasattr(value, "asscalar"):
        value = value.asscalar()
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError(f"Cannot convert {what} to python {kind.__name__}") from None


def _check_arrays(flat, what):
    from .ndarray import NDArray
    for value in flat:
        if not isinstance(value, NDArray):
            raise AssertionError(f"contrib.foreach: {what} should be an NDArray or a nested "
                                 f"list of NDArrays, got {type(value).__name__}")


def foreach(body, data, init_states):
    """Run ``out, states = body(data[i], states)`` for every ``i`` along axis 0 of ``data``
    (an NDArray or a list of them, sliced together); returns the outputs of every step
    stacked on a new axis 0, and the last states."""
    from . import stack
    from .ndarray import NDArray
    _check_arrays(flatten(data, "foreach input", NDArray)[0], "data")
    _check_arrays(flatten(init_states, "foreach states", NDArray)[0], "init_states")
    single = isinstance(data, NDArray)
    steps = data.shape[0] if single else data[0].shape[0]
    states, outputs, out_format = init_states, [], None
    for i in range(steps):
        step_data = data[i] if single else [d[i] for d in data]
        out, states = body(step_data, states)
        out, out_format = flatten(out, "foreach output", NDArray)
        outputs.append(out)
    stacked = [stack(*per_step) for per_step in zip(*outputs)]
    if out_format is not None:
        stacked = regroup(stacked, out_format)[0]
    return stacked, states


def _step(func, loop_vars):
    """One ``while_loop`` step: ``func``'s step outputs and new loop variables, as lists."""
    step_output, new_vars = func(*loop_vars)
    step_output = [] if step_output is None else step_output
    new_vars = [] if new_vars is None else new_vars
    step_output = list(step_output) if isinstance(step_output, tuple) else step_output
    new_vars = list(new_vars) if isinstance(new_vars, (tuple, list)) else [new_vars]
    if len(new_vars) != len(loop_vars):
        raise ValueError(f"while_loop: func returned {len(new_vars)} loop variables, expected "
                         f"{len(loop_vars)} (their number must stay the same)")
    return step_output, new_vars


def while_loop(cond, func, loop_vars, max_iterations=None):
    """Run ``step_output, loop_vars = func(*loop_vars)`` while ``cond(*loop_vars)`` is true,
    at most ``max_iterations`` times.  Returns each step output stacked on axis 0 and
    padded to ``max_iterations`` rows (the rows after the last step are undefined), and
    the final loop variables."""
    from . import concat, empty
    from .ndarray import NDArray
    if max_iterations is None:
        raise ValueError("while_loop: max_iterations should be specified")
    max_iterations = as_python_scalar(max_iterations, int, "max_iteration")
    if len(loop_vars) == 0:
        raise ValueError("while_loop: loop_vars should contain at least one element")
    single = isinstance(loop_vars, NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    outputs, out_format = [], None
    while len(outputs) < max_iterations and \
            as_python_scalar(cond(*loop_vars), bool, "Return value of cond"):
        step_output, loop_vars = _step(func, loop_vars)
        step_output, out_format = flatten(step_output, "while output", NDArray)
        if outputs and len(step_output) != len(outputs[0]):
            raise ValueError(f"while_loop: step {len(outputs)} gave {len(step_output)} "
                             f"outputs, step 0 gave {len(outputs[0])}: the number must stay "
                             f"the same")
        outputs.append(step_output)
    stacked = []
    for position, per_step in enumerate(zip(*outputs)):
        rows = [x.expand_dims(0) for x in per_step]
        if len(rows) != max_iterations:
            first = per_step[0]
            rows.append(empty((max_iterations - len(rows),) + first.shape,
                              ctx=first.context, dtype=first.dtype))
        shapes = {x.shape[1:] for x in rows}
        if len(shapes) > 1:
            raise ValueError(f"while_loop: shapes of the {position}-th step outputs are "
                             f"inconsistent: " + ", ".join(
                                 f"step {i}: {x.shape[1:]}" for i, x in enumerate(rows)))
        stacked.append(concat(*rows, dim=0))
    if out_format is not None:
        stacked = regroup(stacked, out_format)[0]
    return stacked, (loop_vars[0] if single else loop_vars)


def cond(pred, then_func, else_func):
    """``then_func()`` if ``pred`` (a one-element NDArray) is true, else ``else_func()``."""
    if as_python_scalar(pred, bool, "pred"):
        return then_func()
    return else_func()
