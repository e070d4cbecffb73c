"""Shape and type inference over a symbolic graph: two passes over the node list.

Lesson: 06-symbol, 07-executor.  Mirrors nnvm's ``InferShape``/``InferType``
passes.  Each operator node completes what it can: unknown input shapes from
known ones (``infer_input_shapes``: FullyConnected's weight from its data) and
its output shapes from its inputs.  Passes repeat until nothing changes.
"""
from ..base import InvalidShapeError, InvalidTypeError, normalize_dtype
from ..op.params import Shape
from .graph import topo_order

__all__ = ["infer_shapes", "infer_types"]


def _known(shape):
    return shape is not None and all(size > 0 for size in shape)


def _merge(node, label, old, new):
    """Combine two guesses of one shape; 0 means an unknown size."""
    if new is None:
        return old
    new = tuple(new)
    if old is None:
        return new
    if len(old) != len(new) or any(a and b and a != b for a, b in zip(old, new)):
        raise InvalidShapeError(
            f"shape inference: node '{node.name}' ({node.op_name()}), {label}: "
            f"inconsistent shapes {old} and {new}")
    return tuple(a or b for a, b in zip(old, new))


def _parse_shape_attr(node):
    try:
        return Shape(node.attrs["__shape__"])
    except ValueError:
        raise InvalidShapeError(f"variable '{node.name}': its shape attribute "
                                f"{node.attrs['__shape__']!r} is not a tuple of ints") from None


def infer_shapes(entries, known):
    """Shapes of every entry: {(node, index): shape or None}. ``known``: var name -> shape."""
    order = topo_order(entries)
    shapes = {}
    for node in order:
        if node.is_variable:
            given = known.get(node.name)
            if given is None and "__shape__" in node.attrs:
                given = _parse_shape_attr(node)
            shapes[(node, 0)] = tuple(given) if given is not None and len(given) else None
    changed = True
    while changed:
        changed = False
        for node in order:
            if not node.is_variable:
                changed |= _infer_node(node, shapes)
    return order, shapes


def _infer_node(node, shapes):
    op = node.instance
    # a shape with a 0 (Gluon's "(6, 0)": size unknown) is completed like an unknown one
    inputs = [shape if _known(shape) else None for shape in map(shapes.get, node.inputs)]
    if inputs and inputs[0] is None:
        return False          # as in MXNet, parameters are completed from the data's shape
    completed = op.infer_input_shapes(*inputs)
    changed = False
    for position, (entry, shape) in enumerate(zip(node.inputs, completed)):
        merged = _merge(node, f"input '{node.input_names()[position]}'", shapes.get(entry), shape)
        if merged != shapes.get(entry):
            shapes[entry] = merged
            changed = True
    inputs = [shapes.get(entry) for entry in node.inputs]
    if not all(_known(shape) for shape in inputs) or (node, 0) in shapes:
        return changed
    try:
        outputs = op.output_shapes(inputs)
    except InvalidShapeError as error:
        raise InvalidShapeError(f"shape inference failed at node '{node.name}': {error}") from None
    for index, shape in enumerate(outputs):
        shapes[(node, index)] = shape
    return True


def infer_types(entries, known):
    """Dtypes of every entry: {(node, index): numpy dtype or None}. ``known``: name -> dtype."""
    order = topo_order(entries)
    dtypes = {}
    for node in order:
        if node.is_variable:
            given = known.get(node.name)
            if given is None and "__dtype__" in node.attrs:
                from ..base import FLAG_TO_DTYPE
                given = FLAG_TO_DTYPE[int(node.attrs["__dtype__"])]
            dtypes[(node, 0)] = None if given is None else normalize_dtype(given)
    changed = True
    while changed:
        changed = False
        for node in order:
            if not node.is_variable:
                changed |= _infer_node_type(node, dtypes)
    return order, dtypes


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
    if (node, 0) in dtypes or (node.inputs and not known):
        return changed
    try:
        outputs = node.instance.output_types([dtype.name for dtype in inputs])
    except InvalidTypeError as error:
        raise InvalidTypeError(f"type inference failed at node '{node.name}': {error}") from None
    for index, dtype in enumerate(outputs):
        dtypes[(node, index)] = dtype
    return True
