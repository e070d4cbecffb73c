"""Initializers that draw random values: Uniform, Normal, Xavier, MSRAPrelu, Orthogonal.

Lesson: 09-gluon.  Mirrors the random classes of
``python/mxnet/initializer.py``.  Draws go through ``nd.random`` (Orthogonal
then factorises on the host), so ``mx.random.seed`` makes them repeat.
Xavier keeps the variance of activations (or gradients) about equal from
layer to layer by scaling with the weight's fan-in and fan-out.
"""
import numpy as np

from ..base import InvalidParameterError, InvalidShapeError
from ..ndarray import random
from .base import Initializer, register

__all__ = ["Uniform", "Normal", "Xavier", "MSRAPrelu", "Orthogonal", "fans"]


@register
class Uniform(Initializer):
    """Draw weights uniformly from ``[-scale, scale]``."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        random.uniform(-self.scale, self.scale, arr.shape, out=arr)


@register
class Normal(Initializer):
    """Draw weights from a normal distribution with mean 0 and deviation ``sigma``."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        random.normal(0, self.sigma, arr.shape, out=arr)


def fans(shape):
    """(fan_in, fan_out) of a weight: dims 1 and 0, each times the kernel size."""
    kernel_size = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
    return shape[1] * kernel_size, shape[0] * kernel_size


@register
class Xavier(Initializer):
    """Glorot & Bengio's initialisation, scaled by the weight's fans.

    The scale is ``sqrt(magnitude / factor)`` where ``factor`` is ``fan_in``,
    ``fan_out`` or their mean (``factor_type`` 'in', 'out', 'avg').  With
    ``rnd_type='uniform'`` weights lie in ``[-scale, scale]``; with
    ``'gaussian'`` the scale is the standard deviation.

    Parameters
    ----------
    rnd_type : {'uniform', 'gaussian'}
    factor_type : {'avg', 'in', 'out'}
    magnitude : float
    """

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def scale_for(self, name, shape):
        """The scale this initializer uses for a weight of ``shape``."""
        if len(shape) < 2:
            raise InvalidShapeError(f"Xavier initializer cannot be applied to vector {name}. "
                                    f"It requires at least 2D, got shape {tuple(shape)}")
        fan_in, fan_out = fans(shape)
        factors = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}
        if self.factor_type not in factors:
            raise InvalidParameterError(f"Incorrect factor type {self.factor_type!r}; expected "
                                        f"'avg', 'in' or 'out'")
        return np.sqrt(self.magnitude / factors[self.factor_type])

    def _init_weight(self, name, arr):
        scale = float(self.scale_for(name, arr.shape))
        if self.rnd_type == "uniform":
            random.uniform(-scale, scale, arr.shape, out=arr)
        elif self.rnd_type == "gaussian":
            random.normal(0, scale, arr.shape, out=arr)
        else:
            raise InvalidParameterError(f"Unknown random type {self.rnd_type!r}; expected "
                                        f"'uniform' or 'gaussian'")


@register
class MSRAPrelu(Xavier):
    """He et al.'s initialisation for (P)ReLU layers: Gaussian Xavier with
    ``magnitude = 2 / (1 + slope**2)``."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Orthogonal(Initializer):
    """A random orthogonal matrix (Saxe et al., 2013) times ``scale``.

    The weight is viewed as ``(shape[0], rest)``; its rows (or columns, when
    there are more rows than columns) are orthonormal before scaling.

    Parameters
    ----------
    scale : float
    rand_type : {'uniform', 'normal'}
        The distribution of the random matrix that is factorised.
    """

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        rows = arr.shape[0]
        columns = int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            draws = random.uniform(-1.0, 1.0, shape=(rows, columns)).asnumpy()
        elif self.rand_type == "normal":
            draws = random.normal(0.0, 1.0, shape=(rows, columns)).asnumpy()
        else:
            raise InvalidParameterError(f"Orthogonal: unknown rand_type {self.rand_type!r}; "
                                        f"expected 'uniform' or 'normal'")
        left, _, right = np.linalg.svd(draws, full_matrices=False)
        basis = left if left.shape == draws.shape else right
        arr[:] = (self.scale * basis).reshape(arr.shape)
