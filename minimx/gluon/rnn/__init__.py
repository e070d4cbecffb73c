"""``gluon.rnn``: recurrent layers (fused over a sequence) and cells (one step at a time).

Lesson: 09-gluon, 12-training-with-module (the RNN operator).  Mirrors ``python/mxnet/gluon/rnn/``.
"""
from .rnn_cell import (BidirectionalCell, DropoutCell, GRUCell, HybridRecurrentCell,
                       HybridSequentialRNNCell, LSTMCell, ModifierCell, RecurrentCell, RNNCell,
                       ResidualCell, SequentialRNNCell, ZoneoutCell)
from .rnn_layer import GRU, LSTM, RNN

__all__ = ["RNN", "LSTM", "GRU", "RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell",
           "GRUCell", "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell",
           "ModifierCell", "ZoneoutCell", "ResidualCell", "BidirectionalCell"]
