"""``mx.random``: seeding, and the samplers of ``nd.random`` under MXNet's other name.

Lesson: 02-ndarray-and-context.  Mirrors ``python/mxnet/random.py``: ``mx.random.uniform``
is ``mx.nd.random.uniform``, and ``mx.random.seed(s)`` makes every later
sampler (on every device, or on ``ctx`` only) repeat the same numbers.
"""
from .ndarray.random import (exponential, gamma, generalized_negative_binomial, multinomial,
                             negative_binomial, normal, poisson, randint, randn, shuffle,
                             uniform)
from .random_state import seed

__all__ = ["seed", "uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson",
           "negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle"]
