"""NumPy operators that shape, grid or summarise arrays: ``pad``, ``diagflat``, ``indices``,
``diag_indices_from``, ``percentile``, ``unravel_index``, ``resize`` and ``npx.reshape``.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/numpy/np_pad_op.cc``,
``np_matrix_op.cc`` (``_np_diagflat``, ``_npi_diag_indices_from``), ``np_init_op.cc``
(``_npi_indices``) and ``np_percentile_op.cc`` under MXNet's names, and the two host-NumPy
custom operators of ``python/mxnet/numpy_op_fallback.py`` (``unravel_index``, ``resize``).
``pad`` and ``diagflat`` move elements, so their gradients move the output gradient back;
the index grids and the percentiles have a zero gradient in MXNet
(``differentiable = False``), the two custom operators none at all (``has_gradient``).
"""
import math
import re

import numpy as np

from .common import normalize_axes, scalar_in
from .numpy_ops import NumpyReshape
from .params import Choice, DType, Optional, Param, Shape
from .registry import OpDef, TestHints, register_op

PAD_MODES = ("constant", "edge", "reflect", "symmetric", "maximum", "minimum")
INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def PadWidth(value):
    """``((before, after), ...)`` per axis, from nested ints or their text."""
    flat = (tuple(int(item) for item in re.findall(r"-?\d+", value)) if isinstance(value, str)
            else tuple(np.asarray(value, dtype=np.int64).reshape(-1).tolist()))
    if len(flat) % 2:
        raise ValueError("expected (before, after) pairs such as ((1, 1), (0, 2))")
    return tuple(flat[i:i + 2] for i in range(0, len(flat), 2))


PadWidth.type_name = "pairs of ints, one (before, after) per axis"


@register_op
class Pad(OpDef):
    """The array with ``pad_width`` elements added before and after each axis; ``mode`` says
    what they hold (``constant_value``, the edge, a mirror, the axis' maximum/minimum)."""

    name = "_npi_pad"
    params = {"pad_width": Param(PadWidth, doc="(before, after) for every axis"),
              "mode": Param(Choice(*PAD_MODES), default="constant", doc="what the padding holds"),
              "constant_value": Param(float, default=0.0, doc="the value of constant padding"),
              "reflect_type": Param(str, default="even", doc="mirror kind (MXNet: 'even')")}
    saves = ()
    test = TestHints(shapes=((2, 3),), params={"pad_width": ((1, 0), (2, 1))},
                     cases=(({"pad_width": ((1, 1), (1, 1)), "mode": "edge"}, ((2, 3),)),),
                     grad=(0,),
                     reference=lambda np, x, pad_width, mode="constant": np.pad(
                         x, pad_width, mode))

    def infer_shape(self, data):
        if len(self.pad_width) != len(data):
            raise self.shape_error(f"pad_width needs one pair per axis ({len(data)}), got "
                                   f"{len(self.pad_width)}")
        return tuple(size + before + after
                     for size, (before, after) in zip(data, self.pad_width))

    def forward(self, xp, data):
        if self.mode == "constant":
            return xp.pad(data, self.pad_width, mode="constant",
                          constant_values=scalar_in(data.dtype, self.constant_value))
        return xp.pad(data, self.pad_width, mode=self.mode)

    def backward(self, xp, out_grad):
        if self.mode != "constant":     # as MXNet's: only constant padding has a gradient
            raise self.param_error(f"the gradient exists for mode 'constant' only, got "
                                   f"mode '{self.mode}'")
        return out_grad[tuple(slice(before, size - after) for (before, after), size
                              in zip(self.pad_width, out_grad.shape))]


@register_op
class Diagflat(OpDef):
    """A square matrix with the flattened input on diagonal ``k``, zero elsewhere."""

    name = "_np_diagflat"
    params = {"k": Param(int, default=0, doc="the diagonal (positive: above the main one)")}
    saves = ("data_shape",)
    test = TestHints(shapes=((2, 2),), params={"k": 1}, cases=(({"k": -2}, ((3,),)),),
                     reference=lambda np, x, k=0: np.diagflat(x, k))

    def infer_shape(self, data):
        side = int(np.prod(data)) + abs(self.k)
        return (side, side)

    def forward(self, xp, data):
        return xp.diagflat(data, self.k)

    def backward(self, xp, out_grad, data_shape):
        return xp.diagonal(out_grad, self.k).reshape(data_shape)


@register_op
class DiagIndicesFrom(OpDef):
    """The indices of the main diagonal of an ``(n, n, ..., n)`` array: one row per axis."""

    name = "_npi_diag_indices_from"
    differentiable = False
    test = TestHints(shapes=((3, 3),), cases=(({}, ((2, 2, 2),)),), grad=False,
                     reference=lambda np, x: np.stack(np.diag_indices_from(x)))

    def infer_shape(self, data):
        if len(data) < 2 or len(set(data)) != 1:
            raise self.shape_error(f"the input must have at least 2 axes of equal size, got "
                                   f"shape {tuple(data)}")
        return (len(data), data[0])

    def infer_type(self, dtype):
        return "int64"

    def forward(self, xp, data):
        return xp.stack(xp.diag_indices(data.shape[0], data.ndim)).astype(np.int64)


@register_op
class Indices(OpDef):
    """The grid of indices of an array of shape ``dimensions``: one grid per axis."""

    name = "_npi_indices"
    inputs = ()
    differentiable = False
    params = {"dimensions": Param(Shape, doc="the shape of the grid"),
              "dtype": Param(DType, default="int32", doc="the indices' dtype")}
    test = TestHints(shapes=(), params={"dimensions": (2, 3)}, grad=False,
                     cases=(({"dimensions": (3,), "dtype": "float32"}, ()),),
                     reference=lambda np, dimensions, dtype="int32": np.indices(dimensions,
                                                                                dtype))

    def infer_shape(self):
        return (len(self.dimensions), *self.dimensions)

    def infer_type(self):
        return self.dtype

    def forward(self, xp):
        return xp.indices(self.dimensions, dtype=self.dtype)


@register_op
class Percentile(OpDef):
    """The ``q``-th percentiles (0..100) along ``axis`` (None: all), ``interpolation`` choosing
    between the two nearest values; ``q`` is an input array or ``q_scalar``."""

    name = "_npi_percentile"
    inputs = ("a", "q")
    differentiable = False
    params = {"axis": Param(Optional(Shape), default=None, doc="the axes (None: all)"),
              "interpolation": Param(Choice(*INTERPOLATIONS), default="linear",
                                     doc="how to pick between the nearest values"),
              "keepdims": Param(bool, default=False, doc="keep the reduced axes as size 1"),
              "q_scalar": Param(Optional(float), default=None, doc="q when there is no q input")}
    test = TestHints(shapes=((3, 4), (2,)), params={"axis": (1,)}, grad=False,
                     inputs=lambda rng, shapes, dtype: [
                         rng.uniform(-1, 1, shapes[0]).astype(dtype),
                         np.array([25.0, 90.0], dtype=dtype)],
                     reference=lambda np, a, q, axis=None: np.percentile(a, q, axis=axis))

    def check_params(self):
        if self.q_scalar is not None and not 0 <= self.q_scalar <= 100:
            raise self.param_error(f"percentiles must be in the range [0, 100], got "
                                   f"{self.q_scalar}")

    def list_inputs(self, num_args=None):
        return ("a",) if self.q_scalar is not None else self.inputs

    def infer_shape(self, a, q=()):
        axes = tuple(range(len(a))) if self.axis is None else normalize_axes(
            self, self.axis, len(a))
        kept = tuple(1 if i in axes else size for i, size in enumerate(a)
                     if self.keepdims or i not in axes)
        return kept if self.q_scalar is not None else (*q, *kept)

    def infer_type(self, a, q=None):
        # MXNet 1.9.1's rule: float64 stays, every other dtype (integers, float16) is float32
        return "float64" if a == "float64" else "float32"

    def forward(self, xp, a, q=None):
        q = self.q_scalar if self.q_scalar is not None else q
        if bool(xp.any((xp.asarray(q) < 0) | (xp.asarray(q) > 100))):
            raise self.param_error("percentiles must be in the range [0, 100]")
        axis = None if self.axis is None else normalize_axes(self, self.axis, a.ndim)
        return xp.percentile(a, q, axis=axis, method=self.interpolation,
                             keepdims=self.keepdims).astype(self.infer_type(a.dtype.name))


@register_op
class UnravelIndex(OpDef):
    """The coordinates of flat ``indices`` in an array of ``shape``: one row per axis, in the
    indices' dtype (MXNet's ``unravel_index`` computes them with host NumPy in a custom
    operator of this name)."""

    name = "_npi_unravel_index_fallback"
    inputs = ("indices",)
    differentiable = False
    has_gradient = False                # MXNet's custom operator raises in backward
    params = {"shape": Param(Shape, doc="the shape the flat indices index")}
    test = TestHints(shapes=((2, 3),), params={"shape": (4, 5)}, grad=False,
                     integer_inputs={"indices": 20}, input_dtypes={"indices": "int64"},
                     dtypes=("int64",),
                     reference=lambda np, i, shape: np.stack(np.unravel_index(i, shape)))

    def infer_shape(self, indices):
        return (len(self.shape), *indices)

    def forward(self, xp, indices):
        if indices.dtype.kind not in "iu":
            raise self.type_error(f"the indices must be integers, got {indices.dtype}")
        try:
            coords = xp.unravel_index(indices, self.shape)
        except ValueError as error:
            raise self.param_error(str(error)) from None
        return xp.stack(coords).astype(indices.dtype)


@register_op
class Resize(OpDef):
    """The flattened input repeated (or cut) to fill ``new_shape`` (zeros from an empty
    input), NumPy's ``resize`` (MXNet computes it with host NumPy in a custom operator of
    this name, with no gradient)."""

    name = "_npi_resize_fallback"
    differentiable = False
    has_gradient = False
    params = {"new_shape": Param(Shape, doc="the shape of the result")}
    test = TestHints(shapes=((2, 3),), params={"new_shape": (4, 4)}, grad=False,
                     cases=(({"new_shape": (2,)}, ((2, 3),)), ({"new_shape": (3,)}, ((0,),))),
                     reference=lambda np, x, new_shape: np.resize(x, new_shape))

    def infer_shape(self, data):
        if any(size < 0 for size in self.new_shape):
            raise self.param_error(f"new_shape must be non-negative, got {self.new_shape}")
        return tuple(self.new_shape)

    def forward(self, xp, data):
        size = math.prod(self.new_shape)
        flat = data.reshape(-1)
        if flat.size == 0:
            return xp.zeros(self.new_shape, dtype=data.dtype)
        return xp.tile(flat, -(-size // flat.size))[:size].reshape(self.new_shape)


# npx.reshape's codes (input shape, codes, reverse) -> NumPy's result shape, for the tests
_NPX_RESHAPE_EXAMPLES = {((2, 3, 4), (-2, -1), False): (2, 12),
                         ((2, 1, 4), (-2, -3, -2), False): (2, 4),
                         ((2, 3, 4), (-5, -2), False): (6, 4),
                         ((6, 4), (-6, 2, -1, -4), False): (2, 3, 4),
                         ((8, 5, 6), (-4, -1, 3, -6), True): (8, 5, 2, 3)}


@register_op
class NpxReshape(NumpyReshape):
    """``npx.reshape``: NumPy's reshape with MXNet's codes, resolved against the input's
    shape: ``-1`` infers one size, ``-2`` copies an axis, ``-3`` drops an axis of size 1,
    ``-4`` copies every remaining axis, ``-5`` merges two axes, ``-6`` splits one into the
    next two values (one may be ``-1``); ``reverse`` reads the codes from the right.  A
    graph needs no shape to give it (``F.npx.reshape`` on any Symbol)."""

    name = "_npx_reshape"
    params = {"newshape": Param(Shape, doc="the target shape, with npx's codes"),
              "reverse": Param(bool, default=False, doc="apply the codes right to left"),
              "order": Param(str, default="C", doc="only 'C' (row-major) is supported")}
    test = TestHints(shapes=((2, 3, 4),), params={"newshape": (-2, -1)},
                     cases=tuple(({"newshape": codes, "reverse": reverse}, (shape,))
                                 for shape, codes, reverse in list(_NPX_RESHAPE_EXAMPLES)[1:]),
                     reference=lambda np, x, newshape, reverse=False, **_: x.reshape(
                         _NPX_RESHAPE_EXAMPLES[x.shape, tuple(newshape), bool(reverse)]))

    def infer_shape(self, data):
        shape, codes = tuple(data), tuple(self.newshape)
        if self.reverse:
            shape, codes = shape[::-1], codes[::-1]
        target = self._decoded(shape, codes)
        return self.inferred(data, target[::-1] if self.reverse else target)

    def _decoded(self, shape, codes):
        """The target shape the codes say (one ``-1`` may remain)."""
        target, axis, index = [], 0, 0
        while index < len(codes):
            code = codes[index]
            if code not in (-1, -4) and code < 0 and axis >= len(shape):
                raise self.shape_error(f"code {code} of {tuple(self.newshape)} has no axis "
                                       f"left in shape {tuple(shape)}")
            if code >= -1:
                target.append(code)
                axis += 1
            elif code == -2:
                target.append(shape[axis])
                axis += 1
            elif code == -3:
                if shape[axis] != 1:
                    raise self.shape_error(f"-3 drops an axis of size 1, but axis {axis} of "
                                           f"{tuple(shape)} has size {shape[axis]}")
                axis += 1
            elif code == -4:
                target.extend(shape[axis:])
                axis = len(shape)
            elif code == -5:
                target.append(shape[axis] * shape[axis + 1])
                axis += 2
            elif code == -6:
                first, second = codes[index + 1:index + 3]
                first = shape[axis] // second if first == -1 else first
                second = shape[axis] // first if second == -1 else second
                target.extend((first, second))
                axis, index = axis + 1, index + 2
            else:
                raise self.shape_error(f"unknown code {code} in {tuple(self.newshape)}")
            index += 1
        return tuple(target)
