"""Operators that move elements without computing new values: reshape, transpose, concat, slice.

Lesson: 02-ndarray.  Mirrors ``src/operator/tensor/matrix_op.cc``, ``slice_channel.cc``,
``concat.cc``, ``pad.cc`` and ``broadcast_reduce_op_value.cc`` (broadcast_to).  Every
gradient here routes ``out_grad`` back to where each element came from: a reshape
or transpose undoes itself, a slice writes into zeros, a tile or broadcast sums
the copies.
"""
import itertools
import math
import re

from .common import normalize_axes, sum_to_shape
from .params import Axis, Choice, Optional, Param, Shape
from .reshape_rule import reshape_target
from .registry import OpDef, TestHints, register_op


def OptionalIntTuple(value):
    """A tuple whose items are ints or None, e.g. ``(None, 2)`` or the string ``"(None, 2)"``."""
    if isinstance(value, str):
        items = [item.strip() for item in value.strip().strip("()[]").split(",")]
        items = [item for item in items if item]
        parsed = []
        for item in items:
            if item in ("None", "none"):
                parsed.append(None)
            elif re.fullmatch(r"-?\d+", item):
                parsed.append(int(item))
            else:
                raise ValueError(f"cannot read {item!r} as an int or None")
        return tuple(parsed)
    if value is None:
        return ()
    if isinstance(value, int):
        return (value,)
    return tuple(None if item is None else int(item) for item in value)


OptionalIntTuple.type_name = "a tuple of ints or None"


def _axis(op, axis, ndim):
    """One axis, negative allowed, checked against ``ndim``."""
    return normalize_axes(op, axis, ndim)[0]


# Targets worked out by hand (and checked against MXNet 1.9.1) for the test cases above.
_RESHAPE_EXAMPLES = {((0, -1), False): (2, 12), ((-4, 1, 2, -3), False): (1, 2, 12),
                     ((-2, 1), False): (2, 3, 1), ((-1, 0), True): (6, 4)}


# -- reshaping ----------------------------------------------------------------------------------
@register_op
class Reshape(OpDef):
    """A new shape for the same elements; codes 0, -1, -2, -3, -4 as in MXNet.

    ``0`` copies a dim, ``-1`` infers one, ``-2`` copies the rest, ``-3`` merges two,
    ``-4`` splits one into the next two values; ``reverse`` reads the codes from the right.
    """
    name = "Reshape"
    aliases = ("reshape",)
    params = {"shape": Param(Shape, default=(), doc="the target shape, with codes"),
              "reverse": Param(bool, default=False, doc="apply the codes right to left")}
    saves = ("data_shape",)
    test = TestHints(shapes=((2, 3, 4),), params={"shape": (0, -1)},
                     cases=(({"shape": (-4, 1, 2, -3)}, ((2, 3, 4),)),
                            ({"shape": (-2, 1)}, ((2, 3),)),
                            ({"shape": (-1, 0), "reverse": True}, ((2, 3, 4),))),
                     reference=lambda np, x, shape, reverse=False, **_:
                     x.reshape(_RESHAPE_EXAMPLES[tuple(shape), bool(reverse)]))

    def infer_shape(self, data):
        return reshape_target(data, self.shape, self.reverse, self.name)

    def forward(self, xp, data):
        return data.reshape(self.infer_shape(data.shape))

    def backward(self, xp, out_grad, data_shape):
        return out_grad.reshape(data_shape)


def _reference_reshape_like(np, a, b, lhs_begin=None, lhs_end=None, rhs_begin=None,
                            rhs_end=None, **_):
    if lhs_begin is None and lhs_end is None:
        return a.reshape(b.shape)
    return a.reshape(b.shape[rhs_begin:rhs_end] + a.shape[lhs_end:])


@register_op
class ReshapeLike(OpDef):
    """``lhs`` reshaped so that dims ``lhs_begin:lhs_end`` take ``rhs``'s dims
    ``rhs_begin:rhs_end`` (all of them by default)."""
    name = "reshape_like"
    inputs = ("lhs", "rhs")
    params = {"lhs_begin": Param(Optional(int), default=None),
              "lhs_end": Param(Optional(int), default=None),
              "rhs_begin": Param(Optional(int), default=None),
              "rhs_end": Param(Optional(int), default=None)}
    saves = ("lhs_shape",)
    method = True
    test = TestHints(shapes=((2, 6), (3, 4)), reference=_reference_reshape_like,
                     cases=(({"lhs_begin": 0, "lhs_end": 1, "rhs_begin": 0, "rhs_end": 2},
                             ((6, 2), (3, 2, 5))),))

    def infer_shape(self, lhs, rhs):
        lhs, rhs = tuple(lhs), tuple(rhs)
        lhs_part = slice(self.lhs_begin, self.lhs_end)
        rhs_part = slice(self.rhs_begin, self.rhs_end)
        start, stop, _ = lhs_part.indices(len(lhs))
        shape = lhs[:start] + rhs[rhs_part] + lhs[max(start, stop):]
        if math.prod(shape) != math.prod(lhs):
            raise self.shape_error(f"cannot reshape lhs {lhs} to {shape} (from rhs {rhs})")
        return shape

    def forward(self, xp, lhs, rhs):
        return lhs.reshape(self.infer_shape(lhs.shape, rhs.shape))

    def backward(self, xp, out_grad, lhs_shape):
        return out_grad.reshape(lhs_shape), None


@register_op
class Flatten(OpDef):
    """Collapse every axis but the first: shape ``(n, d1, d2, ...)`` becomes
    ``(n, d1*d2*...)``."""
    name = "Flatten"
    aliases = ("flatten",)
    method = "flatten"
    saves = ("data_shape",)
    test = TestHints(shapes=((2, 3, 2),), reference=lambda np, x, **_: x.reshape(x.shape[0], -1))

    def infer_shape(self, data):
        if not data:
            raise self.shape_error("expected at least 1 dim, got a 0-d input")
        return (data[0], math.prod(data[1:]))

    def forward(self, xp, data):
        return data.reshape(self.infer_shape(data.shape))

    def backward(self, xp, out_grad, data_shape):
        return out_grad.reshape(data_shape)


@register_op
class ExpandDims(OpDef):
    """Insert an axis of length 1 at position ``axis`` (in ``[-ndim-1, ndim]``)."""
    name = "expand_dims"
    params = {"axis": Param(int, doc="where the new axis goes")}
    method = True
    saves = ("data_shape",)
    test = TestHints(params={"axis": -1},
                     reference=lambda np, x, axis=-1, **_: np.expand_dims(x, axis),
                     cases=(({"axis": 0}, ((2, 3),)),))

    def infer_shape(self, data):
        ndim = len(data)
        if not -ndim - 1 <= self.axis <= ndim:
            raise self.shape_error(f"axis {self.axis} is out of range for {ndim} dims")
        axis = self.axis % (ndim + 1)
        return tuple(data[:axis]) + (1,) + tuple(data[axis:])

    def forward(self, xp, data):
        return data.reshape(self.infer_shape(data.shape))

    def backward(self, xp, out_grad, data_shape):
        return out_grad.reshape(data_shape)


@register_op
class Squeeze(OpDef):
    """Remove axes of length 1 (the given ones, or all); a result with no dims has shape (1,)."""
    name = "squeeze"
    params = {"axis": Param(Axis, default=None, doc="axes to remove; None: every length-1 axis")}
    method = True
    saves = ("data_shape",)
    test = TestHints(shapes=((1, 3, 1),),
                     reference=lambda np, x, axis=None, **_: np.squeeze(x, axis),
                     cases=(({"axis": (0,)}, ((1, 3, 1),)),))

    def infer_shape(self, data):
        if self.axis is None:
            axes = [i for i, size in enumerate(data) if size == 1]
        else:
            axes = normalize_axes(self, self.axis, len(data))
        for axis in axes:
            if data[axis] != 1:
                raise self.shape_error(f"cannot squeeze axis {axis} of length {data[axis]} "
                                       f"in shape {tuple(data)}")
        shape = tuple(size for i, size in enumerate(data) if i not in axes)
        return shape or (1,)

    def forward(self, xp, data):
        return data.reshape(self.infer_shape(data.shape))

    def backward(self, xp, out_grad, data_shape):
        return out_grad.reshape(data_shape)


# -- permuting axes ---------------------------------------------------------------------------
@register_op
class Transpose(OpDef):
    """Permute the axes (reverse them when ``axes`` is empty)."""
    name = "transpose"
    params = {"axes": Param(Shape, default=(), doc="the new order of the axes")}
    method = True
    test = TestHints(shapes=((2, 3, 4),), params={"axes": (1, 0, 2)},
                     reference=lambda np, x, axes=(), **_: np.transpose(x, axes or None),
                     cases=(({"axes": ()}, ((2, 3, 4),)),))

    def _axes(self, ndim):
        if not self.axes:
            return tuple(reversed(range(ndim)))
        axes = tuple(axis % ndim if -ndim <= axis < ndim else -1 for axis in self.axes)
        if sorted(axes) != list(range(ndim)):
            raise self.shape_error(f"axes {self.axes} are no permutation of {ndim} dims")
        return axes

    def infer_shape(self, data):
        return tuple(data[axis] for axis in self._axes(len(data)))

    def forward(self, xp, data):
        return xp.transpose(data, self._axes(data.ndim))

    def backward(self, xp, out_grad):
        axes = self._axes(out_grad.ndim)
        inverse = sorted(range(len(axes)), key=axes.__getitem__)
        return xp.transpose(out_grad, inverse)


@register_op
class SwapAxis(OpDef):
    """Exchange two axes."""
    name = "SwapAxis"
    aliases = ("swapaxes",)
    method = "swapaxes"
    params = {"dim1": Param(int, default=0), "dim2": Param(int, default=0)}
    test = TestHints(shapes=((2, 3, 4),), params={"dim1": 0, "dim2": 2},
                     reference=lambda np, x, dim1=0, dim2=0, **_: np.swapaxes(x, dim1, dim2))

    def infer_shape(self, data):
        shape = list(data)
        first, second = _axis(self, self.dim1, len(data)), _axis(self, self.dim2, len(data))
        shape[first], shape[second] = shape[second], shape[first]
        return tuple(shape)

    def forward(self, xp, data):
        return xp.swapaxes(data, self.dim1, self.dim2)

    def backward(self, xp, out_grad):
        return xp.swapaxes(out_grad, self.dim1, self.dim2)


# -- joining and splitting -------------------------------------------------------------------
@register_op
class Concat(OpDef):
    """Join arrays along axis ``dim``; the other dims must agree."""
    name = "Concat"
    aliases = ("concat",)
    variadic = True
    params = {"num_args": Param(int, default=1, doc="how many inputs"),
              "dim": Param(int, default=1, doc="the axis to join along")}
    saves = ("input_shapes",)
    test = TestHints(shapes=((2, 3), (2, 1), (2, 2)),
                     reference=lambda np, *xs, dim=1, **_: np.concatenate(xs, axis=dim),
                     cases=(({"dim": 0}, ((1, 3), (2, 3))),))

    def infer_shape(self, *shapes):
        if not shapes:
            raise self.shape_error("expected at least one input")
        first = tuple(shapes[0])
        axis = _axis(self, self.dim, len(first))
        for shape in shapes[1:]:
            if len(shape) != len(first) or any(
                    a != b for i, (a, b) in enumerate(zip(shape, first)) if i != axis):
                raise self.shape_error(f"cannot join shapes {[tuple(s) for s in shapes]} "
                                       f"along axis {self.dim}")
        return first[:axis] + (sum(s[axis] for s in shapes),) + first[axis + 1:]

    def infer_type(self, *dtypes):
        return dtypes[0]

    def forward(self, xp, *arrays):
        return xp.concatenate(arrays, axis=self.dim)

    def backward(self, xp, out_grad, input_shapes):
        axis = _axis(self, self.dim, out_grad.ndim)
        boundaries = list(itertools.accumulate(shape[axis] for shape in input_shapes))
        return tuple(xp.split(out_grad, boundaries[:-1], axis=axis))


@register_op
class Stack(OpDef):
    """Join arrays of one shape along a new axis ``axis``."""
    name = "stack"
    variadic = True
    params = {"axis": Param(int, default=0, doc="position of the new axis"),
              "num_args": Param(int, default=1, doc="how many inputs")}
    test = TestHints(shapes=((2, 3), (2, 3)), params={"axis": -1},
                     reference=lambda np, *xs, axis=0, **_: np.stack(xs, axis=axis))

    def _position(self, ndim):
        if not -ndim - 1 <= self.axis <= ndim:
            raise self.shape_error(f"axis {self.axis} is out of range for {ndim}-dim inputs")
        return self.axis % (ndim + 1)

    def infer_shape(self, *shapes):
        first = tuple(shapes[0])
        if any(tuple(shape) != first for shape in shapes):
            raise self.shape_error(f"inputs must have one shape, got {[tuple(s) for s in shapes]}")
        axis = self._position(len(first))
        return first[:axis] + (len(shapes),) + first[axis:]

    def infer_type(self, *dtypes):
        return dtypes[0]

    def forward(self, xp, *arrays):
        return xp.stack(arrays, axis=self._position(arrays[0].ndim))

    def backward(self, xp, out_grad):
        axis = self._position(out_grad.ndim - 1)
        return tuple(xp.take(out_grad, index, axis=axis)
                     for index in range(out_grad.shape[axis]))


def _reference_split(np, x, num_outputs, axis=1, squeeze_axis=False, **_):
    parts = np.split(x, num_outputs, axis=axis)
    return tuple(np.squeeze(part, axis) if squeeze_axis else part for part in parts)


@register_op
class SliceChannel(OpDef):
    """Split ``data`` into ``num_outputs`` equal parts along ``axis``; returns a list."""
    name = "SliceChannel"
    aliases = ("split",)
    method = "split"
    params = {"num_outputs": Param(int, doc="how many parts"),
              "axis": Param(int, default=1, doc="the axis to split"),
              "squeeze_axis": Param(bool, default=False, doc="drop the split axis (parts of 1)")}
    test = TestHints(shapes=((2, 4),), params={"num_outputs": 2},
                     reference=_reference_split,
                     cases=(({"num_outputs": 3, "axis": 0, "squeeze_axis": True}, ((3, 2),)),))

    def check_params(self):
        if self.num_outputs < 1:
            raise self.param_error(f"num_outputs must be at least 1, got {self.num_outputs}")

    def list_outputs(self):
        return tuple(f"output{index}" for index in range(self.num_outputs))

    def infer_shape(self, data):
        axis = _axis(self, self.axis, len(data))
        if data[axis] % self.num_outputs:
            raise self.shape_error(f"axis {self.axis} of shape {tuple(data)} does not split "
                                   f"into {self.num_outputs} equal parts")
        part = data[axis] // self.num_outputs
        if self.squeeze_axis and part != 1:
            raise self.shape_error(f"squeeze_axis needs parts of length 1, got {part}")
        middle = () if self.squeeze_axis else (part,)
        shape = tuple(data[:axis]) + middle + tuple(data[axis + 1:])
        return [shape or (1,)] * self.num_outputs

    def forward(self, xp, data):
        axis = _axis(self, self.axis, data.ndim)
        shapes = self.infer_shape(data.shape)
        parts = xp.split(data, self.num_outputs, axis=axis)
        return tuple(part.reshape(shape) for part, shape in zip(parts, shapes))

    def backward(self, xp, *out_grads):
        axis = _axis(self, self.axis, out_grads[0].ndim + int(self.squeeze_axis))
        if self.squeeze_axis:
            return xp.stack(out_grads, axis=axis)
        return xp.concatenate(out_grads, axis=axis)


# -- slicing ---------------------------------------------------------------------------------
class Slicing(OpDef):
    """An operator that reads one rectangular (maybe strided) region: subclasses give ``key``."""

    saves = ("data_shape",)

    def infer_shape(self, data, *others):
        shape = [len(range(*item.indices(size))) if isinstance(item, slice) else size
                 for item, size in zip(self.key(data, *others), data)]
        return tuple(shape) + tuple(data[len(shape):])

    def forward(self, xp, data, *others):
        return data[self.key(data.shape, *(other.shape for other in others))]

    def backward(self, xp, out_grad, data_shape, **shapes):
        grad = xp.zeros(data_shape, dtype=out_grad.dtype)
        others = [shapes[name] for name in sorted(shapes)]
        grad[self.key(data_shape, *others)] = out_grad
        return (grad,) + (None,) * len(others)


@register_op
class Slice(Slicing):
    """``data[begin[0]:end[0]:step[0], ...]``; None entries take the default."""
    name = "slice"
    params = {"begin": Param(OptionalIntTuple, doc="first index per axis"),
              "end": Param(OptionalIntTuple, doc="end (exclusive) per axis"),
              "step": Param(OptionalIntTuple, default=(), doc="step per axis")}
    method = True
    test = TestHints(shapes=((4, 5),), params={"begin": (None, 4), "end": (3, 0),
                                               "step": (2, -2)},
                     reference=lambda np, x, begin, end, step=(), **_:
                     x[tuple(slice(*items) for items in itertools.zip_longest(begin, end,
                                                                              step or ()))],
                     cases=(({"begin": (1,), "end": (3,), "step": ()}, ((4, 2, 3),)),))

    def check_params(self):
        if 0 in self.step:
            raise self.param_error(f"step must not be 0, got {self.step}")

    def key(self, shape):
        if len(self.begin) != len(self.end) or len(self.begin) > len(shape):
            raise self.shape_error(f"begin {self.begin} and end {self.end} must have one "
                                   f"length, at most {len(shape)}")
        steps = self.step + (None,) * (len(self.begin) - len(self.step))
        return tuple(slice(*items) for items in zip(self.begin, self.end, steps))


@register_op
class SliceAxis(Slicing):
    """``data[..., begin:end, ...]`` on one axis (``end`` None: to the end)."""
    name = "slice_axis"
    params = {"axis": Param(int), "begin": Param(int), "end": Param(Optional(int))}
    method = True
    test = TestHints(shapes=((3, 4),), params={"axis": 1, "begin": -3, "end": None},
                     reference=lambda np, x, **_: x[:, -3:])

    def key(self, shape):
        axis = _axis(self, self.axis, len(shape))
        return (slice(None),) * axis + (slice(self.begin, self.end),)


@register_op
class SliceLike(Slicing):
    """``data`` cut to the shape of ``shape_like`` on ``axes`` (all axes by default)."""
    name = "slice_like"
    inputs = ("data", "shape_like")
    params = {"axes": Param(Shape, default=(), doc="the axes to cut")}
    saves = ("data_shape", "shape_like_shape")
    method = True
    test = TestHints(shapes=((3, 4), (2, 3)),
                     reference=lambda np, x, y, axes=(), **_: x[:2, :3] if not axes else x[:, :3],
                     cases=(({"axes": (-1,)}, ((3, 4), (2, 3))),))

    def key(self, shape, like):
        axes = normalize_axes(self, self.axes or None, len(shape))
        if len(like) != len(shape) and not self.axes:
            raise self.shape_error(f"data {tuple(shape)} and shape_like {tuple(like)} "
                                   f"differ in dims")
        for axis in axes:
            if axis >= len(like) or like[axis] > shape[axis]:
                raise self.shape_error(f"cannot cut axis {axis} of {tuple(shape)} to "
                                       f"{tuple(like)}")
        return tuple(slice(0, like[a]) if a in axes else slice(None) for a in range(len(shape)))


# -- repeating --------------------------------------------------------------------------------
@register_op
class Tile(OpDef):
    """Repeat the whole array ``reps[i]`` times along each axis (as ``numpy.tile``)."""
    name = "tile"
    params = {"reps": Param(Shape, doc="repetitions per axis")}
    method = True
    saves = ("data_shape",)
    test = TestHints(params={"reps": (2, 1, 2)},
                     reference=lambda np, x, reps, **_: np.tile(x, reps),
                     cases=(({"reps": (3,)}, ((2, 3),)),))

    def _padded(self, shape):
        ndim = max(len(shape), len(self.reps))
        shape = (1,) * (ndim - len(shape)) + tuple(shape)
        reps = (1,) * (ndim - len(self.reps)) + tuple(self.reps)
        return shape, reps

    def infer_shape(self, data):
        shape, reps = self._padded(data)
        return tuple(size * rep for size, rep in zip(shape, reps))

    def forward(self, xp, data):
        return xp.tile(data, self.reps)

    def backward(self, xp, out_grad, data_shape):
        shape, reps = self._padded(data_shape)
        # view each axis as (copy, element) and sum the copies away
        split = [size for pair in zip(reps, shape) for size in pair]
        summed = out_grad.reshape(split).sum(axis=tuple(range(0, len(split), 2)))
        return summed.reshape(data_shape)


@register_op
class Repeat(OpDef):
    """Repeat each element ``repeats`` times along ``axis`` (None: of the flattened array)."""
    name = "repeat"
    params = {"repeats": Param(int), "axis": Param(Optional(int), default=None)}
    method = True
    saves = ("data_shape",)
    test = TestHints(params={"repeats": 2, "axis": -1},
                     reference=lambda np, x, repeats, axis=None, **_:
                     np.repeat(x, repeats, axis),
                     cases=(({"repeats": 3, "axis": None}, ((2, 2),)),))

    def infer_shape(self, data):
        if self.axis is None:
            return (math.prod(data) * self.repeats,)
        axis = _axis(self, self.axis, len(data))
        return tuple(data[:axis]) + (data[axis] * self.repeats,) + tuple(data[axis + 1:])

    def forward(self, xp, data):
        return xp.repeat(data, self.repeats, axis=self.axis)

    def backward(self, xp, out_grad, data_shape):
        if self.axis is None:
            return out_grad.reshape(-1, self.repeats).sum(axis=1).reshape(data_shape)
        axis = _axis(self, self.axis, len(data_shape))
        split = tuple(data_shape[:axis]) + (data_shape[axis], self.repeats) + tuple(
            data_shape[axis + 1:])
        return out_grad.reshape(split).sum(axis=axis + 1)


@register_op
class Reverse(OpDef):
    """Reverse the order of elements along the given axes."""
    name = "reverse"
    aliases = ("flip",)
    method = "flip"
    params = {"axis": Param(Shape, doc="the axes to reverse")}
    test = TestHints(shapes=((2, 3, 2),), params={"axis": (0, 2)},
                     reference=lambda np, x, **_: x[::-1, :, ::-1])

    def forward(self, xp, data):
        return xp.flip(data, axis=normalize_axes(self, self.axis, data.ndim))

    def backward(self, xp, out_grad):
        return xp.flip(out_grad, axis=normalize_axes(self, self.axis, out_grad.ndim))


# -- broadcasting ---------------------------------------------------------------------------
class Broadcasting(OpDef):
    """Copies along axes of length 1; the gradient sums the copies back."""

    saves = ("data_shape",)
    method = True

    def forward(self, xp, data, *others):
        shape = self.infer_shape(data.shape, *(other.shape for other in others))
        return xp.broadcast_to(data, shape).copy()

    def backward(self, xp, out_grad, data_shape):
        return sum_to_shape(xp, out_grad, data_shape)

    def broadcast_error(self, data, shape):
        return self.shape_error(f"cannot broadcast shape {tuple(data)} to {tuple(shape)}")


def _reference_broadcast_to(np, x, shape, **_):
    padded = (1,) * (len(shape) - x.ndim) + x.shape
    return np.broadcast_to(x.reshape(padded), [want or size for want, size in zip(shape, padded)])


@register_op
class BroadcastTo(Broadcasting):
    """Broadcast to ``shape``; a 0 in ``shape`` keeps that dim of the input.

    minimx also accepts an input with fewer dims (ones are prepended), which MXNet
    only allows through ``NDArray.broadcast_to``.
    """
    name = "broadcast_to"
    params = {"shape": Param(Shape, default=(), doc="the target shape (0: keep)")}
    test = TestHints(shapes=((1, 3),), params={"shape": (2, 0)},
                     reference=_reference_broadcast_to,
                     cases=(({"shape": (2, 0, 3)}, ((1, 4, 1),)),))

    def infer_shape(self, data):
        data = (1,) * (len(self.shape) - len(data)) + tuple(data)
        if len(data) != len(self.shape):
            raise self.broadcast_error(data, self.shape)
        target = tuple(size if want == 0 else want for size, want in zip(data, self.shape))
        if any(size not in (1, want) for size, want in zip(data, target)):
            raise self.broadcast_error(data, self.shape)
        return target


@register_op
class BroadcastAxis(Broadcasting):
    """Broadcast axes ``axis`` (each of length 1) to sizes ``size``."""
    name = "broadcast_axis"
    aliases = ("broadcast_axes",)
    method = "broadcast_axes"
    params = {"axis": Param(Shape, default=()), "size": Param(Shape, default=())}
    test = TestHints(shapes=((1, 3, 1),), params={"axis": (0, 2), "size": (2, 4)},
                     reference=lambda np, x, **_: np.broadcast_to(x, (2, 3, 4)))

    def check_params(self):
        if len(self.axis) != len(self.size):
            raise self.param_error(f"axis {self.axis} and size {self.size} differ in length")

    def infer_shape(self, data):
        shape = list(data)
        for axis, size in zip(self.axis, self.size):
            axis = _axis(self, axis, len(data))
            if shape[axis] != 1:
                raise self.shape_error(f"axis {axis} of shape {tuple(data)} is not of length 1")
            shape[axis] = size
        return tuple(shape)


@register_op
class BroadcastLike(Broadcasting):
    """Broadcast ``lhs`` to the shape of ``rhs`` (or only ``lhs_axes`` to ``rhs_axes``)."""
    name = "broadcast_like"
    inputs = ("lhs", "rhs")
    params = {"lhs_axes": Param(Optional(Shape), default=None),
              "rhs_axes": Param(Optional(Shape), default=None)}
    saves = ("lhs_shape",)
    test = TestHints(shapes=((1, 3), (4, 3)),
                     reference=lambda np, x, y, lhs_axes=None, **_: np.broadcast_to(
                         x, y.shape if lhs_axes is None else (y.shape[2], x.shape[1])),
                     cases=(({"lhs_axes": (0,), "rhs_axes": (2,)}, ((1, 3), (5, 6, 2))),))

    def check_params(self):
        if len(self.lhs_axes or ()) != len(self.rhs_axes or ()):
            raise self.param_error(f"lhs_axes {self.lhs_axes} and rhs_axes {self.rhs_axes} "
                                   f"differ in length")

    def infer_shape(self, lhs, rhs):
        if self.lhs_axes is None and self.rhs_axes is None:
            if len(lhs) != len(rhs) or any(a not in (1, b) for a, b in zip(lhs, rhs)):
                raise self.broadcast_error(lhs, rhs)
            return tuple(rhs)
        lhs_axes, rhs_axes = self.lhs_axes or (), self.rhs_axes or ()
        shape = list(lhs)
        for left, right in zip(lhs_axes, rhs_axes):
            left, right = _axis(self, left, len(lhs)), _axis(self, right, len(rhs))
            if shape[left] not in (1, rhs[right]):
                raise self.broadcast_error(lhs, rhs)
            shape[left] = rhs[right]
        return tuple(shape)

    def backward(self, xp, out_grad, lhs_shape):
        return sum_to_shape(xp, out_grad, lhs_shape), None


# -- padding and block moves -----------------------------------------------------------------
def _reference_pad(np, x, mode, pad_width, constant_value=0.0, **_):
    pairs = list(zip(pad_width[::2], pad_width[1::2]))
    if mode == "constant":
        return np.pad(x, pairs, mode="constant", constant_values=constant_value)
    return np.pad(x, pairs, mode=mode)


@register_op
class Pad(OpDef):
    """Pad a 4-D or 5-D array on its spatial axes: ``constant``, ``edge`` or ``reflect``.

    ``pad_width`` is numpy's, flattened: ``(before_0, after_0, before_1, after_1, ...)``;
    as in MXNet the first two axes (batch, channel) take no padding.
    """
    name = "Pad"
    aliases = ("pad",)
    method = "pad"
    params = {"mode": Param(Choice("constant", "edge", "reflect")),
              "pad_width": Param(Shape),
              "constant_value": Param(float, default=0.0)}
    saves = ("data_shape",)
    test = TestHints(shapes=((1, 2, 3, 3),),
                     params={"mode": "reflect", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1)},
                     reference=_reference_pad,
                     cases=(({"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 1, 0, 2),
                              "constant_value": 1.5}, ((1, 1, 2, 3),)),
                            ({"mode": "edge", "pad_width": (0, 0, 0, 0, 2, 0, 1, 1, 0, 1)},
                             ((1, 1, 2, 2, 2),))))

    def check_params(self):
        if len(self.pad_width) not in (8, 10):
            raise self.param_error(f"pad_width needs 8 or 10 values (4-D or 5-D input), "
                                   f"got {self.pad_width}")
        if any(self.pad_width[:4]):
            raise self.param_error(f"the first two axes take no padding, got {self.pad_width}")

    def _widths(self, shape):
        if len(self.pad_width) != 2 * len(shape):
            raise self.shape_error(f"expected a {len(self.pad_width) // 2}-D input for "
                                   f"pad_width {self.pad_width}, got shape {tuple(shape)}")
        pairs = tuple(zip(self.pad_width[::2], self.pad_width[1::2]))
        if self.mode == "reflect" and any(max(pair) >= size for pair, size in zip(pairs, shape)):
            raise self.shape_error(f"reflect padding {self.pad_width} must be smaller than "
                                   f"the input shape {tuple(shape)}")
        return pairs

    def infer_shape(self, data):
        return tuple(size + before + after
                     for size, (before, after) in zip(data, self._widths(data)))

    def forward(self, xp, data):
        widths = self._widths(data.shape)
        if self.mode == "constant":
            return xp.pad(data, widths, mode="constant", constant_values=self.constant_value)
        return xp.pad(data, widths, mode=self.mode)

    def backward(self, xp, out_grad, data_shape):
        widths = self._widths(data_shape)
        if self.mode == "constant":
            inside = tuple(slice(before, before + size)
                           for (before, _), size in zip(widths, data_shape))
            return out_grad[inside]
        # pad an array of element numbers the same way: it says where each output came from
        source = xp.pad(xp.arange(math.prod(data_shape)).reshape(data_shape), widths,
                        mode=self.mode)
        grad = xp.zeros(math.prod(data_shape), dtype=out_grad.dtype)
        xp.add.at(grad, source.ravel(), out_grad.ravel())
        return grad.reshape(data_shape)


def _depth_to_space(data, block):
    batch, depth, height, width = data.shape
    blocks = data.reshape(batch, block, block, depth // (block * block), height, width)
    moved = blocks.transpose(0, 3, 4, 1, 5, 2)
    return moved.reshape(batch, depth // (block * block), height * block, width * block)


def _space_to_depth(data, block):
    batch, depth, height, width = data.shape
    blocks = data.reshape(batch, depth, height // block, block, width // block, block)
    moved = blocks.transpose(0, 3, 5, 1, 2, 4)
    return moved.reshape(batch, depth * block * block, height // block, width // block)


class BlockMove(OpDef):
    """Move ``block_size`` x ``block_size`` blocks between the channel and spatial axes."""

    params = {"block_size": Param(int, doc="side of the moved blocks")}
    method = True

    def check_4d(self, data):
        if len(data) != 4:
            raise self.shape_error(f"expected a 4-D input (N, C, H, W), got {tuple(data)}")
        return data


@register_op
class DepthToSpace(BlockMove):
    """Rearrange channel blocks into spatial blocks: (N, C, H, W) -> (N, C/b², H*b, W*b)."""
    name = "depth_to_space"
    test = TestHints(shapes=((1, 8, 2, 3),), params={"block_size": 2},
                     reference=lambda np, x, **_: x.reshape(1, 2, 2, 2, 2, 3)
                     .transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6))

    def infer_shape(self, data):
        batch, depth, height, width = self.check_4d(data)
        block = self.block_size
        if depth % (block * block):
            raise self.shape_error(f"channels {depth} do not divide by block_size**2")
        return (batch, depth // (block * block), height * block, width * block)

    def forward(self, xp, data):
        return _depth_to_space(data, self.block_size)

    def backward(self, xp, out_grad):
        return _space_to_depth(out_grad, self.block_size)


@register_op
class SpaceToDepth(BlockMove):
    """Rearrange spatial blocks into channels: (N, C, H, W) -> (N, C*b², H/b, W/b)."""
    name = "space_to_depth"
    test = TestHints(shapes=((1, 2, 4, 6),), params={"block_size": 2},
                     reference=lambda np, x, **_: x.reshape(1, 2, 2, 2, 3, 2)
                     .transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 3))

    def infer_shape(self, data):
        batch, depth, height, width = self.check_4d(data)
        block = self.block_size
        if height % block or width % block:
            raise self.shape_error(f"height {height} and width {width} must divide by "
                                   f"block_size {block}")
        return (batch, depth * block * block, height // block, width // block)

    def forward(self, xp, data):
        return _space_to_depth(data, self.block_size)

    def backward(self, xp, out_grad):
        return _depth_to_space(out_grad, self.block_size)


def _reference_diag(np, x, k=0, axis1=0, axis2=1, **_):
    return np.diag(x, k) if x.ndim <= 2 else np.diagonal(x, k, axis1, axis2)


@register_op
class Diag(OpDef):
    """A diagonal: 1-D input -> a 2-D matrix with it on diagonal ``k``; otherwise the
    diagonal ``k`` of the planes ``(axis1, axis2)``, as a new last axis."""
    name = "diag"
    params = {"k": Param(int, default=0), "axis1": Param(int, default=0),
              "axis2": Param(int, default=1)}
    method = True
    saves = ("data_shape",)
    test = TestHints(shapes=((3, 4),), params={"k": 1}, reference=_reference_diag,
                     cases=(({"k": -1}, ((3,),)),
                            ({"k": 0, "axis1": 1, "axis2": 2}, ((2, 3, 4),))))

    def infer_shape(self, data):
        if len(data) == 1:
            size = data[0] + abs(self.k)
            return (size, size)
        first, second = _axis(self, self.axis1, len(data)), _axis(self, self.axis2, len(data))
        if first == second:
            raise self.shape_error(f"axis1 and axis2 name one axis ({first}) of {tuple(data)}")
        rows, cols = (data[first], data[second] - self.k) if self.k >= 0 else (
            data[first] + self.k, data[second])
        rest = tuple(size for axis, size in enumerate(data) if axis not in (first, second))
        return rest + (max(0, min(rows, cols)),)

    def _compute(self, xp, data):
        if data.ndim == 1:
            return xp.diag(data, self.k)
        return xp.diagonal(data, self.k, self.axis1, self.axis2)

    def forward(self, xp, data):
        return self._compute(xp, data).copy()

    def backward(self, xp, out_grad, data_shape):
        if len(data_shape) == 1:
            return xp.diagonal(out_grad, self.k).copy()
        # the diagonal of an array of element numbers says where each output element came from
        source = self._compute(xp, xp.arange(math.prod(data_shape)).reshape(data_shape))
        grad = xp.zeros(math.prod(data_shape), dtype=out_grad.dtype)
        grad[source.ravel()] = out_grad.ravel()
        return grad.reshape(data_shape)
