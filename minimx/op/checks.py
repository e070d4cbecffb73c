"""Whole-array checks that answer with one number: ``all_finite``, ``multi_all_finite``,
``contrib.allclose`` and ``npx.constraint_check``.

Lesson: 13-optimizers (mixed precision: a loss scaler skips a step whose gradients
overflowed).  Mirrors ``src/operator/contrib/all_finite.cc``, ``allclose_op.cc`` and
``src/operator/numpy/np_constraint_check.cc``.  None has a gradient: each answers a yes/no
question about its inputs.
"""
import numpy as np

from .params import Param
from .registry import OpDef, TestHints, register_op


class _Check(OpDef):
    """One answer for the whole input: no gradient (MXNet registers none)."""

    differentiable = False
    has_gradient = False


def _finite_reference(np, *arrays, **_):
    return np.array([float(all(np.isfinite(a).all() for a in arrays))], dtype=np.float32)


def _with_infinity(rng, shapes, dtype):
    arrays = [rng.uniform(-1, 1, shape).astype(dtype) for shape in shapes]
    arrays[-1].flat[0] = float("inf")
    return arrays


class _Finite(_Check):
    """1.0 (float32, shape (1,)) when every value is finite, else 0.0."""

    params = {"init_output": Param(bool, default=True,
                                   doc="start from 1; False (AND into out's old value) is "
                                       "not supported")}

    def check_params(self):
        if not self.init_output:
            raise self.param_error("init_output=False (combine with the old value of out) "
                                   "is not supported: check each array and multiply the "
                                   "answers")

    def infer_shape(self, *shapes):
        return (1,)

    def infer_type(self, *dtypes):
        return "float32"

    def forward(self, xp, *arrays):
        finite = all(bool(xp.isfinite(array).all()) for array in arrays)
        return xp.asarray([1.0 if finite else 0.0], dtype="float32")


@register_op
class AllFinite(_Finite):
    """Whether every value of ``data`` is finite (no inf, no nan)."""
    name = "all_finite"
    test = TestHints(grad=False, reference=_finite_reference)


@register_op
class MultiAllFinite(_Finite):
    """Whether every value of every input is finite (``num_arrays`` inputs)."""
    name = "multi_all_finite"
    variadic = True
    params = dict(_Finite.params, num_arrays=Param(int, default=1, doc="number of inputs"))
    test = TestHints(shapes=((2, 3), (4,)), params={"num_arrays": 2}, grad=False,
                     reference=_finite_reference, inputs=_with_infinity)

    def check_params(self):
        super().check_params()
        if self.num_arrays < 1:
            raise self.param_error(f"num_arrays must be at least 1, got {self.num_arrays}")

    def list_inputs(self, num_args=None):
        count = num_args if num_args is not None else self.num_arrays
        return tuple(f"arg{index}" for index in range(count))


def _allclose_reference(np, a, b, rtol=1e-5, atol=1e-8, equal_nan=True, **_):
    return np.array(np.allclose(a, b, rtol, atol, equal_nan), dtype=np.uint8)


@register_op
class AllClose(_Check):
    """1 (uint8, shape ()) when ``|a - b| <= atol + rtol * |b|`` everywhere, as
    ``numpy.allclose``; ``equal_nan`` counts two nans as close."""
    name = "_contrib_allclose"
    inputs = ("a", "b")
    params = {"rtol": Param(float, default=1e-5, doc="relative tolerance"),
              "atol": Param(float, default=1e-8, doc="absolute tolerance"),
              "equal_nan": Param(bool, default=True, doc="two nans are close")}
    test = TestHints(shapes=((3, 4), (3, 4)), grad=False, reference=_allclose_reference,
                     params={"rtol": 0.5, "atol": 0.5})

    def infer_shape(self, a, b):
        if tuple(a) != tuple(b):
            raise self.shape_error(f"a {tuple(a)} and b {tuple(b)} must have one shape")
        return ()

    def infer_type(self, a, b):
        return "uint8"

    def forward(self, xp, a, b):
        close = xp.allclose(a, b, self.rtol, self.atol, self.equal_nan)
        return xp.asarray(close, dtype="uint8")


@register_op
class ConstraintCheck(_Check):
    """``True`` (bool, shape ()) when every element of the boolean ``input`` is true; else
    the computation fails with ``msg`` (a ValueError where the value is read)."""
    name = "_npx_constraint_check"
    inputs = ("input",)
    params = {"msg": Param(str, default="Constraint violated.", doc="the error's message")}
    test = TestHints(shapes=((2, 3),), grad=False, dtypes=("bool",),
                     inputs=lambda rng, shapes, dtype: [np.ones(shapes[0], dtype=bool)],
                     reference=lambda np, x, **_: np.array(x.all()))

    def infer_shape(self, data):
        return ()

    def infer_type(self, data):
        if data != "bool":
            raise self.type_error(f"the input must be a boolean array, got {data}")
        return "bool"

    def forward(self, xp, data):
        if not bool(data.all()):
            raise ValueError(f"operator {self.name}: {self.msg}")
        return xp.asarray(True)
