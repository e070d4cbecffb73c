"""Copies of elements: broadcast_to, broadcast_axis, broadcast_like, tile and repeat.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/broadcast_reduce_op_value.cc``
(the broadcast operators) and ``matrix_op.cc`` (tile, repeat).  Each element of the
input appears several times in the output, so the gradient sums the copies back.
"""
import math

from ..util import is_np_shape
from .common import normalize_axis, sum_to_shape
from .params import Optional, Param, Shape
from .registry import OpDef, TestHints, register_op


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
    xp_name = "broadcast_to"
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
class NumpyBroadcastTo(Broadcasting):
    """NumPy's ``broadcast_to``: the input's axes meet the last axes of ``shape`` (ones are
    prepended), and every size of ``shape`` is a size, 0 included (``-2`` keeps the input's,
    MXNet's mark).  Needing no rank of the input, a graph gives it without a shape."""
    name = "_npi_broadcast_to"
    method = False
    params = {"shape": Param(Shape, doc="the target shape (-2: the input's size)")}
    test = TestHints(shapes=((3, 1),), params={"shape": (2, 3, 4)},
                     reference=lambda np, x, shape: np.broadcast_to(x, tuple(
                         x.shape[i - len(shape)] if want == -2 else want
                         for i, want in enumerate(shape))),
                     cases=(({"shape": (0, 3)}, ((1, 3),)), ({"shape": (2, -2)}, ((1, 3),))))

    def infer_shape(self, data):
        target = list(self.shape)
        if len(data) > len(target):
            raise self.broadcast_error(data, self.shape)
        for i in range(1, len(data) + 1):
            target[-i] = data[-i] if target[-i] == -2 else target[-i]
            if data[-i] not in (1, target[-i]):
                raise self.broadcast_error(data, self.shape)
        if any(size < 0 for size in target):
            raise self.shape_error(f"the target shape {tuple(self.shape)} must be known: -2 "
                                   f"keeps only an axis the input has")
        return tuple(target)


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
            axis = normalize_axis(self, axis, len(data))
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
        if self.lhs_axes == () or self.rhs_axes == ():
            raise self.param_error("lhs_axes and rhs_axes, when given, must name at least "
                                   "one axis")

    def infer_shape(self, lhs, rhs):
        if self.lhs_axes is None and self.rhs_axes is None:
            if len(lhs) != len(rhs) or any(a not in (1, b) for a, b in zip(lhs, rhs)):
                raise self.broadcast_error(lhs, rhs)
            return tuple(rhs)
        lhs_axes, rhs_axes = self.lhs_axes or (), self.rhs_axes or ()
        shape = list(lhs)
        for left, right in zip(lhs_axes, rhs_axes):
            left = normalize_axis(self, left, len(lhs))
            right = normalize_axis(self, right, len(rhs))
            if shape[left] not in (1, rhs[right]):
                raise self.broadcast_error(lhs, rhs)
            shape[left] = rhs[right]
        return tuple(shape)

    def backward(self, xp, out_grad, lhs_shape):
        return sum_to_shape(xp, out_grad, lhs_shape), None


# -- repeating ----------------------------------------------------------------------------------
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
        least = 0 if is_np_shape() else 1      # under NumPy's shapes 0 is a size
        if any(rep < least for rep in self.reps):
            raise self.shape_error(f"every repetition must be at least {least} (MXNet's "
                                   f"legacy shapes read 0 as unknown), got "
                                   f"reps={tuple(self.reps)}")
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
        axis = normalize_axis(self, self.axis, len(data))
        return tuple(data[:axis]) + (data[axis] * self.repeats,) + tuple(data[axis + 1:])

    def forward(self, xp, data):
        return xp.repeat(data, self.repeats, axis=self.axis)

    def backward(self, xp, out_grad, data_shape):
        if self.axis is None:
            return out_grad.reshape(-1, self.repeats).sum(axis=1).reshape(data_shape)
        axis = normalize_axis(self, self.axis, len(data_shape))
        split = tuple(data_shape[:axis]) + (data_shape[axis], self.repeats) + tuple(
            data_shape[axis + 1:])
        return out_grad.reshape(split).sum(axis=axis + 1)
