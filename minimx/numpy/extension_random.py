"""``mx.npx.random``: MXNet's extra samplers beside ``np.random`` (``bernoulli``, the
batched ``uniform_n`` / ``normal_n``) and the shared ``seed``.

Lesson: 03-two-frontends-one-engine.  Mirrors ``python/mxnet/numpy_extension/random.py``.  Each
is a composition of ``np.random``'s samplers: no new operator.
"""
import numbers

import numpy as onp

from ..base import normalize_dtype
from .adapter import call_np, is_symbolic, operand
from .random import _size, normal, seed, uniform

__all__ = ["seed", "bernoulli", "uniform_n", "normal_n"]


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """1 with probability ``prob`` (or ``sigmoid(logit)``), else 0; give exactly one of them.
    A probability outside [0, 1] is a ValueError (an array's values are read: a sync point)."""
    if (prob is None) == (logit is None):
        raise ValueError("bernoulli: give exactly one of prob and logit")
    if prob is not None:
        values = prob if isinstance(prob, numbers.Number) else (
            None if is_symbolic(prob) else operand(prob).asnumpy())
        if values is not None and onp.size(values) and (onp.min(values) < 0 or
                                                        onp.max(values) > 1):
            raise ValueError("bernoulli: prob must be in [0, 1]")
        chance = prob
    else:
        chance = (1.0 / (1.0 + onp.exp(-logit)) if isinstance(logit, numbers.Number)
                  else call_np("sigmoid", operand(logit)))
    shape = _size(size) if size is not None else (
        () if isinstance(chance, numbers.Number) else None)
    draw = uniform(size=shape if shape is not None else chance.shape, ctx=ctx)
    result = (draw < chance).astype(normalize_dtype(dtype))
    if out is not None:
        out[...] = result
        return out
    return result


def _batched(sampler):
    def function(a, b, batch_shape=None, dtype=None, ctx=None):
        event = onp.broadcast_shapes(*[getattr(p, "shape", ()) for p in (a, b)])
        return sampler(a, b, size=_size(batch_shape) + tuple(event), dtype=dtype, ctx=ctx)
    return function


uniform_n = _batched(uniform)
uniform_n.__name__ = uniform_n.__qualname__ = "uniform_n"
uniform_n.__doc__ = "Uniform samples of shape ``batch_shape + broadcast(low, high)``."
normal_n = _batched(normal)
normal_n.__name__ = normal_n.__qualname__ = "normal_n"
normal_n.__doc__ = "Normal samples of shape ``batch_shape + broadcast(loc, scale)``."
