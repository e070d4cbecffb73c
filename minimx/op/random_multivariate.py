"""The multivariate normal sampler behind ``np.random.multivariate_normal``.

Lesson: 03-two-frontends-one-engine.  Mirrors MXNet 1.9.1's ``mvn_fallback`` (its
``numpy_op_fallback.py``, a Python operator there): ``mean`` of shape ``(..., N)`` and
``cov`` of shape ``(..., N, N)`` broadcast against each other (a batch of distributions),
``size`` goes in front.  A sample is ``mean + einsum('...jk,...j->...k', L, z)`` with ``L``
the lower Cholesky factor of ``cov`` and ``z`` standard normal, the formula MXNet's
operator uses.  That is ``mean + L^T z``, whose covariance is ``L^T L``: ``cov`` itself only
when ``cov`` is diagonal (NumPy's sampler, ``mean + L z``, gives ``L L^T = cov`` always).
minimx keeps MXNet 1.9.1's samples (measured: cov [[1, .8], [.8, 2]] gives a sample
covariance of about [[1.64, .94], [.94, 1.36]] on both).  As MXNet's, it has no gradient.
"""
import numpy

from .params import Optional, Param, Shape
from .registry import OpDef, TestHints, register_op

__all__ = ["MultivariateNormal"]


def _positive_definite_inputs(rng, shapes, dtype):
    mean_shape, cov_shape = shapes
    factor = rng.uniform(-1, 1, cov_shape)
    cov = factor @ factor.swapaxes(-1, -2) + cov_shape[-1] * numpy.eye(cov_shape[-1])
    return [rng.uniform(-1, 1, mean_shape).astype(dtype), cov.astype(dtype)]


@register_op
class MultivariateNormal(OpDef):
    """Samples of N(mean, cov), ``size + broadcast(mean.shape, cov.shape[:-1])`` of them."""
    name = "_npi_multivariate_normal"
    inputs = ("mean", "cov")
    params = {"size": Param(Optional(Shape), default=None,
                            doc="the samples' leading axes (None: one sample per batch)")}
    differentiable = False
    has_gradient = False
    test = TestHints(shapes=((2,), (3, 2, 2)), params={"size": (2,)}, grad=False,
                     random=True, inputs=_positive_definite_inputs)

    def infer_shape(self, mean, cov):
        if len(mean) < 1:
            raise self.shape_error("mean must be at least 1 dimensional")
        if len(cov) < 2:
            raise self.shape_error("cov must be at least 2 dimensional")
        if cov[-1] != cov[-2]:
            raise self.shape_error(f"the last two dimensions of cov must be the same, "
                                   f"got cov of shape {tuple(cov)}")
        if cov[-1] != mean[-1]:
            raise self.shape_error(f"mean and cov must have the same length: mean has "
                                   f"shape {tuple(mean)}, cov {tuple(cov)}")
        return tuple(self.size or ()) + self.broadcast_shape(tuple(mean), tuple(cov[:-1]))

    def broadcast_shape(self, first, second):
        """NumPy's broadcast of two shapes; a shape error naming them when they do not."""
        rank = max(len(first), len(second))
        first, second = (1,) * (rank - len(first)) + first, (1,) * (rank - len(second)) + second
        if any(a != b and 1 not in (a, b) for a, b in zip(first, second)):
            raise self.shape_error(f"mean of shape {first} and cov of shape {second} + (N,) "
                                   f"do not broadcast")
        return tuple(max(a, b) if 0 not in (a, b) else 0 for a, b in zip(first, second))

    def infer_type(self, mean, cov):
        return mean

    def forward(self, xp, mean, cov, rng):
        out_shape = self.infer_shape(mean.shape, cov.shape)
        # float16 has no Cholesky factorisation: factor in float32, as MXNet's operator
        work = "float32" if cov.dtype == xp.float16 else cov.dtype
        factor = xp.linalg.cholesky(cov.astype(work))
        noise = rng.standard_normal(out_shape).astype(mean.dtype)
        sample = mean + xp.einsum("...jk,...j->...k", factor.astype(mean.dtype), noise)
        return sample.astype(mean.dtype)
