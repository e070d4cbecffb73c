"""``mx.gluon.contrib.rnn``: convolutional cells, LSTMP, variational dropout.

Mirrors ``python/mxnet/gluon/contrib/rnn/``.
"""
from . import conv_rnn_cell, rnn_cell
from .conv_rnn_cell import *  # noqa: F401,F403
from .rnn_cell import LSTMPCell, VariationalDropoutCell, dynamic_unroll

__all__ = conv_rnn_cell.__all__ + ["LSTMPCell", "VariationalDropoutCell", "dynamic_unroll"]
