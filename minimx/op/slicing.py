"""Reading a region of an array: slice, slice_axis, slice_like and diag.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/matrix_op.cc`` (slice, slice_axis,
slice_like) and ``diag_op.cc``.  Each gradient writes the output gradient back into
zeros at the places the region was read from.
"""
import itertools
import math
import re

from .common import normalize_axes, normalize_axis
from .params import Optional, Param, Shape
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


# -- slicing ---------------------------------------------------------------------------------
class Slicing(OpDef):
    """An operator that reads one rectangular (maybe strided) region: subclasses give ``key``."""

    axiswise_shapes = True
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
    aliases = ("crop",)
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


def _assign_reference(np, lhs, *rhs, begin, end, step=(), scalar=0.0):
    out = lhs.copy()
    out[tuple(slice(*items) for items in itertools.zip_longest(begin, end, step or ()))] = (
        rhs[0] if rhs else scalar)
    return out


@register_op
class SliceAssign(OpDef):
    """``lhs`` with the region ``[begin:end:step]`` replaced by ``rhs`` (what ``x[1:3] = y``
    is in a graph); ``_crop_assign`` is its old name."""
    name = "_slice_assign"
    aliases = ("_crop_assign",)
    inputs = ("lhs", "rhs")
    params = Slice.params
    saves = ()
    test = TestHints(shapes=((4, 5), (2, 2)), params={"begin": (1, 0), "end": (3, 4),
                                                      "step": (None, 2)},
                     reference=_assign_reference)
    check_params = Slice.check_params
    key = Slice.key

    def shaped_like_output(self):
        return (0,)

    def infer_shape(self, lhs, rhs):
        region = Slicing.infer_shape(self, lhs)
        if tuple(rhs) != region:
            raise self.shape_error(f"rhs {tuple(rhs)} must have the region's shape {region} "
                                   f"(of lhs {tuple(lhs)})")
        return tuple(lhs)

    def forward(self, xp, lhs, rhs):
        out = lhs.copy()
        out[self.key(lhs.shape)] = rhs
        return out

    def backward(self, xp, out_grad):
        key = self.key(out_grad.shape)
        lhs_grad = out_grad.copy()
        lhs_grad[key] = 0
        return lhs_grad, out_grad[key].copy()


@register_op
class SliceAssignScalar(OpDef):
    """``lhs`` with the region ``[begin:end:step]`` set to ``scalar``."""
    name = "_slice_assign_scalar"
    aliases = ("_crop_assign_scalar",)
    inputs = ("lhs",)
    params = dict(Slice.params, scalar=Param(float, default=0.0, doc="the value written"))
    test = TestHints(shapes=((4, 5),), params={"begin": (1, None), "end": (3, 4),
                                               "scalar": 2.5}, reference=_assign_reference)
    check_params = Slice.check_params
    key = Slice.key

    def shaped_like_output(self):
        return (0,)

    def forward(self, xp, lhs):
        out = lhs.copy()
        out[self.key(lhs.shape)] = self.scalar
        return out

    def backward(self, xp, out_grad):
        grad = out_grad.copy()
        grad[self.key(out_grad.shape)] = 0
        return grad


@register_op
class SliceAxis(Slicing):
    """``data[..., begin:end, ...]`` on one axis (``end`` None: to the end)."""
    name = "slice_axis"
    params = {"axis": Param(int), "begin": Param(int), "end": Param(Optional(int))}
    method = True
    test = TestHints(shapes=((3, 4),), params={"axis": 1, "begin": -3, "end": None},
                     reference=lambda np, x, **_: x[:, -3:])

    def key(self, shape):
        axis = normalize_axis(self, self.axis, len(shape))
        return (slice(None),) * axis + (slice(self.begin, self.end),)

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        """The input's other dims are the output's (a Gluon RNN state ``(2, 0, 5)``
        sliced per layer takes its batch size from the RNN operator)."""
        (data,), (output,) = input_shapes, output_shapes
        if output is None or (data is not None and len(data) != len(output)):
            return [data]
        axis = normalize_axis(self, self.axis, len(output))
        sliced = data[axis] if data is not None else 0
        return [output[:axis] + (sliced,) + output[axis + 1:]]


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
        first = normalize_axis(self, self.axis1, len(data))
        second = normalize_axis(self, self.axis2, len(data))
        if first == second:
            raise self.shape_error(f"axis1 and axis2 name one axis ({first}) of {tuple(data)}")
        if not -data[first] <= self.k <= data[second]:
            raise self.shape_error(f"diagonal k={self.k} does not exist in planes "
                                   f"{data[first]}x{data[second]} of {tuple(data)}")
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


@register_op
class NumpyDiag(Diag):
    """``np.diag``: a 1-D or 2-D input, and a diagonal ``k`` outside the matrix is empty
    (NumPy's rule), where ``diag`` refuses it."""
    name = "_npi_diag"
    params = {"k": Param(int, default=0)}
    method = False
    axis1, axis2 = 0, 1
    test = TestHints(shapes=((3, 4),), params={"k": 1}, grad=(0, 1),
                     reference=lambda np, x, k=0: np.diag(x, k),
                     cases=(({"k": -2}, ((3,),)), ({"k": -5}, ((1, 5),)), ({"k": 7}, ((2, 3),))))

    def infer_shape(self, data):
        if len(data) not in (1, 2):
            raise self.shape_error(f"the input must be 1-D or 2-D (NumPy's diag), got "
                                   f"{tuple(data)}")
        if len(data) == 1:
            return super().infer_shape(data)
        rows, cols = (data[0], data[1] - self.k) if self.k >= 0 else (data[0] + self.k, data[1])
        return (max(0, min(rows, cols)),)
