"""Trigonometric and hyperbolic functions and their inverses, element-wise.

Lesson: 02-ndarray-and-context (and 04-autograd for their gradients).  Mirrors
``src/operator/tensor/elemwise_unary_op_trig.cc``.  Angles are in radians;
``degrees`` and ``radians`` convert between the two units.
"""
import math

import numpy

from .elemwise import Unary, UnaryFromOutput
from .registry import TestHints, register_op


# -- trigonometric and hyperbolic functions -------------------------------------------------------
@register_op
class Sin(Unary):
    """Sine (radians), element-wise."""
    name = "sin"
    xp_name = "sin"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.sin(x))

    def compute(self, xp, data):
        return xp.sin(data)

    def derivative(self, xp, data):
        return xp.cos(data)


@register_op
class Cos(Unary):
    """Cosine (radians), element-wise."""
    name = "cos"
    xp_name = "cos"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.cos(x))

    def compute(self, xp, data):
        return xp.cos(data)

    def derivative(self, xp, data):
        return -xp.sin(data)


@register_op
class Tan(UnaryFromOutput):
    """Tangent (radians), element-wise."""
    name = "tan"
    xp_name = "tan"
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
    xp_name = "arctan"
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.arctan(x))

    def compute(self, xp, data):
        return xp.arctan(data)

    def derivative(self, xp, data):
        return 1.0 / (data * data + 1.0)


@register_op
class Sinh(Unary):
    """Hyperbolic sine, element-wise."""
    name = "sinh"
    xp_name = "sinh"
    test = TestHints(low=-2.0, high=2.0, reference=lambda np, x: np.sinh(x))

    def compute(self, xp, data):
        return xp.sinh(data)

    def derivative(self, xp, data):
        return xp.cosh(data)


@register_op
class Cosh(Unary):
    """Hyperbolic cosine, element-wise."""
    name = "cosh"
    xp_name = "cosh"
    test = TestHints(low=-2.0, high=2.0, reference=lambda np, x: np.cosh(x))

    def compute(self, xp, data):
        return xp.cosh(data)

    def derivative(self, xp, data):
        return xp.sinh(data)


@register_op
class Tanh(UnaryFromOutput):
    """Hyperbolic tangent, element-wise."""
    name = "tanh"
    xp_name = "tanh"
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
        # MXNet's arcsinh_grad: 1 / hypot(x, 1) (sqrt(x * x + 1) rounds x * x first)
        return 1.0 / xp.hypot(data, xp.ones_like(data))


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


class ConstantFactor(Unary):
    """Multiplication by a fixed ``factor``, which is also the derivative."""

    saves = ()
    factor = 1.0

    def compute(self, xp, data):
        return data * self.factor

    def backward(self, xp, out_grad):
        return out_grad * self.factor


@register_op
class Degrees(ConstantFactor):
    """Radians to degrees, element-wise."""
    name = "degrees"
    # MXNet's kernels (degrees and degrees_grad) write 180.0f / PI with PI a float: the
    # factor is float32's quotient in every dtype, float64 included (57.2957763671875)
    factor = float(numpy.float32(180.0) / numpy.float32(math.pi))
    test = TestHints(low=-3.0, high=3.0, reference=lambda np, x: np.degrees(x))


@register_op
class Radians(ConstantFactor):
    """Degrees to radians, element-wise."""
    name = "radians"
    factor = float(numpy.float32(math.pi) / numpy.float32(180.0))    # PI / 180.0f, as degrees
    test = TestHints(low=-180.0, high=180.0, reference=lambda np, x: np.radians(x))
