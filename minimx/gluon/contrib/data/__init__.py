"""``mx.gluon.contrib.data``: IntervalSampler and the WikiText language-model data sets.

Mirrors ``python/mxnet/gluon/contrib/data/``.
"""
from . import text
from .sampler import IntervalSampler

__all__ = ["IntervalSampler", "text"]
