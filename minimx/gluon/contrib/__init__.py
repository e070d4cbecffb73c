"""``mx.gluon.contrib``: Gluon blocks, cells, data sets and the training loop kept apart.

Lesson: 09-gluon, 11-data.  Mirrors ``python/mxnet/gluon/contrib/``: ``nn`` (pixel
shuffles, parallel branches, SyncBatchNorm, SparseEmbedding), ``rnn`` (convolutional and
projected LSTM cells, variational dropout, ``dynamic_unroll``), ``data`` (IntervalSampler,
the WikiText language-model sets) and ``estimator`` (``Estimator.fit`` driven by event
handlers).
"""
from . import nn, rnn, cnn, data, estimator

__all__ = ["nn", "rnn", "cnn", "data", "estimator"]
