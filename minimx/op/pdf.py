"""``random_pdf_<distribution>``: the density (or mass) of samples under given parameters.

Lesson: 13-optimizers (likelihoods are what a model maximizes).  Mirrors
``src/operator/random/pdf_op.cc``.  The parameter arrays have a shape ``P``; the samples
``P + S``, each sample read under the parameters of its leading index (``dirichlet``: the
samples' last axis is the category).  The output has the samples' shape (``dirichlet``:
without that last axis): the density, or its log with ``is_log``.  Every distribution
declares its log density and its partial derivatives; the gradient of the density is the
density times that of its log.  The discrete ones have no gradient in their samples.
"""
import math

import numpy as np

from .common import on_host, to_device
from .params import Param
from .registry import OpDef, TestHints, register_op
from .special import digamma, gammaln

_LOG_2PI = math.log(2 * math.pi)


# each: (log density, [d/d sample, d/d parameter 1, ...]) of float64 arrays
def _normal(x, mu, sigma):
    z = (x - mu) / sigma
    return (-0.5 * z * z - np.log(sigma) - 0.5 * _LOG_2PI,
            [-z / sigma, z / sigma, (z * z - 1) / sigma])


def _uniform(x, low, high):
    width = high - low
    return -np.log(width) + 0 * x, [0 * x, 1 / width + 0 * x, -1 / width + 0 * x]


def _gamma(x, alpha, beta):
    return (alpha * np.log(beta) + (alpha - 1) * np.log(x) - beta * x - gammaln(alpha),
            [(alpha - 1) / x - beta, np.log(beta) + np.log(x) - digamma(alpha),
             alpha / beta - x])


def _exponential(x, lam):
    return np.log(lam) - lam * x, [-lam + 0 * x, 1 / lam - x]


def _poisson(x, lam):
    return x * np.log(lam) - lam - gammaln(x + 1), [0 * x, x / lam - 1]


def _negative_binomial(x, k, p):
    log_pmf = gammaln(x + k) - gammaln(k) - gammaln(x + 1) + k * np.log(p) + x * np.log1p(-p)
    return log_pmf, [0 * x, digamma(x + k) - digamma(k) + np.log(p), k / p - x / (1 - p)]


def _generalized_negative_binomial(x, mu, alpha):
    n, p = 1 / alpha, 1 / (mu * alpha + 1)
    log_pmf, (_, grad_n, grad_p) = _negative_binomial(x, n, p)
    return log_pmf, [0 * x, grad_p * (-alpha * p * p),
                     grad_n * (-1 / (alpha * alpha)) + grad_p * (-mu * p * p)]


class _Pdf(OpDef):
    """Density of ``sample`` under the parameter arrays (see the module)."""

    distribution = None
    discrete = False
    host_compute = True                 # SciPy's special functions
    params = {"is_log": Param(bool, default=False, doc="the log density")}

    def infer_shape(self, sample, *parameters):
        leading = tuple(parameters[0])
        if any(tuple(p) != leading for p in parameters) or tuple(sample[:len(leading)]) != \
                leading:
            raise self.shape_error(f"the parameters must share one shape that starts the "
                                   f"samples' shape, got sample {tuple(sample)} and "
                                   f"{[tuple(p) for p in parameters]}")
        return tuple(sample)

    def _evaluate(self, sample, parameters):
        extra = sample.ndim - parameters[0].ndim
        expanded = [p.reshape(p.shape + (1,) * extra) for p in parameters]
        log_pdf, grads = type(self).distribution(sample, *expanded)
        return log_pdf, grads, extra

    def forward(self, xp, sample, *parameters):
        values = [on_host(xp, a).astype(np.float64) for a in (sample, *parameters)]
        log_pdf, _, _ = self._evaluate(values[0], values[1:])
        out = log_pdf if self.is_log else np.exp(log_pdf)
        return to_device(xp, out.astype(sample.dtype))

    def backward(self, xp, out_grad, **saved):
        arrays = [on_host(xp, saved[name]).astype(np.float64) for name in self.inputs]
        sample, parameters = arrays[0], arrays[1:]
        log_pdf, grads, extra = self._evaluate(sample, parameters)
        head = on_host(xp, out_grad).astype(np.float64)
        scale = head if self.is_log else head * np.exp(log_pdf)
        axes = tuple(range(parameters[0].ndim, sample.ndim))
        result = [None if self.discrete else scale * grads[0]]
        result += [(scale * g).sum(axis=axes) for g in grads[1:]]
        dtype = saved["sample"].dtype
        return tuple(None if r is None else to_device(xp, r.astype(dtype)) for r in result)


def _declare(name, distribution, inputs, sample_range, param_ranges, discrete=False):
    """Declare ``_random_pdf_<name>``; test samples in ``sample_range``, parameter ``i``
    in ``param_ranges[i]`` (whole numbers for discrete samples)."""

    def inputs_for(rng, shapes, dtype):
        sample = rng.uniform(*sample_range, shapes[0])
        if discrete:
            sample = np.floor(sample)
        params = [rng.uniform(low, high, shape) for (low, high), shape in
                  zip(param_ranges, shapes[1:])]
        return [sample.astype(dtype)] + [p.astype(dtype) for p in params]

    def reference(np_, sample, *parameters, is_log=False):
        log_pdf, _, _ = cls._evaluate(cls.create(), sample.astype(np.float64),
                                      [p.astype(np.float64) for p in parameters])
        return log_pdf if is_log else np.exp(log_pdf)

    test = TestHints(shapes=((2, 3, 4),) + ((2, 3),) * len(inputs), inputs=inputs_for,
                     reference=reference, grad=not discrete or len(inputs) > 0,
                     cases=(({"is_log": True}, ((2, 5),) + ((2,),) * len(inputs)),),
                     dtypes=("float64",))
    cls = register_op(type(f"Pdf{name.title().replace('_', '')}", (_Pdf,), {
        "__doc__": f"The {name.replace('_', ' ')} density of ``sample`` "
                   f"(parameters {', '.join(inputs)}).",
        "name": f"_random_pdf_{name}", "aliases": (f"random_pdf_{name}",),
        "inputs": ("sample",) + tuple(inputs), "saves": ("sample",) + tuple(inputs),
        "distribution": staticmethod(distribution),
        "discrete": discrete, "no_grad_inputs": ("sample",) if discrete else (),
        "test": test, "__module__": __name__}))
    return cls


PdfNormal = _declare("normal", _normal, ("mu", "sigma"), (-2, 2), [(-1, 1), (0.5, 2)])
PdfUniform = _declare("uniform", _uniform, ("low", "high"), (-0.9, 0.9),
                      [(-2, -1), (1, 2)])
PdfGamma = _declare("gamma", _gamma, ("alpha", "beta"), (0.2, 3), [(0.5, 3), (0.5, 2)])
PdfExponential = _declare("exponential", _exponential, ("lam",), (0.1, 3), [(0.5, 2)])
PdfPoisson = _declare("poisson", _poisson, ("lam",), (0, 8), [(0.5, 4)], discrete=True)
PdfNegativeBinomial = _declare("negative_binomial", _negative_binomial, ("k", "p"), (0, 8),
                               [(1, 5), (0.2, 0.8)], discrete=True)
PdfGeneralizedNegativeBinomial = _declare(
    "generalized_negative_binomial", _generalized_negative_binomial, ("mu", "alpha"), (0, 8),
    [(1, 4), (0.2, 1.5)], discrete=True)


@register_op
class PdfDirichlet(OpDef):
    """The Dirichlet density of ``sample`` (categories on its last axis) under ``alpha``."""
    name = "_random_pdf_dirichlet"
    host_compute = True                 # SciPy's special functions
    aliases = ("random_pdf_dirichlet",)
    inputs = ("sample", "alpha")
    params = {"is_log": Param(bool, default=False, doc="the log density")}
    saves = ("sample", "alpha")
    test = TestHints(shapes=((2, 5, 3), (2, 3)), dtypes=("float64",),
                     inputs=lambda rng, shapes, dtype: [
                         rng.dirichlet(np.ones(shapes[0][-1]), shapes[0][:-1]).astype(dtype),
                         rng.uniform(0.5, 2, shapes[1]).astype(dtype)],
                     reference=lambda np, x, a, is_log=False: PdfDirichlet._log_pdf(
                         x, a)[0] if is_log else np.exp(PdfDirichlet._log_pdf(x, a)[0]),
                     cases=(({"is_log": True}, ((2, 5, 3), (2, 3))),), grad_rtol=5e-2)

    def infer_shape(self, sample, alpha):
        if tuple(sample[:len(alpha) - 1]) != tuple(alpha[:-1]) or sample[-1] != alpha[-1]:
            raise self.shape_error(f"sample {tuple(sample)} must be alpha's leading shape + "
                                   f"samples + {alpha[-1]} categories, alpha {tuple(alpha)}")
        return tuple(sample[:-1])

    @staticmethod
    def _log_pdf(sample, alpha):
        extra = sample.ndim - alpha.ndim
        a = alpha.reshape(alpha.shape[:-1] + (1,) * extra + alpha.shape[-1:])
        norm = gammaln(a.sum(axis=-1)) - gammaln(a).sum(axis=-1)
        return norm + ((a - 1) * np.log(sample)).sum(axis=-1), a, extra

    def forward(self, xp, sample, alpha):
        log_pdf, _, _ = self._log_pdf(on_host(xp, sample).astype(np.float64),
                                      on_host(xp, alpha).astype(np.float64))
        return to_device(xp, (log_pdf if self.is_log else np.exp(log_pdf)).astype(sample.dtype))

    def backward(self, xp, out_grad, sample, alpha):
        x = on_host(xp, sample).astype(np.float64)
        log_pdf, a, extra = self._log_pdf(x, on_host(xp, alpha).astype(np.float64))
        head = on_host(xp, out_grad).astype(np.float64)
        scale = (head if self.is_log else head * np.exp(log_pdf))[..., None]
        grad_x = scale * (a - 1) / x
        grad_a = scale * (digamma(a.sum(axis=-1, keepdims=True)) - digamma(a) + np.log(x))
        axes = tuple(range(alpha.ndim - 1, alpha.ndim - 1 + extra))
        return (to_device(xp, grad_x.astype(sample.dtype)),
                to_device(xp, grad_a.sum(axis=axes).astype(alpha.dtype)))
