"""Checkpoints of networks built from ``mx.rnn`` cells: saved with the weights unpacked.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/rnn/rnn.py``.  A FusedRNNCell keeps
all weights in one vector; the files hold them per gate (``unpack_weights``), so that the
same checkpoint loads into the fused and the unfused form of the network.
"""
from ..model import load_checkpoint, save_checkpoint

__all__ = ["save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint"]


def _cells_list(cells):
    return cells if isinstance(cells, (list, tuple)) else [cells]


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """``mx.model.save_checkpoint`` with ``arg_params`` unpacked by every cell."""
    for cell in _cells_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """``(symbol, arg_params, aux_params)`` with the weights packed back by every cell."""
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _cells_list(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback for ``Module.fit`` saving every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
