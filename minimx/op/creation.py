"""Operators that make arrays from nothing but parameters: zeros, ones, full, arange, eye.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/init_op.cc``.  They have no
inputs, so the frontend passes the context; ``zeros_like``/``ones_like`` take
their shape from an input.
"""
import math

from ..base import normalize_dtype
from ..util import is_np_shape
from .common import scalar_in
from .params import DType, Optional, Param, Shape
from .registry import OpDef, TestHints, register_op


class Creation(OpDef):
    """An operator with no inputs whose output is fixed by ``shape`` and ``dtype``."""

    inputs = ()
    differentiable = False
    test = TestHints(shapes=(), params={"shape": (2, 3)}, grad=False)

    def infer_shape(self):
        # in a graph, -1 (as 0 under MXNet's legacy shapes) marks a size to be inferred
        if not is_np_shape():
            return tuple(0 if size < 0 else size for size in self.shape)
        return self.shape

    def infer_type(self):
        return self.dtype or "float32"

    def with_inferred_shapes(self, output_shapes):
        """In a graph, unknown sizes (0) in ``shape`` take the sizes inference found."""
        shape, inferred = self.param_values().get("shape"), output_shapes[0]
        if not shape or min(shape) > 0 or inferred is None or min(inferred) <= 0:
            return self
        return self.create(**{**self.param_values(), "shape": tuple(output_shapes[0])})


_SHAPE = Param(Shape, default=(), doc="output shape")
_DTYPE = Param(DType, default="float32", doc="output dtype")


@register_op
class Zeros(Creation):
    """An array of zeros."""
    name = "_zeros"
    params = {"shape": _SHAPE, "dtype": _DTYPE}
    test = TestHints(shapes=(), params={"shape": (2, 3)}, grad=False,
                     cases=(({"shape": (4,), "dtype": "int32"}, ()),),
                     reference=lambda np, shape, dtype="float32": np.zeros(shape, dtype))

    def forward(self, xp):
        return xp.zeros(self.shape, dtype=self.dtype)


@register_op
class Ones(Creation):
    """An array of ones."""
    name = "_ones"
    params = {"shape": _SHAPE, "dtype": _DTYPE}
    test = TestHints(shapes=(), params={"shape": (2, 3)}, grad=False,
                     cases=(({"shape": (4,), "dtype": "int32"}, ()),),
                     reference=lambda np, shape, dtype="float32": np.ones(shape, dtype))

    def forward(self, xp):
        return xp.ones(self.shape, dtype=self.dtype)


@register_op
class Empty(Creation):
    """An array whose values are not set (minimx fills it with zeros)."""
    name = "_empty"
    params = {"shape": _SHAPE, "dtype": _DTYPE}
    test = TestHints(shapes=(), params={"shape": (2, 3)}, grad=False, undefined_values=True,
                     reference=lambda np, shape, dtype="float32": np.empty(shape, dtype))

    def forward(self, xp):
        return xp.zeros(self.shape, dtype=self.dtype)


@register_op
class Full(Creation):
    """An array filled with ``value``."""
    name = "_full"
    params = {"shape": _SHAPE, "dtype": _DTYPE, "value": Param(float, doc="the fill value")}
    test = TestHints(shapes=(), params={"shape": (2, 3), "value": 2.5}, grad=False,
                     reference=lambda np, shape, value: np.full(shape, value))

    def forward(self, xp):
        return xp.full(self.shape, self.value, dtype=self.dtype)


@register_op
class Arange(Creation):
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times."""
    name = "_arange"
    params = {
        "start": Param(float, doc="first value"),
        "stop": Param(Optional(float), default=None, doc="end (exclusive); None: [0, start)"),
        "step": Param(float, default=1.0),
        "repeat": Param(int, default=1),
        "infer_range": Param(bool, default=False),
        "dtype": _DTYPE,
    }
    test = TestHints(shapes=(), params={"start": 1.0, "stop": 7.0, "step": 1.5}, grad=False,
                     cases=(({"start": 3.0, "repeat": 2}, ()),),
                     reference=lambda np, start, stop=None, step=1.0, repeat=1: np.repeat(
                         np.arange(start, stop, step) if stop is not None
                         else np.arange(0, start, step), repeat))

    def _bounds(self):
        return (0.0, self.start) if self.stop is None else (self.start, self.stop)

    def _length_from_graph(self):
        """``infer_range`` without ``stop``: the length is what the graph around needs (a
        consumer's shape gives it, as in MXNet), the values ``start, start + step, ...``."""
        return self.infer_range and self.stop is None

    def infer_shape(self):
        if self._length_from_graph():
            return (-1,) if is_np_shape() else (0,)         # unknown until inference
        start, stop = self._bounds()
        if self.step == 0:
            raise self.param_error("step must not be 0")
        count = max(0, int(-(-(stop - start) // self.step)))
        return (count * self.repeat,)

    def with_inferred_shapes(self, output_shapes):
        """In a graph, a length left to it (``infer_range``) becomes a ``stop`` (half a
        step before the last value's successor, so that rounding cannot add one)."""
        inferred = output_shapes[0]
        if not self._length_from_graph() or not inferred or min(inferred) <= 0:
            return self
        count = -(-inferred[0] // self.repeat)
        return self.create(**{**self.param_values(), "infer_range": False,
                              "stop": self.start + (count - 0.5) * self.step})

    def forward(self, xp):
        # as MXNet's kernel: ``start + i * step`` in the output's dtype (in float32,
        # ``arange(0, 1, 0.1)[9]`` is 9 * 0.1f = 0.90000004, not float32(0.9))
        return arange_values(xp, self.infer_shape()[0], self._bounds()[0], self.step,
                             self.repeat, self.dtype)


def arange_values(xp, count, start, step, repeat, dtype):
    """``count`` values ``start + (i // repeat) * step`` computed in ``dtype``, as MXNet's
    range kernel (so an integer dtype casts ``start`` and ``step`` first, as C does: -2 as
    uint8 is 254, and ``arange(50, -50, -2, dtype='uint8')`` counts down)."""
    dtype = xp.dtype(dtype)
    steps = -(-count // repeat)
    values = xp.arange(steps, dtype=dtype) * scalar_in(dtype, step) + scalar_in(dtype, start)
    return (xp.repeat(values, repeat) if repeat != 1 else values)[:count]


@register_op
class ArangeLike(OpDef):
    """``arange`` shaped like ``data`` (or as long as its axis ``axis``), in its dtype:
    ``start + (i // repeat) * step`` for the i-th element in row-major order."""
    name = "_contrib_arange_like"
    aliases = ("_npx_arange_like",)
    params = {"start": Param(float, default=0.0), "step": Param(float, default=1.0),
              "repeat": Param(int, default=1),
              "axis": Param(Optional(int), default=None,
                            doc="an axis of data: the result is 1-D, that axis's length")}
    differentiable = False
    test = TestHints(grad=False, params={"start": 1.0, "step": 0.5, "repeat": 2},
                     cases=(({"axis": -1}, ((3, 4),)),),
                     reference=lambda np, x, start=0.0, step=1.0, repeat=1, axis=None:
                     (start + (np.arange(x.size if axis is None else x.shape[axis]) // repeat)
                      * step).astype(x.dtype).reshape(x.shape if axis is None
                                                      else (x.shape[axis],)))

    def check_params(self):
        if self.repeat < 1:
            raise self.param_error(f"repeat must be at least 1, got {self.repeat}")

    def infer_shape(self, data):
        if self.axis is None:
            return tuple(data)
        if not -len(data) <= self.axis < len(data):
            raise self.shape_error(f"axis {self.axis} is out of range for data {tuple(data)}")
        return (data[self.axis],)

    def forward(self, xp, data):
        shape = self.infer_shape(data.shape)
        count = math.prod(shape)
        return arange_values(xp, count, self.start, self.step, self.repeat,
                             data.dtype).reshape(shape)


@register_op
class Linspace(Creation):
    """``num`` evenly spaced values from ``start`` to ``stop`` (``stop`` left out when not
    ``endpoint``), computed in float64 then cast to ``dtype``."""
    name = "_linspace"
    params = {"start": Param(float), "stop": Param(float), "num": Param(int),
              "endpoint": Param(bool, default=True), "dtype": _DTYPE}
    test = TestHints(shapes=(), params={"start": 0.0, "stop": 1.0, "num": 5}, grad=False,
                     cases=(({"start": -2.0, "stop": 3.0, "num": 4, "endpoint": False}, ()),),
                     reference=lambda np, start, stop, num, endpoint=True: np.linspace(
                         start, stop, num, endpoint=endpoint))

    def check_params(self):
        if self.num < 0:
            raise self.param_error(f"num must not be negative, got {self.num}")

    def infer_shape(self):
        return (self.num,)

    def forward(self, xp):
        values = xp.linspace(self.start, self.stop, self.num, endpoint=self.endpoint,
                             dtype="float64")
        return values.astype(self.dtype)


@register_op
class Eye(Creation):
    """A 2-D array with ones on diagonal ``k``."""
    name = "_eye"
    params = {"N": Param(int), "M": Param(int, default=0, doc="columns (0: N)"),
              "k": Param(int, default=0), "dtype": _DTYPE}
    test = TestHints(shapes=(), params={"N": 3, "M": 4, "k": 1}, grad=False,
                     cases=(({"N": 3, "k": -1}, ()),),
                     reference=lambda np, N, M=0, k=0: np.eye(N, M or N, k))

    def infer_shape(self):
        if self.N < 0 or self.M < 0:
            raise self.shape_error(f"N and M cannot be negative, got N={self.N}, M={self.M}")
        return (self.N, self.M or self.N)

    def forward(self, xp):
        return xp.eye(self.N, self.M or self.N, self.k, dtype=self.dtype)


@register_op
class ZerosLike(OpDef):
    """Zeros with the shape and dtype of ``data``."""
    name = "zeros_like"
    xp_name = "zeros_like"
    differentiable = False
    method = True
    test = TestHints(grad=False, reference=lambda np, x: np.zeros(x.shape, x.dtype))

    def forward(self, xp, data):
        return xp.zeros_like(data)


@register_op
class OnesLike(OpDef):
    """Ones with the shape and dtype of ``data``."""
    name = "ones_like"
    xp_name = "ones_like"
    differentiable = False
    method = True
    test = TestHints(grad=False, reference=lambda np, x: np.ones(x.shape, x.dtype))

    def forward(self, xp, data):
        return xp.ones_like(data)


@register_op
class ResetArrays(OpDef):
    """Every input set to 0 in place, ``num_arrays`` floating point arrays of any shapes, in one
    operation; no output (MXNet's ``reset_arrays``, what Gluon's ``zero_grad`` calls
    for the gradients of one device).  The inputs are its auxiliary states: the arrays it
    writes, so the engine orders it after their readers and before their next use."""
    name = "reset_arrays"
    variadic = True
    differentiable = False
    params = {"num_arrays": Param(int, doc="how many arrays")}
    test = TestHints(generated=False)        # no output: tests/op/test_reset_arrays.py

    def check_params(self):
        if self.num_arrays < 1:
            raise self.param_error(f"num_arrays must be at least 1, got {self.num_arrays}")
        self.aux = self.list_inputs()

    def list_inputs(self, num_args=None):
        return tuple(f"data{i}" for i in range(self.num_arrays if num_args is None
                                                 else num_args))

    def list_outputs(self):
        return ()

    def infer_shape(self, *shapes):
        if len(shapes) != self.num_arrays:
            raise self.shape_error(f"num_arrays is {self.num_arrays}, but {len(shapes)} "
                                   f"arrays were given")
        return []

    def infer_type(self, *dtypes):
        for index, dtype in enumerate(dtypes):
            if normalize_dtype(dtype).kind != "f":
                raise self.type_error(f"only floating point arrays can be reset (as in "
                                      f"MXNet), but array {index} is {dtype}")
        return []

    def forward(self, xp, *arrays):
        for array in arrays:
            array[...] = 0
        return ()
