"""Element-wise functions of one array: exp, log, trigonometry, activations, rounding, casts.

Lesson: 02-ndarray (and 03-autograd for their gradients).  Mirrors
``src/operator/tensor/elemwise_unary_op_basic.cc``, ``elemwise_unary_op_trig.cc``,
``elemwise_unary_op_logexp.cc`` and ``elemwise_sum.cc``.  Each gradient is written with
arithmetic and the ``xp`` functions listed in ``minimx.autograd.higher_order``, so the same
``backward`` also runs on NDArrays and can be differentiated again.  Rounding, ``sign``
and ``logical_not`` have a zero gradient, as in MXNet.
"""
import math

from .params import DType, Param
from .registry import OpDef, TestHints, register_op


class Unary(OpDef):
    """One input, one output of the same shape and dtype; ``compute`` gives the values.

    ``backward`` multiplies the incoming gradient by ``derivative(xp, data)``;
    declarations that differentiate through their output override ``backward``.
    """

    method = True
    saves = ("data",)
    test = TestHints()

    def forward(self, xp, data):
        return self.compute(xp, data)

    def backward(self, xp, out_grad, data):
        return out_grad * self.derivative(xp, data)


class UnaryFromOutput(Unary):
    """A unary function whose derivative is cheapest written with its output ``y``."""

    saves = ("output",)

    def backward(self, xp, out_grad, output):
        return out_grad * self.derivative_from_output(xp, output)


class ZeroGradient(Unary):
    """Piecewise constant functions: the gradient is zero everywhere (MXNet's convention)."""

    saves = ()
    test = TestHints(low=-3.0, high=3.0)

    def backward(self, xp, out_grad):
        return None


def _mask(condition, like):
    """A 0/1 array of ``like``'s dtype (works for numpy, CuPy and NDArray conditions)."""
    return condition.astype(like.dtype)


# -- exponentials and logarithms ---------------------------------------------------------------
@register_op
class Exp(UnaryFromOutput):
    """``e ** x``, element-wise."""
    name = "exp"
    test = TestHints(reference=lambda np, x: np.exp(x))

    def compute(self, xp, data):
        return xp.exp(data)

    def derivative_from_output(self, xp, output):
        return output


@register_op
class Expm1(UnaryFromOutput):
    """``exp(x) - 1``, accurate for small ``x``."""
    name = "expm1"
    test = TestHints(reference=lambda np, x: np.expm1(x))

    def compute(self, xp, data):
        return xp.expm1(data)

    def derivative_from_output(self, xp, output):
        return output + 1.0


@register_op
class Log(Unary):
    """Natural logarithm, element-wise."""
    name = "log"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.log(x))

    def compute(self, xp, data):
        return xp.log(data)

    def derivative(self, xp, data):
        return 1.0 / data


@register_op
class Log10(Unary):
    """Base-10 logarithm, element-wise."""
    name = "log10"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.log10(x))

    def compute(self, xp, data):
        return xp.log10(data)

    def derivative(self, xp, data):
        return 1.0 / (data * math.log(10.0))


@register_op
class Log2(Unary):
    """Base-2 logarithm, element-wise."""
    name = "log2"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.log2(x))

    def compute(self, xp, data):
        return xp.log2(data)

    def derivative(self, xp, data):
        return 1.0 / (data * math.log(2.0))


@register_op
class Log1p(Unary):
    """``log(1 + x)``, accurate for small ``x``."""
    name = "log1p"
    test = TestHints(low=-0.5, high=2.0, reference=lambda np, x: np.log1p(x))

    def compute(self, xp, data):
        return xp.log1p(data)

    def derivative(self, xp, data):
        return 1.0 / (data + 1.0)


# -- powers and roots ----------------------------------------------------------------------------
@register_op
class Sqrt(UnaryFromOutput):
    """Square root, element-wise."""
    name = "sqrt"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.sqrt(x))

    def compute(self, xp, data):
        return xp.sqrt(data)

    def derivative_from_output(self, xp, output):
        return 0.5 / output


@register_op
class Rsqrt(UnaryFromOutput):
    """``1 / sqrt(x)``, element-wise."""
    name = "rsqrt"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: 1 / np.sqrt(x))

    def compute(self, xp, data):
        return 1.0 / xp.sqrt(data)

    def derivative_from_output(self, xp, output):
        return -0.5 * output * output * output


@register_op
class Cbrt(UnaryFromOutput):
    """Cube root, element-wise."""
    name = "cbrt"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: np.cbrt(x))

    def compute(self, xp, data):
        return xp.cbrt(data)

    def derivative_from_output(self, xp, output):
        return 1.0 / (3.0 * output * output)


@register_op
class Rcbrt(UnaryFromOutput):
    """``1 / cbrt(x)``, element-wise."""
    name = "rcbrt"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: 1 / np.cbrt(x))

    def compute(self, xp, data):
        return 1.0 / xp.cbrt(data)

    def derivative_from_output(self, xp, output):
        # y = x ** (-1/3), so dy/dx = -(1/3) x ** (-4/3) = -y**4 / 3
        return output * output * output * output * (-1.0 / 3.0)


@register_op
class Square(Unary):
    """``x * x``, element-wise."""
    name = "square"
    test = TestHints(reference=lambda np, x: x * x)

    def compute(self, xp, data):
        return xp.square(data)

    def derivative(self, xp, data):
        return 2.0 * data


@register_op
class Reciprocal(Unary):
    """``1 / x``, element-wise."""
    name = "reciprocal"
    test = TestHints(low=0.5, high=2.0, reference=lambda np, x: 1 / x)

    def compute(self, xp, data):
        return xp.reciprocal(data)

    def derivative(self, xp, data):
        return -1.0 / (data * data)


# -- sign and magnitude ---------------------------------------------------------------------------
@register_op
class Abs(Unary):
    """Absolute value, element-wise; the gradient at 0 is 0."""
    name = "abs"
    test = TestHints(reference=lambda np, x: np.abs(x))

    def compute(self, xp, data):
        return xp.abs(data)

    def derivative(self, xp, data):
        return xp.sign(data)


@register_op
class Sign(ZeroGradient):
    """-1, 0 or 1 by the sign of ``x``; zero gradient."""
    name = "sign"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.sign(x))

    def compute(self, xp, data):
        return xp.sign(data)


@register_op
class Negative(Unary):
    """``-x``, element-wise (what ``-array`` calls)."""
    name = "negative"
    method = False
    saves = ()
    test = TestHints(reference=lambda np, x: -x)

    def compute(self, xp, data):
        return -data

    def backward(self, xp, out_grad):
        return -out_grad


# -- trigonometric and hyperbolic functions -------------------------------------------------------
@register_op
class Sin(Unary):
    """Sine (radians), element-wise."""
    name = "sin"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.sin(x))

    def compute(self, xp, data):
        return xp.sin(data)

    def derivative(self, xp, data):
        return xp.cos(data)


@register_op
class Cos(Unary):
    """Cosine (radians), element-wise."""
    name = "cos"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.cos(x))

    def compute(self, xp, data):
        return xp.cos(data)

    def derivative(self, xp, data):
        return -xp.sin(data)


@register_op
class Tan(UnaryFromOutput):
    """Tangent (radians), element-wise."""
    name = "tan"
    test = TestHints(reference=lambda np, x: np.tan(x))

    def compute(self, xp, data):
        return xp.tan(data)

    def derivative_from_output(self, xp, output):
        return output * output + 1.0


@register_op
class Arcsin(Unary):
    """Inverse sine, element-wise, for ``-1 <= x <= 1``."""
    name = "arcsin"
    test = TestHints(low=-0.8, high=0.8, reference=lambda np, x: np.arcsin(x))

    def compute(self, xp, data):
        return xp.arcsin(data)

    def derivative(self, xp, data):
        return 1.0 / xp.sqrt(1.0 - data * data)


@register_op
class Arccos(Unary):
    """Inverse cosine, element-wise, for ``-1 <= x <= 1``."""
    name = "arccos"
    test = TestHints(low=-0.8, high=0.8, reference=lambda np, x: np.arccos(x))

    def compute(self, xp, data):
        return xp.arccos(data)

    def derivative(self, xp, data):
        return -1.0 / xp.sqrt(1.0 - data * data)


@register_op
class Arctan(Unary):
    """Inverse tangent, element-wise."""
    name = "arctan"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.arctan(x))

    def compute(self, xp, data):
        return xp.arctan(data)

    def derivative(self, xp, data):
        return 1.0 / (data * data + 1.0)


@register_op
class Sinh(Unary):
    """Hyperbolic sine, element-wise."""
    name = "sinh"
    test = TestHints(low=-2.0, high=2.0, reference=lambda np, x: np.sinh(x))

    def compute(self, xp, data):
        return xp.sinh(data)

    def derivative(self, xp, data):
        return xp.cosh(data)


@register_op
class Cosh(Unary):
    """Hyperbolic cosine, element-wise."""
    name = "cosh"
    test = TestHints(low=-2.0, high=2.0, reference=lambda np, x: np.cosh(x))

    def compute(self, xp, data):
        return xp.cosh(data)

    def derivative(self, xp, data):
        return xp.sinh(data)


@register_op
class Tanh(UnaryFromOutput):
    """Hyperbolic tangent, element-wise."""
    name = "tanh"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.tanh(x))

    def compute(self, xp, data):
        return xp.tanh(data)

    def derivative_from_output(self, xp, output):
        return 1.0 - output * output


@register_op
class Arcsinh(Unary):
    """Inverse hyperbolic sine, element-wise."""
    name = "arcsinh"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.arcsinh(x))

    def compute(self, xp, data):
        return xp.arcsinh(data)

    def derivative(self, xp, data):
        return 1.0 / xp.sqrt(data * data + 1.0)


@register_op
class Arccosh(Unary):
    """Inverse hyperbolic cosine, element-wise, for ``x >= 1``."""
    name = "arccosh"
    test = TestHints(low=1.5, high=3.0, reference=lambda np, x: np.arccosh(x))

    def compute(self, xp, data):
        return xp.arccosh(data)

    def derivative(self, xp, data):
        return 1.0 / xp.sqrt(data * data - 1.0)


@register_op
class Arctanh(Unary):
    """Inverse hyperbolic tangent, element-wise, for ``-1 < x < 1``."""
    name = "arctanh"
    test = TestHints(low=-0.8, high=0.8, reference=lambda np, x: np.arctanh(x))

    def compute(self, xp, data):
        return xp.arctanh(data)

    def derivative(self, xp, data):
        return 1.0 / (1.0 - data * data)


@register_op
class Degrees(Unary):
    """Radians to degrees, element-wise."""
    name = "degrees"
    saves = ()
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.degrees(x))

    def compute(self, xp, data):
        return data * (180.0 / math.pi)

    def backward(self, xp, out_grad):
        return out_grad * (180.0 / math.pi)


@register_op
class Radians(Unary):
    """Degrees to radians, element-wise."""
    name = "radians"
    saves = ()
    test = TestHints(low=-180.0, high=180.0, reference=lambda np, x: np.radians(x))

    def compute(self, xp, data):
        return data * (math.pi / 180.0)

    def backward(self, xp, out_grad):
        return out_grad * (math.pi / 180.0)


# -- activations ----------------------------------------------------------------------------------
@register_op
class Sigmoid(UnaryFromOutput):
    """Logistic sigmoid, ``1 / (1 + exp(-x))``, element-wise."""
    name = "sigmoid"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: 1 / (1 + np.exp(-x)))

    def compute(self, xp, data):
        return 1.0 / (1.0 + xp.exp(-data))

    def derivative_from_output(self, xp, output):
        return output * (1.0 - output)


@register_op
class Relu(UnaryFromOutput):
    """Rectified linear unit, ``max(x, 0)``; the gradient at 0 is 0."""
    name = "relu"
    test = TestHints(reference=lambda np, x: np.maximum(x, 0))

    def compute(self, xp, data):
        return xp.maximum(data, 0)

    def derivative_from_output(self, xp, output):
        return _mask(output > 0, output)


@register_op
class Softsign(Unary):
    """``x / (1 + |x|)``, element-wise."""
    name = "softsign"
    method = False
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: x / (1 + np.abs(x)))

    def compute(self, xp, data):
        return data / (1.0 + xp.abs(data))

    def derivative(self, xp, data):
        return 1.0 / xp.square(1.0 + xp.abs(data))


@register_op
class HardSigmoid(Unary):
    """``clip(alpha * x + beta, 0, 1)``, element-wise."""
    name = "hard_sigmoid"
    method = False
    params = {"alpha": Param(float, default=0.2, doc="slope"),
              "beta": Param(float, default=0.5, doc="offset")}
    saves = ("output",)
    test = TestHints(low=-4.0, high=4.0,
                     reference=lambda np, x, alpha=0.2, beta=0.5: np.clip(alpha * x + beta, 0, 1))

    def compute(self, xp, data):
        return xp.clip(data * self.alpha + self.beta, 0, 1)

    def backward(self, xp, out_grad, output):
        inside = _mask(output > 0, output) * _mask(output < 1, output)
        return out_grad * inside * self.alpha


@register_op
class SmoothL1(Unary):
    """Smooth L1 (Huber-like) with ``scalar`` = sigma.

    ``0.5 * (sigma * x) ** 2`` where ``|x| < 1 / sigma ** 2``, else ``|x| - 0.5 / sigma ** 2``.
    """
    name = "smooth_l1"
    method = False
    params = {"scalar": Param(float, default=1.0, doc="sigma; the bend is at 1 / sigma**2")}
    test = TestHints(low=-2.0, high=2.0, params={"scalar": 2.0},
                     reference=lambda np, x, scalar=2.0: np.where(
                         np.abs(x) < 1 / scalar ** 2, 0.5 * (scalar * x) ** 2,
                         np.abs(x) - 0.5 / scalar ** 2))

    def compute(self, xp, data):
        sigma2 = self.scalar * self.scalar
        quadratic = 0.5 * sigma2 * data * data
        return xp.where(xp.abs(data) < 1.0 / sigma2, quadratic, xp.abs(data) - 0.5 / sigma2)

    def derivative(self, xp, data):
        sigma2 = self.scalar * self.scalar
        inside = _mask(xp.abs(data) < 1.0 / sigma2, data)
        return inside * data * sigma2 + (1.0 - inside) * xp.sign(data)


# -- rounding: zero gradient ----------------------------------------------------------------------
@register_op
class Floor(ZeroGradient):
    """The largest integer ``<= x``, element-wise."""
    name = "floor"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.floor(x))

    def compute(self, xp, data):
        return xp.floor(data)


@register_op
class Ceil(ZeroGradient):
    """The smallest integer ``>= x``, element-wise."""
    name = "ceil"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.ceil(x))

    def compute(self, xp, data):
        return xp.ceil(data)


@register_op
class Round(ZeroGradient):
    """Round to the nearest integer, halves away from zero (``round(2.5) == 3``)."""
    name = "round"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.where(
        np.abs(x - np.trunc(x)) >= 0.5, np.trunc(x) + np.sign(x), np.trunc(x)))

    def compute(self, xp, data):
        whole = xp.trunc(data)
        return xp.where(xp.abs(data - whole) >= 0.5, whole + xp.sign(data), whole)


@register_op
class Rint(ZeroGradient):
    """Round to the nearest integer, halves to the lower one (``rint(2.5) == 2``)."""
    name = "rint"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.where(
        x - np.floor(x) <= np.ceil(x) - x, np.floor(x), np.ceil(x)))

    def compute(self, xp, data):
        below, above = xp.floor(data), xp.ceil(data)
        return xp.where(data - below <= above - data, below, above)


@register_op
class Fix(ZeroGradient):
    """Round towards zero, element-wise."""
    name = "fix"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.fix(x))

    def compute(self, xp, data):
        return xp.trunc(data)


@register_op
class Trunc(ZeroGradient):
    """Drop the fractional part (round towards zero), element-wise."""
    name = "trunc"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.trunc(x))

    def compute(self, xp, data):
        return xp.trunc(data)


@register_op
class LogicalNot(ZeroGradient):
    """1 where ``x == 0``, else 0, in the input's dtype."""
    name = "logical_not"
    method = False
    test = TestHints(reference=lambda np, x: (x == 0).astype(x.dtype))

    def compute(self, xp, data):
        return (data == 0).astype(data.dtype)


# -- clip, copies, casts, sums --------------------------------------------------------------------
@register_op
class Clip(Unary):
    """Limit values to ``[a_min, a_max]``; the gradient passes where ``a_min <= x <= a_max``."""
    name = "clip"
    params = {"a_min": Param(float, doc="lower bound"), "a_max": Param(float, doc="upper bound")}
    test = TestHints(params={"a_min": -0.5, "a_max": 0.5},
                     reference=lambda np, x, a_min=-0.5, a_max=0.5: np.clip(x, a_min, a_max))

    def compute(self, xp, data):
        low, high = data.dtype.type(self.a_min), data.dtype.type(self.a_max)
        # checked in this order so that a_min > a_max behaves as in MXNet
        return xp.where(data > high, high, xp.where(data < low, low, data))

    def derivative(self, xp, data):
        return _mask(data >= self.a_min, data) * _mask(data <= self.a_max, data)


@register_op
class Copy(Unary):
    """A copy of ``data`` (``identity``)."""
    name = "_copy"
    aliases = ("identity",)
    method = False
    saves = ()
    test = TestHints(reference=lambda np, x: x)

    def compute(self, xp, data):
        return data.copy()

    def backward(self, xp, out_grad):
        return out_grad


@register_op
class BlockGrad(Unary):
    """The input unchanged, but no gradient flows back through it."""
    name = "BlockGrad"
    aliases = ("stop_gradient",)
    method = False
    saves = ()
    test = TestHints(grad=False, reference=lambda np, x: x)    # zero gradient on purpose

    def compute(self, xp, data):
        return data.copy()

    def backward(self, xp, out_grad):
        return None


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
class AddN(OpDef):
    """The element-wise sum of any number of arrays of one shape."""
    name = "add_n"
    aliases = ("ElementWiseSum",)
    variadic = True
    params = {"num_args": Param(int, doc="number of inputs")}
    test = TestHints(shapes=((2, 3), (2, 3), (2, 3)), reference=lambda np, *xs: sum(xs))

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
