"""Operators that change an array's shape but not its elements: reshape, transpose, squeeze.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/matrix_op.cc`` (Reshape, Flatten,
expand_dims, squeeze, transpose, SwapAxis).  A reshape keeps the elements in order,
so its gradient is the output gradient reshaped back; a transpose's gradient is the
inverse permutation.  Related families: ``join_split.py``, ``slicing.py``,
``broadcast.py`` and ``rearrange.py``.
"""
import math

from .common import normalize_axes, normalize_axis
from .params import Axis, Optional, Param, Shape
from .reshape_rule import partial_reshape_target, reshape_target
from .registry import OpDef, TestHints, register_op

# Targets worked out by hand (and checked against MXNet 1.9.1) for the test cases above.
_RESHAPE_EXAMPLES = {((0, -1), False): (2, 12), ((-4, 1, 2, -3), False): (1, 2, 12),
                     ((-2, 1), False): (2, 3, 1), ((-1, 0), True): (6, 4)}


# -- reshaping ----------------------------------------------------------------------------------
class NewShape(OpDef):
    """The same elements in the same order under the shape ``infer_shape`` gives; the
    gradient is the output gradient reshaped back."""

    saves = ("data_shape",)

    def forward(self, xp, data):
        return data.reshape(self.infer_shape(data.shape))

    def backward(self, xp, out_grad, data_shape):
        return out_grad.reshape(data_shape)


@register_op
class Reshape(NewShape):
    """A new shape for the same elements; codes 0, -1, -2, -3, -4 as in MXNet.

    ``0`` copies a dim, ``-1`` infers one, ``-2`` copies the rest, ``-3`` merges two,
    ``-4`` splits one into the next two values; ``reverse`` reads the codes from the right.
    """
    name = "Reshape"
    family = "shape"
    aliases = ("reshape",)
    params = {"shape": Param(Shape, default=(), doc="the target shape, with codes"),
              "reverse": Param(bool, default=False, doc="apply the codes right to left"),
              "target_shape": Param(Shape, default=(),
                                    doc="(deprecated) the target shape; one 0 is inferred"),
              "keep_highest": Param(bool, default=False,
                                    doc="(deprecated, with target_shape) keep the first dim")}
    test = TestHints(shapes=((2, 3, 4),), params={"shape": (0, -1)},
                     cases=(({"shape": (-4, 1, 2, -3)}, ((2, 3, 4),)),
                            ({"shape": (-2, 1)}, ((2, 3),)),
                            ({"shape": (-1, 0), "reverse": True}, ((2, 3, 4),))),
                     reference=lambda np, x, shape, reverse=False, **_:
                     x.reshape(_RESHAPE_EXAMPLES[tuple(shape), bool(reverse)]))

    def infer_shape(self, data):
        if self.shape or not self.target_shape:
            return reshape_target(data, self.shape, self.reverse, self.name)
        return self._old_target(tuple(data))

    def infer_partial_shapes(self, data):
        """MXNet's rule for a partly known input: what the codes copy stays unknown."""
        if self.shape or not self.target_shape:
            return [partial_reshape_target(data, self.shape, self.reverse, self.name)]
        return None

    def _old_target(self, data):
        """MXNet's deprecated ``target_shape``: one 0 is inferred from the element count,
        ``keep_highest`` keeps the input's first dim."""
        target = list(self.target_shape)
        if self.keep_highest:
            target[0] = data[0]
        free = [index for index in range(int(self.keep_highest), len(target))
                if target[index] == 0]
        if len(free) == 1:
            target[free[0]] = 1
            target[free[0]] = math.prod(data) // math.prod(target)
        if math.prod(target) != math.prod(data):
            raise self.shape_error(f"cannot reshape {data} to target_shape "
                                   f"{self.target_shape}: sizes differ")
        return tuple(target)

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        """The input's one unknown size (0) from the output's element count, as MXNet's
        ``ReverseReshapeInferShape``: ``(20, 0)`` reshaped to ``(80,)`` is ``(20, 4)``."""
        (data,), (output,) = input_shapes, output_shapes
        if data is None or output is None or 0 in output or list(data).count(0) != 1:
            return [data]
        known = math.prod(size for size in data if size)
        return [tuple(size or math.prod(output) // known for size in data)]


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
class Flatten(NewShape):
    """Collapse every axis but the first: shape ``(n, d1, d2, ...)`` becomes
    ``(n, d1*d2*...)``."""
    name = "Flatten"
    family = "shape"
    aliases = ("flatten",)
    method = "flatten"
    test = TestHints(shapes=((2, 3, 2),), reference=lambda np, x, **_: x.reshape(x.shape[0], -1))

    def infer_shape(self, data):
        if not data:
            raise self.shape_error("expected at least 1 dim, got a 0-d input")
        return (data[0], math.prod(data[1:]))


@register_op
class ExpandDims(NewShape):
    """Insert an axis of length 1 at position ``axis`` (in ``[-ndim-1, ndim]``)."""
    name = "expand_dims"
    params = {"axis": Param(int, doc="where the new axis goes")}
    method = True
    test = TestHints(params={"axis": -1},
                     reference=lambda np, x, axis=-1, **_: np.expand_dims(x, axis),
                     cases=(({"axis": 0}, ((2, 3),)),))

    def infer_shape(self, data):
        ndim = len(data)
        if not -ndim - 1 <= self.axis <= ndim:
            raise self.shape_error(f"axis {self.axis} is out of range for {ndim} dims")
        axis = self.axis % (ndim + 1)
        return tuple(data[:axis]) + (1,) + tuple(data[axis:])


@register_op
class Squeeze(NewShape):
    """Remove axes of length 1 (the given ones, or all); a result with no dims has shape (1,)."""
    name = "squeeze"
    params = {"axis": Param(Axis, default=None, doc="axes to remove; None: every length-1 axis")}
    method = True
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

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        """The input's sizes are the output's, permuted back (each 0 stays unknown)."""
        (data,), output = input_shapes, output_shapes[0]
        if output is None:
            return list(input_shapes)
        axes = self._axes(len(output))
        back = [0] * len(output)
        for position, axis in enumerate(axes):
            back[axis] = output[position]
        if data is not None and len(data) == len(back):
            back = [size or found for size, found in zip(data, back)]
        return [tuple(back)]

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
        first = normalize_axis(self, self.dim1, len(data))
        second = normalize_axis(self, self.dim2, len(data))
        shape[first], shape[second] = shape[second], shape[first]
        return tuple(shape)

    def forward(self, xp, data):
        return xp.swapaxes(data, self.dim1, self.dim2)

    def backward(self, xp, out_grad):
        return xp.swapaxes(out_grad, self.dim1, self.dim2)
