"""Convolutional RNN, LSTM and GRU cells (``Conv1DRNNCell`` ... ``Conv3DGRUCell``).

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/contrib/rnn/conv_rnn_cell.py``.  The gate
arithmetic is that of ``gluon.rnn``'s RNNCell, LSTMCell and GRUCell; only the two
projections change: ``i2h`` and ``h2h`` are convolutions instead of dense layers, so the
states are feature maps.  ``h2h`` keeps the state's size (odd kernels, "same" padding);
``i2h``'s output size is the state's, found from ``input_shape`` and its kernel, padding
and dilation.  ``input_shape`` leaves out the batch axis: ``(C, W)`` for 'NCW',
``(W, C)`` for 'NWC'; C may be 0 to learn it at the first call.
"""
from ...rnn.rnn_cell import GRUCell, HybridRecurrentCell, LSTMCell, RNNCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell",
           "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]


def _spec(value, dims, what):
    values = (value,) * dims if isinstance(value, int) else tuple(value)
    if len(values) != dims:
        raise ValueError(f"{dims}-d convolutional cell: {what} must be an int or {dims} of "
                         f"them, got {value!r}")
    return values


class _ConvCell:
    """Put before RNNCell, LSTMCell or GRUCell: their gates over convolution projections."""

    _dims = 0

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=0,
                 i2h_dilate=1, h2h_dilate=1, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", conv_layout=None, activation="tanh",
                 prefix=None, params=None):
        HybridRecurrentCell.__init__(self, prefix=prefix, params=params)
        dims = self._dims
        self._conv_layout = conv_layout or "NC" + "DHW"[3 - dims:]
        self._activation = activation
        self._recurrent_activation = "sigmoid"
        self._hidden_channels = self._hidden_size = hidden_channels
        self._i2h_kernel = _spec(i2h_kernel, dims, "i2h_kernel")
        self._i2h_pad = _spec(i2h_pad, dims, "i2h_pad")
        self._i2h_dilate = _spec(i2h_dilate, dims, "i2h_dilate")
        self._h2h_kernel = _spec(h2h_kernel, dims, "h2h_kernel")
        self._h2h_dilate = _spec(h2h_dilate, dims, "h2h_dilate")
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise ValueError(f"{type(self).__name__}: h2h_kernel must be odd (the state keeps "
                             f"its size), got {h2h_kernel}")
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate,
                                                               self._h2h_kernel))
        channels_first = self._conv_layout.find("C") == 1
        input_shape = tuple(input_shape)
        in_channels = input_shape[0] if channels_first else input_shape[-1]
        spatial = input_shape[1:] if channels_first else input_shape[:-1]
        out_size = tuple(size + 2 * p - d * (k - 1) if size else 0 for size, k, p, d in
                         zip(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate))
        self._state_shape = ((hidden_channels,) + out_size if channels_first
                             else out_size + (hidden_channels,))
        rows = self._num_gates * hidden_channels

        def weight_shape(channels, kernel):
            return (rows, channels) + kernel if channels_first else (rows,) + kernel + (
                channels,)
        self.i2h_weight = self.params.get("i2h_weight", init=i2h_weight_initializer,
                                          shape=weight_shape(in_channels, self._i2h_kernel),
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", init=h2h_weight_initializer,
                                          shape=weight_shape(hidden_channels,
                                                             self._h2h_kernel),
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
                for _ in range(2 if self._num_gates == 4 else 1)]

    def _projections(self, F, inputs, hidden, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        rows = self._num_gates * self._hidden_channels
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias,
                            kernel=self._i2h_kernel, pad=self._i2h_pad,
                            dilate=self._i2h_dilate, num_filter=rows,
                            layout=self._conv_layout, name=prefix + "i2h")
        h2h = F.Convolution(data=hidden, weight=h2h_weight, bias=h2h_bias,
                            kernel=self._h2h_kernel, pad=self._h2h_pad,
                            dilate=self._h2h_dilate, num_filter=rows,
                            layout=self._conv_layout, name=prefix + "h2h")
        return prefix, i2h, h2h

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1] if self._conv_layout.find("C") == 1 else shape[-1]
        return (f"{type(self).__name__}({in_channels or None} -> {shape[0]}, "
                f"{self._activation}, {self._conv_layout})")


class Conv1DRNNCell(_ConvCell, RNNCell):
    """1-d convolutional Elman cell; ``conv_layout`` 'NCW' (default) or 'NWC'."""
    _dims = 1


class Conv2DRNNCell(_ConvCell, RNNCell):
    """2-d convolutional Elman cell; ``conv_layout`` 'NCHW' (default) or 'NHWC'."""
    _dims = 2


class Conv3DRNNCell(_ConvCell, RNNCell):
    """3-d convolutional Elman cell; ``conv_layout`` 'NCDHW' (default) or 'NDHWC'."""
    _dims = 3


class Conv1DLSTMCell(_ConvCell, LSTMCell):
    """1-d convolutional LSTM (Shi et al. 2015, without peepholes); states ``[h, c]``."""
    _dims = 1


class Conv2DLSTMCell(_ConvCell, LSTMCell):
    """2-d convolutional LSTM; states ``[h, c]``."""
    _dims = 2


class Conv3DLSTMCell(_ConvCell, LSTMCell):
    """3-d convolutional LSTM; states ``[h, c]``."""
    _dims = 3


class Conv1DGRUCell(_ConvCell, GRUCell):
    """1-d convolutional GRU."""
    _dims = 1


class Conv2DGRUCell(_ConvCell, GRUCell):
    """2-d convolutional GRU."""
    _dims = 2


class Conv3DGRUCell(_ConvCell, GRUCell):
    """3-d convolutional GRU."""
    _dims = 3
