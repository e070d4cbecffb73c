"""NumPy's rearranging operators ``nd`` had none of: ``tril``/``triu``, ``roll``, ``rot90``,
``diagonal``, ``trace`` and ``nan_to_num``.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/numpy/np_tril_op.cc``,
``np_matrix_op.cc`` (roll, rot90), ``np_trace_op.cc``, ``np_diagonal_op.cc`` and
``np_elemwise_unary_op_basic.cc`` (nan_to_num) under MXNet's names.  Each moves or picks
elements, so its gradient moves the output gradient back the opposite way.
"""
import numpy as np

from .common import normalize_axis
from .params import Optional, Param, Shape
from .registry import OpDef, TestHints, register_op


@register_op
class Tril(OpDef):
    """The lower triangle of the last two axes (``k`` shifts the diagonal; ``lower=False``
    gives the upper one, NumPy's ``triu``); zero elsewhere."""

    name = "_npi_tril"
    params = {"k": Param(int, default=0, doc="the diagonal (positive: above the main one)"),
              "lower": Param(bool, default=True, doc="keep the lower triangle (else upper)")}
    saves = ("data_shape",)
    test = TestHints(shapes=((4, 5),), params={"k": 1},
                     cases=(({"k": -1, "lower": False}, ((2, 3, 3),)),
                            ({"k": 0}, ((3,),))),
                     reference=lambda np, x, k=0, lower=True: np.tril(x, k) if lower else
                     np.triu(x, k))

    def infer_shape(self, data):
        return tuple(data) * 2 if len(data) == 1 else tuple(data)   # a vector: its rows

    def forward(self, xp, data):
        return self._keep(xp, data)

    def backward(self, xp, out_grad, data_shape):
        kept = self._keep(xp, out_grad)
        return kept.sum(axis=0) if len(data_shape) == 1 else kept

    def _keep(self, xp, values):
        return xp.tril(values, self.k) if self.lower else xp.triu(values, self.k)


@register_op
class Roll(OpDef):
    """Elements shifted by ``shift`` along ``axis`` (None: the flattened array), wrapping."""

    name = "_npi_roll"
    params = {"shift": Param(Shape, doc="the shift (one per axis)"),
              "axis": Param(Optional(Shape), default=None, doc="the axes (None: flattened)")}
    saves = ()
    test = TestHints(shapes=((3, 4),), params={"shift": (1,), "axis": (1,)},
                     cases=(({"shift": (-2,)}, ((3, 4),)),),
                     reference=lambda np, x, shift, axis=None: np.roll(x, shift, axis))

    def _args(self, shift):
        shift = tuple(shift)
        axis = None if self.axis is None else tuple(self.axis)
        if axis is None:
            return (shift[0] if len(shift) == 1 else shift), None
        return (shift[0] if len(shift) == 1 and len(axis) == 1 else shift), axis

    def forward(self, xp, data):
        shift, axis = self._args(self.shift)
        return xp.roll(data, shift, axis)

    def backward(self, xp, out_grad):
        shift, axis = self._args(tuple(-s for s in self.shift))
        return xp.roll(out_grad, shift, axis)


@register_op
class Rot90(OpDef):
    """The array turned by ``k`` quarter turns in the plane of ``axes``."""

    name = "_npi_rot90"
    params = {"k": Param(int, default=1, doc="quarter turns (negative: clockwise)"),
              "axes": Param(Shape, default=(0, 1), doc="the two axes of the plane")}
    saves = ()
    test = TestHints(shapes=((2, 3, 4),), params={"k": 1},
                     cases=(({"k": -1, "axes": (1, 2)}, ((2, 3, 4),)),),
                     reference=lambda np, x, k=1, axes=(0, 1): np.rot90(x, k, axes))

    def infer_shape(self, data):
        first, second = (normalize_axis(self, a, len(data)) for a in self.axes)
        if first == second or len(self.axes) != 2:
            raise self.shape_error(f"axes must be two different axes, got {tuple(self.axes)}")
        shape = list(data)
        if self.k % 2:
            shape[first], shape[second] = shape[second], shape[first]
        return tuple(shape)

    def forward(self, xp, data):
        return xp.rot90(data, self.k, tuple(self.axes))

    def backward(self, xp, out_grad):
        return xp.rot90(out_grad, -self.k, tuple(self.axes))


@register_op
class Diagonal(OpDef):
    """The diagonal ``offset`` of the planes of ``axis1`` and ``axis2``, as a last axis."""

    name = "_npi_diagonal"
    params = {"offset": Param(int, default=0), "axis1": Param(int, default=0),
              "axis2": Param(int, default=1)}
    saves = ("data_shape",)
    test = TestHints(shapes=((3, 4),), params={"offset": 1},
                     cases=(({"offset": -1, "axis1": 1, "axis2": 2}, ((2, 3, 3),)),),
                     reference=lambda np, x, offset=0, axis1=0, axis2=1:
                     np.diagonal(x, offset, axis1, axis2))

    def infer_shape(self, data):
        return np.broadcast_to(np.empty((), bool), tuple(data)).diagonal(
            self.offset, self.axis1, self.axis2).shape

    def forward(self, xp, data):
        return xp.diagonal(data, self.offset, self.axis1, self.axis2).copy()

    def backward(self, xp, out_grad, data_shape):
        grad = xp.zeros(data_shape, dtype=out_grad.dtype)
        planes = xp.moveaxis(grad, (self.axis1, self.axis2), (-2, -1))     # a view of grad
        steps = xp.arange(out_grad.shape[-1])
        planes[..., steps + max(-self.offset, 0), steps + max(self.offset, 0)] = out_grad
        return grad


@register_op
class Trace(Diagonal):
    """The sum of the diagonal ``offset`` of the planes of ``axis1`` and ``axis2``."""

    name = "_npi_trace"
    test = TestHints(shapes=((3, 4),), params={"offset": 1},
                     cases=(({"offset": -1, "axis1": 1, "axis2": 2}, ((2, 3, 3),)),),
                     reference=lambda np, x, offset=0, axis1=0, axis2=1:
                     np.trace(x, offset, axis1, axis2))

    def infer_shape(self, data):
        return super().infer_shape(data)[:-1]

    def forward(self, xp, data):
        return xp.asarray(xp.trace(data, self.offset, self.axis1, self.axis2))

    def backward(self, xp, out_grad, data_shape):
        diagonal_shape = Diagonal.infer_shape(self, data_shape)
        return super().backward(xp, xp.broadcast_to(out_grad[..., None], diagonal_shape),
                                data_shape)


@register_op
class NanToNum(OpDef):
    """nan, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (None: 0 and the
    dtype's largest and smallest values); the gradient passes where the value was finite."""

    name = "_npi_nan_to_num"
    params = {"nan": Param(float, default=0.0), "posinf": Param(Optional(float), default=None),
              "neginf": Param(Optional(float), default=None)}
    saves = ("data",)
    test = TestHints(reference=lambda np, x, **_: np.nan_to_num(x))

    def forward(self, xp, data):
        return xp.nan_to_num(data, nan=self.nan, posinf=self.posinf, neginf=self.neginf)

    def backward(self, xp, out_grad, data):
        return out_grad * xp.isfinite(data).astype(out_grad.dtype)
