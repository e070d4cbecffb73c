"""``sym.random``: sampling nodes, with the signatures of ``nd.random``.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/symbol/random.py``.  Parameters
given as numbers make a ``_random_<name>`` node (``shape`` samples of one
distribution); given as Symbols, a ``_sample_<name>`` node (one distribution
per element).  The executor seeds each sampling node at every forward.
"""
import numbers

from ..base import InvalidParameterError
from ..op import get_op
from ..op.random import LIKE_SAMPLERS
from .symbol import Symbol, compose_op

__all__ = ["uniform", "normal", "randint", "exponential", "gamma", "poisson",
           "negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle"]


def _sample(name, params, shape, dtype, kwargs):
    values = list(params.values())
    extra = {"dtype": dtype} if dtype is not None else {}
    if all(isinstance(value, Symbol) for value in values):
        op_name = f"_sample_{name}"
        return compose_op(get_op(op_name), tuple(values),
                          dict(kwargs, shape=() if shape is None else shape, **extra), op_name)
    if all(isinstance(value, numbers.Number) for value in values):
        op_name = f"_random_{name}"
        return compose_op(get_op(op_name), (), dict(kwargs, **params, **extra,
                                                    shape=(1,) if shape is None else shape),
                          op_name)
    raise InvalidParameterError(f"random.{name}: the distribution parameters must be all "
                                f"numbers or all Symbols, got {values}")


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    """A node sampling the uniform distribution on ``[low, high)``."""
    return _sample("uniform", {"low": low, "high": high}, shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    """A node sampling the normal distribution."""
    return _sample("normal", {"loc": loc, "scale": scale}, shape, dtype, kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    """A node sampling whole numbers in ``[low, high)``."""
    return _sample("randint", {"low": low, "high": high}, shape, dtype, kwargs)


def exponential(scale=1, shape=None, dtype=None, **kwargs):
    """A node sampling the exponential distribution of mean ``scale``."""
    return _sample("exponential", {"lam": 1.0 / scale}, shape, dtype, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
    """A node sampling the gamma distribution."""
    return _sample("gamma", {"alpha": alpha, "beta": beta}, shape, dtype, kwargs)


def poisson(lam=1, shape=None, dtype=None, **kwargs):
    """A node sampling the Poisson distribution."""
    return _sample("poisson", {"lam": lam}, shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
    """A node sampling the negative binomial distribution."""
    return _sample("negative_binomial", {"k": k, "p": p}, shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, **kwargs):
    """A node sampling the generalized negative binomial distribution."""
    return _sample("generalized_negative_binomial", {"mu": mu, "alpha": alpha}, shape, dtype,
                   kwargs)


def multinomial(data, shape=None, get_prob=False, dtype="int32", **kwargs):
    """A node drawing category indices from the probabilities in ``data``."""
    return compose_op(get_op("_sample_multinomial"), (data,),
                      dict(kwargs, shape=() if shape is None else shape, get_prob=get_prob,
                           dtype=dtype), "_sample_multinomial")


def shuffle(data, **kwargs):
    """A node shuffling ``data`` along its first axis."""
    return compose_op(get_op("_shuffle"), (data,), kwargs, "_shuffle")


# the samplers shaped like an input (``sym.random.normal_like(data, loc=0, scale=1)``), one
# generated function each, as nd.random has them
def _install_like_samplers():
    from .register import make_function
    for public, op_name in LIKE_SAMPLERS.items():
        globals()[public] = make_function(get_op(op_name), public)
        __all__.append(public)


_install_like_samplers()


def randn(*shape, loc=0, scale=1, dtype=None, **kwargs):
    """A node sampling the normal distribution, the shape given as positional sizes
    (``sym.random.randn(2, 3)``), as ``nd.random.randn``."""
    return normal(loc, scale, shape or None, dtype, **kwargs)


__all__ += ["randn"]
