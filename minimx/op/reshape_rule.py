"""MXNet's reshape codes: 0 copy, -1 infer, -2 copy the rest, -3 merge two, -4 split one.

Lesson: 02-ndarray-and-context.
Mirrors ``ReshapeShape`` in ``src/operator/tensor/matrix_op-inl.h``.
Used by the ``Reshape`` operator and by ``NDArray.reshape`` (a view).

>>> reshape_target((2, 3, 4), (-4, 1, 2, -3))
(1, 2, 12)
"""
import math

from ..base import InvalidShapeError

__all__ = ["reshape_target"]


def reshape_target(in_shape, spec, reverse=False, op_name="Reshape"):
    """The output shape for ``spec`` applied to ``in_shape``."""
    in_shape, spec = tuple(in_shape), tuple(int(v) for v in spec)
    if reverse:
        return tuple(reversed(_apply(tuple(reversed(in_shape)), _reverse_spec(spec),
                                     in_shape, spec, op_name)))
    return _apply(in_shape, spec, in_shape, spec, op_name)


def _reverse_spec(spec):
    """Reverse the codes, keeping each -4's two following values with it."""
    groups, index = [], 0
    while index < len(spec):
        width = 3 if spec[index] == -4 else 1
        groups.append(spec[index:index + width])
        index += width
    result = []
    for group in reversed(groups):
        result += [group[0], group[2], group[1]] if group[0] == -4 else list(group)
    return tuple(result)


def _error(op_name, in_shape, spec, message):
    return InvalidShapeError(
        f"operator {op_name}: cannot reshape {in_shape} to {spec}: {message}")


def _apply(shape, spec, original, original_spec, op_name):
    out, source, index, infer_at = [], 0, 0, None
    while index < len(spec):
        code = spec[index]
        if code == 0:
            _need(source < len(shape), op_name, original, original_spec, "0 past the last dim")
            out.append(shape[source])
            source += 1
        elif code == -1:
            if infer_at is not None:
                raise _error(op_name, original, original_spec, "more than one -1")
            infer_at = len(out)
            out.append(-1)
            source += 1
        elif code == -2:
            out.extend(shape[source:])
            source = len(shape)
        elif code == -3:
            _need(source + 1 < len(shape), op_name, original, original_spec,
                  "-3 needs two input dims")
            out.append(shape[source] * shape[source + 1])
            source += 2
        elif code == -4:
            _need(index + 2 < len(spec) and source < len(shape), op_name, original,
                  original_spec, "-4 needs a dim and two values")
            first, second = spec[index + 1], spec[index + 2]
            whole = shape[source]
            if first == -1:
                first = whole // second if second else 0
            if second == -1:
                second = whole // first if first else 0
            _need(first * second == whole, op_name, original, original_spec,
                  f"-4 cannot split {whole} into {first} x {second}")
            out += [first, second]
            source += 1
            index += 2
        elif code > 0:
            out.append(code)
            source += 1
        else:
            raise _error(op_name, original, original_spec, f"unknown code {code}")
        index += 1
    total = math.prod(original)
    if infer_at is not None:
        known = math.prod(d for d in out if d != -1)
        _need(known != 0 and total % known == 0, op_name, original, original_spec,
              "the -1 dim cannot be inferred")
        out[infer_at] = total // known
    _need(math.prod(out) == total, op_name, original, original_spec,
          f"sizes differ ({total} vs {math.prod(out)} elements)")
    return tuple(out)


def _need(condition, op_name, in_shape, spec, message):
    if not condition:
        raise _error(op_name, in_shape, spec, message)
