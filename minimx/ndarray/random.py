"""``nd.random``: sampling arrays from distributions, with MXNet's signatures.

Lesson: 02-ndarray-and-context.  Mirrors ``python/mxnet/ndarray/random.py``.  Each sampler
takes its distribution's parameters either as numbers (one distribution, giving
``shape`` samples: operator ``_random_<name>``) or as NDArrays (one
distribution per element, each giving ``shape`` samples: ``_sample_<name>``).
Seeds come from ``mx.random.seed``; see ``minimx/random_state.py``.
"""
import numbers

from ..base import InvalidParameterError
from ..op import get_op
from ..op.random import LIKE_SAMPLERS
from .ndarray import NDArray
from .register import call, make_function

__all__ = ["uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson",
           "negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle",
           "uniform_like", "normal_like", "gamma_like", "exponential_like", "poisson_like",
           "negative_binomial_like", "generalized_negative_binomial_like"]


def _sample(name, params, shape, dtype, ctx, out, **kwargs):
    """Call ``_random_<name>`` (numbers) or ``_sample_<name>`` (NDArrays) with ``params``;
    other keywords go to the operator, which refuses unknown ones, as MXNet's does."""
    kwargs.pop("name", None)
    values = list(params.values())
    if all(isinstance(value, NDArray) for value in values):
        shape = () if shape is None else shape
        return call(f"_sample_{name}", *values, shape=shape, dtype=dtype, out=out, **kwargs)
    if all(isinstance(value, numbers.Number) for value in values):
        if shape is None or shape == ():
            shape = out.shape if out is not None else (1,)
        if dtype is None and out is not None:
            dtype = out.dtype
        if ctx is None and out is not None:
            ctx = out.context           # samples land where out lives, whatever `with ctx:` says
        return call(f"_random_{name}", shape=shape, dtype=dtype, ctx=ctx, out=out, **params,
                    **kwargs)
    kinds = ", ".join(f"{key}: {type(value).__name__}" for key, value in params.items())
    raise InvalidParameterError(
        f"random.{name}: the distribution parameters must be all numbers or all NDArrays, "
        f"got {kinds}")


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of the uniform distribution on ``[low, high)``.

    Parameters
    ----------
    low, high : float or NDArray
        Bounds; NDArrays give one distribution per element.
    shape : int or tuple of ints
        Samples per distribution (default: one).
    dtype : {'float16', 'float32', 'float64'}, default float32
    ctx : Context, optional
    out : NDArray, optional

    Examples
    --------
    >>> nd.random.uniform(-1, 1, shape=(2, 3)).shape
    (2, 3)
    """
    return _sample("uniform", {"low": low, "high": high}, shape, dtype, ctx, out, **kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of the normal distribution with mean ``loc`` and deviation ``scale``."""
    return _sample("normal", {"loc": loc, "scale": scale}, shape, dtype, ctx, out, **kwargs)


def randn(*shape, **kwargs):
    """Normal samples of shape ``shape``: ``randn(2, 3, loc=0, scale=1)``."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    return normal(loc, scale, shape or None, kwargs.pop("dtype", None), kwargs.pop("ctx", None),
                  kwargs.pop("out", None), **kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from ``[low, high)`` (int32 by default)."""
    return _sample("randint", {"low": low, "high": high}, shape, dtype, ctx, out, **kwargs)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of the exponential distribution with mean ``scale`` (rate ``1 / scale``)."""
    return _sample("exponential", {"lam": 1.0 / scale}, shape, dtype, ctx, out, **kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of the gamma distribution with shape ``alpha`` and scale ``beta``."""
    return _sample("gamma", {"alpha": alpha, "beta": beta}, shape, dtype, ctx, out, **kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of the Poisson distribution with rate ``lam`` (stored as floats)."""
    return _sample("poisson", {"lam": lam}, shape, dtype, ctx, out, **kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Failures before the ``k``-th success, each trial succeeding with probability ``p``."""
    return _sample("negative_binomial", {"k": k, "p": p}, shape, dtype, ctx, out, **kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None,
                                  **kwargs):
    """Counts with mean ``mu`` and variance ``mu + alpha * mu**2``."""
    return _sample("generalized_negative_binomial", {"mu": mu, "alpha": alpha}, shape, dtype,
                   ctx, out, **kwargs)


def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", **kwargs):
    """Category indices drawn with the probabilities on the last axis of ``data``.

    Returns the indices, shaped ``data.shape[:-1] + shape``; with
    ``get_prob=True`` also their log-probabilities (differentiable).

    Examples
    --------
    >>> probs = nd.array([[0.0, 1.0], [1.0, 0.0]])
    >>> nd.random.multinomial(probs, shape=3).asnumpy()
    array([[1, 1, 1],
           [0, 0, 0]], dtype=int32)
    """
    return call("_sample_multinomial", data, shape=() if shape is None else shape,
                get_prob=get_prob, dtype=dtype, out=out)


def shuffle(data, **kwargs):
    """``data`` with its first axis randomly permuted."""
    return call("_shuffle", data, out=kwargs.get("out"))


for _public, _op_name in LIKE_SAMPLERS.items():      # uniform_like, normal_like, ...
    globals()[_public] = make_function(get_op(_op_name), _public, module=__name__)
