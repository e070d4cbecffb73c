"""Shape and type inference over a symbolic graph: two passes over the node list.

Lesson: 07-symbolic-programming, 08-executors.  Mirrors nnvm's ``InferShape``/``InferType``
passes.  Each operator node completes what it can: unknown input shapes from
known ones (``infer_input_shapes``: FullyConnected's weight from its data), from
known outputs (``infer_input_shapes_from_outputs``: a Reshape's input), and its
output shapes from its inputs.  Passes repeat until nothing changes.

Shapes may be partly known: ``0`` is an unknown size (MXNet's legacy convention;
``(0, 10)`` is "some batch of 10 features"; under ``mx.np_shape()`` the mark is ``-1``
and ``0`` is an empty axis).  Partial shapes flow both ways:
elementwise operators merge the shapes of their inputs and output
(``shaped_like_output``), an operator with its own rule for partly known inputs gives
it (``infer_partial_shapes``: Reshape), and any other operator's output sizes are found by
*sampling*: its shape rule runs twice, every unknown size replaced by a stand-in (two
different primes), and an output size that comes out the same both times does not depend
on the unknowns (``sampled_output_shapes``).
"""
import functools

from ..base import InvalidShapeError, InvalidTypeError, MXNetError, normalize_dtype
from ..op.params import Shape
from ..util import is_np_shape
from .graph import topo_order

__all__ = ["infer_shapes", "infer_types"]


def _unknown_size(size):
    """0 marks an unknown size under MXNet's legacy shapes; under ``mx.np_shape()`` it is
    -1, and 0 is a real (empty) size.  (A positive size is known either way: the mode, a
    thread-local look-up, is asked only for 0.)"""
    return size < 0 or (size == 0 and not is_np_shape())


def _unknown_marker():
    return -1 if is_np_shape() else 0


def _known(shape):
    if shape is None:
        return False
    if not shape:
        return True           # () is a scalar here (whether unknown is the caller's choice)
    smallest = min(shape)
    return smallest > 0 or (smallest == 0 and is_np_shape())


def _merge(node, label, old, new):
    """Combine two guesses of one shape, each with unknown sizes marked."""
    if new is None:
        return old
    new = tuple(new)
    if old is None:
        return new
    if len(old) != len(new) or any(not _unknown_size(a) and not _unknown_size(b) and a != b
                                   for a, b in zip(old, new)):
        raise InvalidShapeError(
            f"shape inference: node '{node.name}' ({node.op_name()}), {label}: "
            f"inconsistent shapes {old} and {new}")
    return tuple(b if _unknown_size(a) else a for a, b in zip(old, new))


def _legacy(shapes):
    """Shapes as the operators' completion rules read them (0: unknown size)."""
    if not is_np_shape():
        return list(shapes)
    return [None if shape is None else tuple(0 if size < 0 else size for size in shape)
            for shape in shapes]


def _from_legacy(shapes):
    if not is_np_shape():
        return list(shapes)
    return [None if shape is None else tuple(-1 if size == 0 else size for size in shape)
            for shape in shapes]


def _parse_shape_attr(node):
    try:
        return Shape(node.attrs["__shape__"])
    except ValueError:
        raise InvalidShapeError(f"variable '{node.name}': its shape attribute "
                                f"{node.attrs['__shape__']!r} is not a tuple of ints") from None


def _solve(entries, seed, step, settled, order=None):
    """The fixed point behind shape and type inference: ``seed(node)`` gives each variable's
    value, then ``step(node, values)`` runs over the operator nodes until none changes.
    ``order``: the graph's ``topo_order``, when the caller has it already (a Symbol keeps
    its own: ``Symbol._order``).

    A value once known never changes (a merge only fills unknown parts, a conflict raises),
    so a node that is ``settled(node, values)`` after its step -- every input known, its
    outputs computed from them -- would change nothing on a later pass and leaves the loop.
    With every input of the graph given, one pass does it all."""
    order = topo_order(entries) if order is None else order
    values = {(node, 0): seed(node) for node in order if node.is_variable}
    pending = [node for node in order if not node.is_variable]
    changed = True
    while changed and pending:
        changed = False
        unsettled = []
        for node in pending:
            changed |= step(node, values)
            if not settled(node, values):
                unsettled.append(node)
        pending = unsettled
    return order, values


def infer_shapes(entries, known, order=None):
    """Shapes of every entry: {(node, index): shape or None}. ``known``: var name -> shape;
    ``order``: the entries' ``topo_order`` if known."""
    def seed(node):
        given = known.get(node.name)
        if given is None and "__shape__" in node.attrs:
            given = _parse_shape_attr(node)
        if given is None or (not len(given) and not is_np_shape()):
            return None               # () is unknown under legacy shapes, a scalar under np
        return tuple(given)
    return _solve(entries, seed, _infer_node, _inputs_known, order)


def _inputs_known(node, shapes):
    """After its step, a node with every input shape known has its outputs from them."""
    return all(_known(shapes.get(entry)) for entry in node.inputs)


def _infer_node(node, shapes):
    """One node's four steps; True if some shape became (more) known.  With every input
    known (a graph whose inputs are all given: each node on the one pass), the first three
    have nothing to do and only the outputs are computed."""
    if _inputs_known(node, shapes):
        return _infer_outputs(node, shapes)
    changed = _complete_inputs_forward(node, shapes)
    changed |= _complete_inputs_backward(node, shapes)
    changed |= _complete_partially(node, shapes)
    return _infer_outputs(node, shapes) or changed


_STAND_INS = (1009, 2003)        # sizes tried in place of an unknown one (0)
_RULE_ERRORS = (MXNetError, ArithmeticError, ValueError, TypeError, IndexError)


def sampled_output_shapes(op, input_shapes):
    """Output shapes (0 for the sizes that stay unknown) from input shapes with unknown
    sizes, or None when the rule refuses the stand-ins or an input shape is missing."""
    if any(shape is None for shape in input_shapes):
        return None
    trials = []
    for stand_in in _STAND_INS:
        filled = [tuple(stand_in if _unknown_size(size) else size for size in shape)
                  for shape in input_shapes]
        try:
            trials.append([tuple(shape) for shape in op.output_shapes(filled)])
        except _RULE_ERRORS:
            return None
    first, second = trials
    if [len(shape) for shape in first] != [len(shape) for shape in second]:
        return None
    unknown = _unknown_marker()
    result = [tuple(a if a == b else unknown for a, b in zip(one, other))
              for one, other in zip(first, second)]
    if op.axiswise_shapes:
        result[0] = tuple(unknown if _unknown_size(source) else size
                          for size, source in zip(result[0], input_shapes[0]))
    return result


def _complete_partially(node, shapes):
    """What partly known shapes tell: elementwise inputs and output merged, other outputs
    sampled from partly known inputs."""
    entries = list(node.inputs)
    inputs = [shapes.get(entry) for entry in entries]
    outputs = [shapes.get((node, index)) for index in range(node.num_outputs())]
    if all(_known(shape) for shape in inputs):
        return False              # _infer_outputs has all it needs (and checks the rule)
    op = node.instance
    changed = False
    alike = [position for position in op.shaped_like_output() if position < len(entries)]
    if alike:
        group = [inputs[position] for position in alike] + outputs[:1]
        merged = None
        for shape in group:
            try:
                merged = _merge(node, "elementwise shapes", merged, shape)
            except InvalidShapeError:
                raise op.shape_error(f"inputs {list(alike)} and output 0 must have the same "
                                     f"shape, got {[s for s in group if s is not None]}") from None
        if merged is not None:
            changed = _merge_all(node, shapes, [entries[p] for p in alike] + [(node, 0)],
                                 [f"input {p}" for p in alike] + ["output 0"],
                                 [merged] * (len(alike) + 1))
            inputs = [shapes.get(entry) for entry in entries]
    if op.partial_shapes and not all(_known(shape) for shape in inputs):
        sampled = _own_partial_shapes(node, inputs) or sampled_output_shapes(op, inputs)
        if sampled is not None:
            indices = range(len(sampled))
            changed |= _merge_all(node, shapes, [(node, index) for index in indices],
                                  [f"output {index}" for index in indices], sampled)
    return changed


def _own_partial_shapes(node, inputs):
    """The operator's own rule for partly known inputs (``infer_partial_shapes``), or None."""
    if any(shape is None for shape in inputs):
        return None
    try:
        own = node.instance.infer_partial_shapes(*_legacy(inputs))
    except InvalidShapeError as error:
        raise _failed_at(node, error) from None
    return None if own is None else _from_legacy([tuple(shape) for shape in own])


def _failed_at(node, error):
    return InvalidShapeError(f"shape inference failed at node '{node.name}': {error}",
                             node_name=node.name, detail=str(error))


def _merge_all(node, shapes, entries, labels, new_shapes):
    """Merge each new shape into its entry; True if some entry changed."""
    changed = False
    for entry, label, shape in zip(entries, labels, new_shapes):
        merged = _merge(node, label, shapes.get(entry), shape)
        if merged != shapes.get(entry):
            shapes[entry] = merged
            changed = True
    return changed


def _update_inputs(node, shapes, completed):
    labels = [f"input '{name}'" for name in node.input_names()]
    return _merge_all(node, shapes, node.inputs, labels, completed)


def _complete_inputs_forward(node, shapes):
    """Unknown inputs from known ones (FullyConnected's weight from its data)."""
    # a parameter with a 0 (Gluon's "(6, 0)": size unknown) is completed like an unknown one;
    # the data may itself hold a 0 (an unknown batch size) and still tell the parameters
    inputs = [shapes.get(entry) for entry in node.inputs]
    inputs = inputs[:1] + [shape if _known(shape) else None for shape in inputs[1:]]
    if not inputs or inputs[0] is None or (None not in inputs and _known(inputs[0])):
        return False      # as in MXNet, parameters are completed from the data's shape
    try:
        completed = _from_legacy(node.instance.infer_input_shapes(*_legacy(inputs)))
    except InvalidShapeError as error:
        if _known(inputs[0]):
            raise _failed_at(node, error) from None
        return False      # a partly known data shape may not be enough for this operator
    except (MXNetError, ArithmeticError, ValueError, TypeError, IndexError):
        if _known(inputs[0]):
            raise
        return False      # a partly known data shape may not be enough for this operator
    return _update_inputs(node, shapes, completed)


def _complete_inputs_backward(node, shapes):
    """Unknown inputs from known outputs (a Reshape's input from its output's size)."""
    inputs = [shapes.get(entry) for entry in node.inputs]
    outputs = [shapes.get((node, index)) for index in range(node.num_outputs())]
    if all(_known(shape) for shape in inputs) or all(s is None for s in outputs):
        return False
    completed = node.instance.infer_input_shapes_from_outputs(_legacy(inputs),
                                                              _legacy(outputs))
    return _update_inputs(node, shapes, _from_legacy(completed))


def _infer_outputs(node, shapes):
    """Output shapes once every input is known (checked against any guessed already)."""
    inputs = [shapes.get(entry) for entry in node.inputs]
    if not all(_known(shape) for shape in inputs):
        return False      # an output computed from a partly known input could look known
    try:
        outputs = node.instance.output_shapes(inputs)
    except InvalidShapeError as error:
        raise _failed_at(node, error) from None
    indices = range(len(outputs))
    return _merge_all(node, shapes, [(node, index) for index in indices],
                      [f"output {index}" for index in indices], outputs)


def _failed_at(node, error):
    """The operator's shape error, naming the graph node it failed at."""
    return InvalidShapeError(f"shape inference failed at node '{node.name}': {error}",
                             node_name=node.name, detail=str(error))


def infer_types(entries, known, order=None):
    """Dtypes of every entry: {(node, index): numpy dtype or None}. ``known``: name -> dtype;
    ``order`` as in ``infer_shapes``."""
    def seed(node):
        given = known.get(node.name)
        if given is None and "__dtype__" in node.attrs:
            from ..base import FLAG_TO_DTYPE
            given = FLAG_TO_DTYPE[int(node.attrs["__dtype__"])]
        return None if given is None else normalize_dtype(given)
    return _solve(entries, seed, _infer_node_type, _types_settled, order)


def _types_settled(node, dtypes):
    """Every input dtype known and the outputs' set: later steps change nothing."""
    return (node, 0) in dtypes and all(dtypes.get(entry) is not None for entry in node.inputs)


def _infer_node_type(node, dtypes):
    inputs = [dtypes.get(entry) for entry in node.inputs]
    known = [dtype for dtype in inputs if dtype is not None]
    changed = False
    if known:      # an unknown input takes the dtype of the first known one (MXNet's default)
        for entry in node.inputs:
            if dtypes.get(entry) is None:
                dtypes[entry] = known[0]
                changed = True
        inputs = [dtypes[entry] for entry in node.inputs]
    if (node, 0) in dtypes:
        return changed
    if node.inputs and not known:
        return _sampled_types(node, len(inputs), dtypes) or changed
    try:
        outputs = node.instance.output_types([dtype_name(dtype) for dtype in inputs])
    except InvalidTypeError as error:
        raise InvalidTypeError(f"type inference failed at node '{node.name}': {error}") from None
    for index, dtype in enumerate(outputs):
        dtypes[(node, index)] = dtype
    return True


@functools.lru_cache(maxsize=None)
def dtype_name(dtype):
    """``dtype.name``, remembered: numpy computes the name anew, in Python, each time."""
    return dtype.name


def _sampled_types(node, count, dtypes):
    """Output dtypes that do not depend on the unknown input dtypes (``Cast``'s): the type
    rule runs with two stand-ins, and an output that comes out the same both times is
    known (as the shape sampling above)."""
    trials = []
    for stand_in in ("float32", "float64"):
        try:
            trials.append(node.instance.output_types([stand_in] * count))
        except (MXNetError, TypeError, ValueError):
            return False
    if trials[0] != trials[1]:
        return False
    for index, dtype in enumerate(trials[0]):
        dtypes[(node, index)] = dtype
    return True
