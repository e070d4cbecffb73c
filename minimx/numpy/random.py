"""``mx.np.random``: NumPy's sampling functions over minimx's random operators.

Lesson: 03-two-frontends-one-engine.  Mirrors ``python/mxnet/numpy/random.py``.  ``size=`` is
NumPy's word for ``nd``'s ``shape=`` (None: one zero-dimensional sample); the samples come
from the ``_random_*`` operators and the seed of ``mx.random.seed`` (``np.random.seed`` is
the same seed).  Array-valued ``loc``/``scale``/``low``/``high`` broadcast, as in NumPy:
the sample is drawn for the standard distribution and shifted and scaled.
"""
import numbers

import numpy as onp

from ..base import normalize_dtype
from ..ndarray import NDArray
from ..random_state import seed as _seed
from .adapter import call_np, numpy_shaped, operand

__all__ = ["seed", "normal", "uniform", "randn", "rand", "randint", "choice", "shuffle",
           "multinomial", "exponential", "gamma", "poisson", "multivariate_normal"]


def seed(seed=None, ctx="all"):  # noqa: A002 (NumPy's name)
    """Seed the generators (the same seed as ``mx.random.seed``)."""
    _seed(onp.random.randint(2 ** 31) if seed is None else seed, ctx=ctx)


def _size(size):
    if size is None:
        return ()
    return (int(size),) if isinstance(size, numbers.Integral) else tuple(size)


def _draw(name, size, dtype, ctx, **params):
    shape = _size(size)
    result = call_np(f"_random_{name}", shape=shape or (1,), ctx=ctx,
                     dtype=normalize_dtype(dtype).name, **params)
    return numpy_shaped(result, shape)


# distribution -> its two parameters' names and (shift, scale) of the standard sample
_LOCATION_SCALE = {"normal": (("loc", "scale"), lambda loc, scale: (loc, scale)),
                   "uniform": (("low", "high"), lambda low, high: (low, high - low))}


def _location_scale(name, first, second, size, dtype, ctx, out):
    """Samples of a location-scale family: one operator call for number parameters, else a
    standard sample (``_random_<name>`` with its defaults) shifted and scaled, broadcasting."""
    names, shift_scale = _LOCATION_SCALE[name]
    if _numbers(first, second):
        params = {names[0]: float(first), names[1]: float(second)}
        return _into(_draw(name, size, dtype, ctx, **params), out)
    shape = _size(size) or onp.broadcast_shapes(onp.shape(first), onp.shape(second))
    standard = _draw(name, shape, dtype, ctx)
    shift, scale = shift_scale(operand(first, ctx=standard.context),
                               operand(second, ctx=standard.context))
    return _into(standard * scale + shift, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples of N(loc, scale^2)."""
    return _location_scale("normal", loc, scale, size, dtype, ctx or device, out)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples of U[low, high)."""
    return _location_scale("uniform", low, high, size, dtype, ctx or device, out)


def _numbers(*values):
    return all(isinstance(v, (numbers.Number, onp.generic)) for v in values)


def _into(result, out):
    if out is None:
        return result
    out[...] = result
    return out


def randn(*size, **kwargs):
    """Standard normal samples of shape ``size``."""
    return normal(0.0, 1.0, size=size or None, **kwargs)


def rand(*size, **kwargs):
    """Uniform samples in [0, 1) of shape ``size``."""
    return uniform(0.0, 1.0, size=size or None, **kwargs)


def randint(low, high=None, size=None, dtype=None, ctx=None, device=None, out=None):
    """Integers in ``[low, high)`` (``[0, low)`` without ``high``); int64 by default."""
    if high is None:
        low, high = 0, low
    shape = _size(size)
    result = call_np("_random_randint", low=int(low), high=int(high), shape=shape or (1,),
                     dtype=normalize_dtype(dtype, "int64").name, ctx=ctx or device)
    return _into(numpy_shaped(result, shape), out)


def exponential(scale=1.0, size=None, ctx=None, device=None, out=None):
    """Exp(1/scale) samples: ``scale * E`` (an array ``scale`` broadcasts, with a gradient)."""
    if _numbers(scale):
        return _into(_draw("exponential", size, None, ctx or device, lam=1.0 / scale), out)
    return _transformed("exponential", lambda e, s: e * s, [scale], size, None, ctx or device,
                        out)


def gamma(shape=1.0, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Gamma(shape, scale) samples; array parameters broadcast (one ``_sample_gamma`` draw
    per element).  Parameters must be positive (ValueError, as MXNet; an array's values
    are read: a sync point)."""
    for value in (shape, scale):
        is_array = isinstance(value, NDArray)
        if (is_array and value.size and float(value.min()) <= 0) or \
                (_numbers(value) and value <= 0):
            raise ValueError(f"np.random.gamma: shape and scale must be positive, got {value}")
    if _numbers(shape, scale):
        return _into(_draw("gamma", size, dtype, ctx or device, alpha=shape, beta=scale), out)
    from .adapter import as_operand_like, promote
    from .manipulation import broadcast_arrays, broadcast_to
    alpha, beta = [p if _numbers(p) else operand(p, ctx=ctx or device) for p in (shape, scale)]
    alpha, beta = promote(as_operand_like(alpha, beta), as_operand_like(beta, alpha))
    alpha, beta = broadcast_arrays(alpha, beta)
    if size is not None:
        alpha, beta = broadcast_to(alpha, _size(size)), broadcast_to(beta, _size(size))
    samples = call_np("_sample_gamma", alpha, beta)
    wanted = normalize_dtype(dtype).name            # dtype, not the parameters', as MXNet's
    return _into(samples if samples.dtype == wanted else samples.astype(wanted), out)


def poisson(lam=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    return _into(_draw("poisson", size, dtype, ctx or device, lam=lam), out)


def shuffle(x):
    """Shuffle ``x`` along its first axis, in place (the ``_shuffle`` operator)."""
    call_np("_shuffle", x, out=x)


def choice(a, size=None, replace=True, p=None, ctx=None, device=None, out=None):
    """Samples from ``a`` (an array, or ``range(a)`` for an int)."""
    ctx = ctx or device
    count = int(onp.prod(_size(size), dtype=onp.int64))
    population = a if isinstance(a, numbers.Integral) else operand(a).shape[0]
    if p is not None:
        probabilities = operand(p, ctx=ctx)
        if replace:
            picked = call_np("_sample_multinomial", probabilities, shape=(count,),
                             dtype="int32").astype(onp.int64)     # as MXNet's: int64
        else:
            picked = _first_arrivals(probabilities, count, ctx)
    elif replace:
        picked = randint(0, population, size=(count,), ctx=ctx)
    else:
        if count > population:
            raise ValueError("Cannot take a larger sample than population when 'replace=False'")
        order = call_np("_shuffle", call_np("_arange", start=0, stop=population, step=1,
                                            dtype="int64", ctx=ctx))
        picked = order[:count]
    picked = picked.reshape(_size(size))
    from .manipulation import take
    result = picked if isinstance(a, numbers.Integral) else take(operand(a), picked, axis=0)
    return _into(result, out)


def _first_arrivals(p, count, ctx):
    """``count`` distinct indices drawn one after another with probabilities ``p`` (NumPy's
    ``choice(..., replace=False, p=p)``), in one pass: index ``i`` "arrives" after an
    exponential time of rate ``p[i]``, ``-log(u) / p[i]``, and the first ``count`` to arrive
    are such a draw (Efraimidis and Spirakis, 2006).  Operators only, so a graph has it."""
    if count > p.shape[0]:
        raise ValueError("Cannot take a larger sample than population when 'replace=False'")
    rates = p.astype("float32") + 1e-30     # p = 0: never first (and no division by 0)
    arrivals = -call_np("log", uniform(0.0, 1.0, size=p.shape, ctx=ctx)) / rates
    return call_np("topk", arrivals, k=count, ret_typ="indices", is_ascend=True,
                   dtype="int64")


def multinomial(n, pvals, size=None):
    """Counts of ``n`` draws over the categories of ``pvals`` (int64), per ``size``."""
    pvals = operand(pvals)
    shape = _size(size)
    count = int(onp.prod(shape, dtype=onp.int64))
    if count == 0 or pvals.size == 0:
        return call_np("_zeros", shape=shape + (pvals.size,), dtype="int64")
    rows = call_np("broadcast_to", pvals.reshape(1, -1), shape=(count, pvals.size))
    draws = call_np("_sample_multinomial", rows, shape=(n,), dtype="int32")
    counts = call_np("one_hot", draws, depth=pvals.size).sum(axis=1)
    return counts.astype(onp.int64).reshape(shape + (pvals.size,))


# -- distributions as transformations of a standard sample (differentiable in their
# parameters, as MXNet's reparameterised samplers): U ~ U[0, 1), E ~ Exp(1), N ~ N(0, 1)
def _transformed(base, transform, parameters, size, dtype, ctx, out):
    """``transform(standard, *parameters)`` with ``standard`` a sample of ``base`` of the
    shape ``size`` (None: the parameters' broadcast shape)."""
    def shape_of(value):
        return value.shape if hasattr(value, "shape") else onp.shape(value)
    shape = _size(size) or onp.broadcast_shapes(*[shape_of(p) for p in parameters])
    standard = _draw(base, shape, dtype, ctx)
    parameters = [p if _numbers(p) else operand(p, ctx=standard.context) for p in parameters]
    return _into(transform(standard, *parameters), out)


# the parameters MXNet checks when they are numbers (ValueError)
_BOUNDED = {"a": (lambda v: v > 0, "positive"), "sigma": (lambda v: v >= 0, "non-negative"),
            "scale": (lambda v: v >= 0, "non-negative")}


def _sampler(name, base, transform, names, defaults, doc):
    """``np.random.<name>(*names, size=None, ...)``, NumPy's positional order; parameters
    given as numbers are checked (``_BOUNDED``)."""
    order = (*names, "size", "dtype", "ctx", "out")

    def function(*args, device=None, **kwargs):
        if len(args) > len(order):
            raise TypeError(f"np.random.{name} takes at most {len(order)} arguments")
        given = {**dict(zip(order, args)), **kwargs}
        unknown = set(given) - set(order)
        if unknown:
            raise TypeError(f"np.random.{name}: unexpected arguments {sorted(unknown)}")
        values = [given.get(key, default) for key, default in zip(names, defaults)]
        if any(value is None for value in values):
            raise TypeError(f"np.random.{name}: {names} need values")
        for key, value in zip(names, values):
            if key in _BOUNDED and _numbers(value) and not _BOUNDED[key][0](value):
                raise ValueError(f"np.random.{name}: {key} must be {_BOUNDED[key][1]}, "
                                 f"got {value}")
        return _transformed(base, transform, values, given.get("size"), given.get("dtype"),
                            given.get("ctx") or device, given.get("out"))
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _exp(x):
    return call_np("exp", x)


def _log(x):
    return call_np("log", x)


_SAMPLERS = {
    # name: (standard sample, transform, parameter names, defaults, doc)
    "logistic": ("uniform", lambda u, loc, scale: loc + scale * _log(u / (1 - u)),
                 ("loc", "scale"), (0.0, 1.0), "Logistic samples: loc + scale log(U/(1-U))."),
    "gumbel": ("exponential", lambda e, loc, scale: loc - scale * _log(e),
               ("loc", "scale"), (0.0, 1.0), "Gumbel samples: loc - scale log(E)."),
    "lognormal": ("normal", lambda n, mean, sigma: _exp(mean + sigma * n),
                  ("mean", "sigma"), (0.0, 1.0), "Log-normal samples: exp(mean + sigma N)."),
    "rayleigh": ("exponential", lambda e, scale: scale * call_np("sqrt", 2 * e),
                 ("scale",), (1.0,), "Rayleigh samples: scale sqrt(2E)."),
    "weibull": ("exponential", lambda e, a: e ** (1 / a), ("a",), (None,),
                "Weibull samples of shape a: E ** (1/a)."),
    "pareto": ("exponential", lambda e, a: call_np("expm1", e / a), ("a",), (None,),
               "Pareto (Lomax) samples of shape a: exp(E/a) - 1."),
    "power": ("exponential", lambda e, a: (-call_np("expm1", -e)) ** (1 / a), ("a",),
              (None,), "Power-distribution samples of shape a: (1 - exp(-E)) ** (1/a)."),
}
for _name, (_base, _transform, _names, _defaults, _doc) in _SAMPLERS.items():
    globals()[_name] = _sampler(_name, _base, _transform, _names, _defaults, _doc)
__all__ += [*_SAMPLERS, "chisquare", "beta"]


def chisquare(df, size=None, dtype=None, ctx=None, device=None, out=None):
    """Chi-square samples with ``df`` degrees of freedom: Gamma(df/2, scale 2)."""
    return gamma(df / 2.0, 2.0, size=size, dtype=dtype, ctx=ctx, device=device, out=out)


def beta(a, b, size=None, dtype=None, ctx=None, device=None, out=None):
    """Beta(a, b) samples: X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b)."""
    x = gamma(a, 1.0, size=size, dtype=dtype, ctx=ctx, device=device)
    y = gamma(b, 1.0, size=size, dtype=dtype, ctx=ctx, device=device)
    return _into(x / (x + y), out)


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """Samples of N(mean, cov) for a batch of distributions: ``mean`` ``(..., N)`` and
    ``cov`` ``(..., N, N)`` broadcast; the result has shape ``size + batch + (N,)``.
    ``check_valid`` and ``tol`` (NumPy's check that ``cov`` is positive semi-definite) are
    taken and ignored, as ``mx.np.random`` of MXNet 1.9.1 does."""
    return call_np("_npi_multivariate_normal", operand(mean), operand(cov),
                   size=None if size is None else _size(size))
