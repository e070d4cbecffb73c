"""FusedRNN: initialise the one flat ``parameters`` vector of a fused RNN piece by piece.

Lesson: 12-training-with-module.  Mirrors ``FusedRNN`` of ``python/mxnet/initializer.py``.
The vector holds every gate's weights and biases of every layer and direction
(``op/rnn.py`` says in which order); each weight piece gets ``init`` (or the global
initializer), each bias zero, and an LSTM's forget-gate biases ``forget_bias``.
"""
import math

from .. import ndarray as nd
from ..op.rnn import fused_input_size, fused_parameter_pieces
from .base import InitDesc, Initializer, create, register

__all__ = ["FusedRNN"]


@register
class FusedRNN(Initializer):
    """``mx.init.FusedRNN(init, num_hidden, num_layers, mode, bidirectional, forget_bias)``:
    ``init`` is an Initializer, its JSON, or None for the global initializer."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False,
                 forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init, self._num_hidden, self._num_layers = init, num_hidden, num_layers
        self._mode, self._bidirectional, self._forget_bias = mode, bidirectional, forget_bias

    def _init_weight(self, desc, arr):
        sizes = (self._mode, self._num_hidden, self._num_layers, self._bidirectional)
        flat = arr.asnumpy().reshape(-1)
        input_size = fused_input_size(*sizes, flat.size)
        global_init = getattr(desc, "global_init", None)
        for name, offset, shape in fused_parameter_pieces(*sizes, input_size):
            piece = nd.zeros(shape, dtype=arr.dtype)
            if self._mode == "lstm" and name.endswith("_f_bias"):
                piece[:] = self._forget_bias
            elif not name.endswith("_bias"):
                chosen = self._init if self._init is not None else global_init
                if chosen is not None and chosen is not self:
                    chosen(InitDesc(name, global_init=global_init), piece)
            flat[offset:offset + math.prod(shape)] = piece.asnumpy().reshape(-1)
        arr[:] = flat.reshape(arr.shape)
