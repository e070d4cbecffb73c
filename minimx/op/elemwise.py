"""Element-wise functions of one array: the shared base classes, copies, casts and sums.

Lesson: 02-ndarray-and-context (and 04-autograd for their gradients).  Mirrors
``src/operator/tensor/elemwise_unary_op_basic.cc`` and ``elemwise_sum.cc``.  ``Unary``
is the base of every one-input, same-shape operator: a declaration gives ``compute``
and ``derivative``.  Each gradient is written with arithmetic and the ``xp`` functions
listed in ``minimx.autograd.higher_order``, so the same ``backward`` also runs on
NDArrays and can be differentiated again.  The families built on it: ``logexp.py``,
``trig.py``, ``rounding.py`` and ``activations.py``.
"""
from ..base import normalize_dtype
from .common import scalar_in
from .params import DType, Param
from .registry import OpDef, TestHints, register_op
from .sparse_values import to_dense


class Unary(OpDef):
    """One input, one output of the same shape and dtype; ``compute`` gives the values.

    ``backward`` multiplies the incoming gradient by ``derivative(xp, data)``;
    declarations that differentiate through their output override ``backward``.
    """

    method = True
    saves = ("data",)
    test = TestHints()

    def shaped_like_output(self):
        return (0,)

    def forward(self, xp, data):
        return self.compute(xp, data)

    def backward(self, xp, out_grad, data):
        return out_grad * in_float32_for_half(self.derivative, xp, data)


def in_float32_for_half(derivative, xp, array):
    """``derivative(xp, array)``, but for float16 evaluated in float32 and rounded once.

    MXNet's gradient functors (``mshadow_op.h``: ``DType(expr)`` over ``math::`` functions
    that take and return float for half_t) compute the whole expression in float and round
    it to half at the end; evaluating it in float16 rounds every step (``1 - y * y`` of tanh:
    6 of 12 test values differ).  The product with the head gradient is then half * half, as
    in MXNet."""
    if array.dtype != "float16":
        return derivative(xp, array)
    return derivative(xp, array.astype("float32")).astype("float16")


class UnaryFromOutput(Unary):
    """A unary function whose derivative is cheapest written with its output ``y``."""

    saves = ("output",)

    def backward(self, xp, out_grad, output):
        return out_grad * in_float32_for_half(self.derivative_from_output, xp, output)


class ZeroGradient(Unary):
    """Piecewise constant functions: the gradient is zero everywhere (MXNet's convention)."""

    saves = ()
    test = TestHints(low=-3.0, high=3.0)

    def backward(self, xp, out_grad):
        return None


def as_mask(condition, like):
    """A 0/1 array of ``like``'s dtype (works for numpy, CuPy and NDArray conditions)."""
    return condition.astype(like.dtype)


# -- magnitude and sign change --------------------------------------------------------------------
@register_op
class Abs(Unary):
    """Absolute value, element-wise; the gradient at 0 is 0."""
    name = "abs"
    xp_name = "abs"
    test = TestHints(reference=lambda np, x: np.abs(x))

    def compute(self, xp, data):
        return xp.abs(data)

    def derivative(self, xp, data):
        return xp.sign(data)


@register_op
class Negative(Unary):
    """``-x``, element-wise (what ``-array`` calls)."""
    name = "negative"
    xp_name = "negative"
    method = False
    saves = ()
    test = TestHints(reference=lambda np, x: -x)

    def compute(self, xp, data):
        return -data

    def backward(self, xp, out_grad):
        return -out_grad


# -- clip, copies, casts, sums --------------------------------------------------------------------
@register_op
class Clip(Unary):
    """Limit values to ``[a_min, a_max]``; the gradient passes where ``a_min <= x <= a_max``."""
    name = "clip"
    params = {"a_min": Param(float, doc="lower bound"), "a_max": Param(float, doc="upper bound")}
    test = TestHints(params={"a_min": -0.5, "a_max": 0.5},
                     reference=lambda np, x, a_min=-0.5, a_max=0.5: np.clip(x, a_min, a_max))

    def compute(self, xp, data):
        # compared with the bounds as given (a float array takes them in its own dtype),
        # then written as the dtype's numbers (MXNet: clip(uint8 [1, 200], -5, 100) is
        # [1, 100]; -5 as uint8 would be 251); checked in this order so that a_min > a_max
        # behaves as in MXNet
        low, high = scalar_in(data.dtype, self.a_min), scalar_in(data.dtype, self.a_max)
        return xp.where(data > self.a_max, high, xp.where(data < self.a_min, low, data))

    def derivative(self, xp, data):
        return as_mask(data >= self.a_min, data) * as_mask(data <= self.a_max, data)

    def backward(self, xp, out_grad, data):
        # selected, not multiplied by the 0/1 derivative: outside the bounds the gradient
        # is 0 even where it is infinite or NaN (0 * inf is NaN), as MXNet's.  (Two
        # selections rather than one of ``low & high``: the same code takes NDArrays for a
        # second-order gradient, autograd/higher_order.py, and they have no ``&``.)
        zero = xp.zeros_like(out_grad)
        return xp.where(data >= self.a_min, xp.where(data <= self.a_max, out_grad, zero), zero)


@register_op
class Copy(Unary):
    """A copy of ``data`` (``identity``)."""
    name = "_copy"
    aliases = ("identity",)
    method = False
    saves = ()
    identity_at_inference = True
    test = TestHints(reference=lambda np, x: x)

    def compute(self, xp, data):
        return data.copy()

    def backward(self, xp, out_grad):
        return out_grad


@register_op
class SparseToDense(Copy):
    """``data`` in dense storage: what a sparse input of a recorded call becomes before the
    dense operator runs (MXNet's storage fallback), so the gradient flows back to it.  On a
    dense input it is a copy."""
    name = "_sparse_to_dense"
    aliases = ()
    identity_at_inference = False

    def compute(self, xp, data):
        return to_dense(data) if hasattr(data, "toarray") else data.copy()


@register_op
class BlockGrad(Copy):
    """The input unchanged, but no gradient flows back through it."""
    name = "BlockGrad"
    aliases = ("stop_gradient",)
    head_gradient = False          # no gradient flows back, whatever arrives
    differentiable = False        # a zero gradient, on purpose
    test = TestHints(grad=False, reference=lambda np, x: x)


@register_op
class GradientMultiplier(Copy):
    """The input unchanged; the gradient flowing back is multiplied by ``scalar``
    (``nd.contrib.gradientmultiplier``: a negative ``scalar`` reverses it, as in
    domain-adversarial training)."""
    name = "_contrib_gradientmultiplier"
    aliases = ()
    params = {"scalar": Param(float, default=1.0, doc="the factor of the gradient"),
              "is_int": Param(bool, default=True,
                              doc="MXNet's flag of an integer scalar; the factor is used as "
                                  "given either way")}
    test = TestHints(params={"scalar": -0.5}, grad=False, reference=lambda np, x, **_: x)

    def backward(self, xp, out_grad):
        return out_grad * out_grad.dtype.type(self.scalar)


@register_op
class Cast(Unary):
    """``data`` converted to ``dtype`` (what ``NDArray.astype`` calls)."""
    name = "Cast"
    aliases = ("cast",)
    method = False
    params = {"dtype": Param(DType, doc="output dtype")}
    test = TestHints(params={"dtype": "float64"},
                     reference=lambda np, x, dtype="float64": x.astype(dtype))

    def infer_type(self, data):
        return self.dtype

    def compute(self, xp, data):
        return data.astype(self.dtype)

    def backward(self, xp, out_grad, data):
        return out_grad.astype(data.dtype)


@register_op
class AmpCast(Cast):
    """The cast automatic mixed precision inserts: ``Cast`` that leaves integer inputs
    alone (only float inputs change precision)."""
    name = "amp_cast"
    aliases = ()
    test = TestHints(params={"dtype": "float16"}, rtol=1e-2, atol=1e-2,
                     reference=lambda np, x, dtype="float16": x.astype(dtype))

    def infer_type(self, data):
        return self.dtype if normalize_dtype(data).kind == "f" else data

    def compute(self, xp, data):
        return data.astype(self.dtype) if data.dtype.kind == "f" else data


_AMP_TYPES = ("float16", "float32")


def _multicast_target(dtypes, narrow):
    """The common AMP dtype of ``dtypes``: float32 if any is (float16 with ``narrow``);
    other dtypes keep their own."""
    amp = [d for d in dtypes if d in _AMP_TYPES]
    if not amp:
        return None
    return ("float16" if "float16" in amp else "float32") if narrow else (
        "float32" if "float32" in amp else "float16")


@register_op
class AmpMulticast(OpDef):
    """Cast float16/float32 inputs to their common type (the widest, or with
    ``cast_narrow`` the narrowest), as AMP does before an operator that needs one type."""
    name = "amp_multicast"
    variadic = True
    params = {"num_outputs": Param(int, doc="number of inputs (and outputs)"),
              "cast_narrow": Param(bool, default=False, doc="cast to the narrowest type")}
    test = TestHints(shapes=((2, 3), (3,)), params={"num_outputs": 2},
                     reference=lambda np, x, y, **_: (x, y))

    def list_inputs(self, num_args=None):
        count = num_args if num_args is not None else self.num_outputs
        return tuple(f"data{index}" for index in range(count))

    def list_outputs(self):
        return tuple(f"output{index}" for index in range(self.num_outputs))

    def infer_shape(self, *shapes):
        return [tuple(shape) for shape in shapes]

    def infer_type(self, *dtypes):
        names = [normalize_dtype(d).name for d in dtypes]
        target = _multicast_target(names, self.cast_narrow)
        return [target if name in _AMP_TYPES else name for name in names]

    def forward(self, xp, *arrays):
        targets = self.infer_type(*(a.dtype for a in arrays))
        return tuple(a.astype(t) for a, t in zip(arrays, targets))

    def backward(self, xp, *out_grads, **saved):
        return tuple(out_grads)


@register_op
class AddN(OpDef):
    """The element-wise sum of any number of arrays of one shape."""
    name = "add_n"
    aliases = ("ElementWiseSum",)
    variadic = True
    params = {"num_args": Param(int, doc="number of inputs")}
    test = TestHints(shapes=((2, 3), (2, 3), (2, 3)), reference=lambda np, *xs: sum(xs))

    def shaped_like_output(self):
        return tuple(range(self.num_args))

    def check_params(self):
        if self.num_args < 1:
            raise self.param_error(f"num_args must be at least 1, got {self.num_args}")

    def infer_shape(self, *shapes):
        for position, shape in enumerate(shapes):
            if tuple(shape) != tuple(shapes[0]):
                raise self.shape_error(f"all inputs must have one shape; arg0 is "
                                       f"{tuple(shapes[0])} but arg{position} is {tuple(shape)}")
        return shapes[0]

    def infer_type(self, *dtypes):
        for position, dtype in enumerate(dtypes):
            if dtype != dtypes[0]:
                raise self.type_error(f"all inputs must have one dtype; arg0 is {dtypes[0]} "
                                      f"but arg{position} is {dtype}")
        return dtypes[0]

    def forward(self, xp, *arrays):
        total = arrays[0].copy()
        for array in arrays[1:]:
            total += array
        return total

    def backward(self, xp, out_grad):
        return (out_grad,) * self.num_args


# -- shape and size as arrays ---------------------------------------------------------------------
class Describe(OpDef):
    """An int64 array describing ``data``'s shape; no gradient."""

    method = True
    differentiable = False

    def infer_type(self, data):
        return "int64"


@register_op
class ShapeArray(Describe):
    """``data``'s shape, as a 1-D int64 array."""
    name = "shape_array"
    test = TestHints(grad=False, reference=lambda np, x: np.array(x.shape, dtype="int64"))

    def infer_shape(self, data):
        return (len(data),)

    def forward(self, xp, data):
        return xp.asarray(data.shape, dtype="int64")


@register_op
class SizeArray(Describe):
    """``data``'s number of elements, as an int64 array of shape (1,)."""
    name = "size_array"
    test = TestHints(grad=False, reference=lambda np, x: np.array([x.size], dtype="int64"))

    def infer_shape(self, data):
        return (1,)

    def forward(self, xp, data):
        return xp.asarray([data.size], dtype="int64")
