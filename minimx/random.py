"""``mx.random``: seeding, and the samplers of ``nd.random`` under MXNet's other name.

Lesson: 02-ndarray.  Mirrors ``python/mxnet/random.py``.
"""
from .random_state import seed

__all__ = ["seed"]
