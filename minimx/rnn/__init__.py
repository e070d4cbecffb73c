"""mx.rnn: MXNet 1.x's symbolic recurrent cells, their checkpoints, and the bucketing
iterator for sentences.

Lesson: 11-data, 12-training-with-module.  Mirrors python/mxnet/rnn/: ``rnn_cell`` (the
cells; Gluon's own are ``gluon.rnn``), ``rnn`` (checkpoints, here ``checkpoint``) and ``io``
(BucketSentenceIter, encode_sentences).
"""
from . import io, rnn_cell
from .checkpoint import do_rnn_checkpoint, load_rnn_checkpoint, save_rnn_checkpoint
from .io import BucketSentenceIter, encode_sentences
from .rnn_cell import (BaseConvRNNCell, BaseRNNCell, BidirectionalCell, ConvGRUCell,
                       ConvLSTMCell, ConvRNNCell, DropoutCell, FusedRNNCell, GRUCell,
                       LSTMCell, ModifierCell, ResidualCell, RNNCell, RNNParams,
                       SequentialRNNCell, ZoneoutCell)

__all__ = ["BucketSentenceIter", "encode_sentences", "save_rnn_checkpoint",
           "load_rnn_checkpoint", "do_rnn_checkpoint", "io", "rnn_cell", *rnn_cell.__all__]
