"""MXNet's reshape codes: 0 copy, -1 infer, -2 copy the rest, -3 merge two, -4 split one.

Lesson: 02-ndarray-and-context.
Mirrors ``InferReshapeShape`` in ``src/operator/tensor/matrix_op-inl.h``.
Used by the ``Reshape`` operator and by ``NDArray.reshape`` (a view).
``reverse=True`` reads the input's dims and the codes from the right: both are reversed,
the codes applied, and the result reversed back (so a ``-4`` comes *after* its two values:
``(16, 4, -4)``).

>>> reshape_target((2, 3, 4), (-4, 1, 2, -3))
(1, 2, 12)
>>> partial_reshape_target((0, 3, 4), (0, -3))     # 0: a size not known yet
(0, 12)
"""
import math

from ..base import InvalidShapeError

__all__ = ["reshape_target", "partial_reshape_target"]

UNKNOWN = None       # a size not known yet, inside this module


def reshape_target(in_shape, spec, reverse=False, op_name="Reshape"):
    """The output shape for ``spec`` applied to the (known) shape ``in_shape``."""
    in_shape, spec = tuple(in_shape), tuple(int(v) for v in spec)
    out = _codes_applied(in_shape, spec, reverse, op_name)
    total = math.prod(in_shape)
    _need(math.prod(out) == total, op_name, in_shape, spec,
          f"sizes differ ({total} vs {math.prod(out)} elements)")
    return out


def partial_reshape_target(in_shape, spec, reverse=False, op_name="Reshape"):
    """The output shape, with 0 for each size that stays unknown, when ``in_shape`` has
    unknown sizes (0), as MXNet infers it: a code that copies an unknown size copies it
    unknown, ``-3`` of an unknown is unknown, and ``-1`` is unknown until every input size
    is known (even where the other sizes would tell it)."""
    in_shape = tuple(UNKNOWN if size == 0 else size for size in in_shape)
    out = _codes_applied(in_shape, tuple(int(v) for v in spec), reverse, op_name)
    return tuple(0 if size is UNKNOWN else size for size in out)


def _codes_applied(shape, spec, reverse, op_name):
    """The codes applied left to right (after reversing both for ``reverse``)."""
    if reverse:
        return tuple(reversed(_apply(shape[::-1], spec[::-1], shape, spec, op_name)))
    return _apply(shape, spec, shape, spec, op_name)


def _error(op_name, in_shape, spec, message):
    shown = tuple(0 if size is UNKNOWN else size for size in in_shape)
    return InvalidShapeError(f"operator {op_name}: cannot reshape {shown} to {spec}: {message}")


def _apply(shape, spec, original, original_spec, op_name):
    def need(condition, message):
        _need(condition, op_name, original, original_spec, message)

    out, source, index, infer_at = [], 0, 0, None
    while index < len(spec):
        code = spec[index]
        if code == 0:
            need(source < len(shape), "0 past the last dim")
            out.append(shape[source])
            source += 1
        elif code == -1:
            need(infer_at is None, "more than one -1")
            infer_at = len(out)
            out.append(UNKNOWN)
            source += 1
        elif code == -2:
            out.extend(shape[source:])
            source = len(shape)
        elif code == -3:
            need(source + 1 < len(shape), "-3 needs two input dims")
            first, second = shape[source:source + 2]
            out.append(UNKNOWN if UNKNOWN in (first, second) else first * second)
            source += 2
        elif code == -4:
            need(index + 2 < len(spec) and source < len(shape), "-4 needs a dim and two values")
            out += _split(shape[source], spec[index + 1], spec[index + 2], need)
            source += 1
            index += 2
        elif code > 0:
            out.append(code)
            source += 1
        else:
            raise _error(op_name, original, original_spec, f"unknown code {code}")
        index += 1
    if infer_at is not None and UNKNOWN not in shape:
        known = math.prod(size for size in out if size is not UNKNOWN)
        need(known != 0 and math.prod(shape) % known == 0, "the -1 dim cannot be inferred")
        out[infer_at] = math.prod(shape) // known
    return tuple(out)


def _split(whole, first, second, need):
    """``-4``'s two sizes for the dim ``whole`` (one of them may be -1)."""
    need(first != -1 or second != -1, "-4 cannot infer both of its sizes")
    if whole is UNKNOWN:
        return [UNKNOWN if first == -1 else first, UNKNOWN if second == -1 else second]
    if first == -1:
        first = whole // second if second else 0
    if second == -1:
        second = whole // first if first else 0
    need(first * second == whole, f"-4 cannot split {whole} into {first} x {second}")
    return [first, second]


def _need(condition, op_name, in_shape, spec, message):
    if not condition:
        raise _error(op_name, in_shape, spec, message)
