"""Recurrent layers RNN, LSTM and GRU: a whole sequence through the fused ``RNN`` operator.

Lesson: 09-gluon, 12-training-with-module (the RNN operator).
Mirrors ``python/mxnet/gluon/rnn/rnn_layer.py``.
Each layer and direction owns four parameters named as MXNet names them
(``l0_i2h_weight``, ``l0_h2h_weight``, ``l0_i2h_bias``, ``l0_h2h_bias``; ``r0_``
for the reverse direction); ``hybrid_forward`` flattens and concatenates them
(``_rnn_param_concat``) into the operator's single ``parameters`` vector, in
MXNet's order; an unknown input size is inferred back through that vector.
An LSTM with ``projection_size`` also owns ``l0_h2r_weight`` (projection_size,
hidden_size), after ``l0_h2h_weight`` in that vector.
"""
from ... import ndarray, symbol
from ..hybrid_block import HybridBlock

__all__ = ["RNN", "LSTM", "GRU"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


class _RNNLayer(HybridBlock):
    """The shared machinery of RNN, LSTM and GRU (see those for the parameters)."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, dtype, projection_size=None,
                 h2r_weight_initializer=None, state_clip_min=None, state_clip_max=None,
                 state_clip_nan=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise ValueError(f"Invalid layout {layout}; must be one of ['TNC' or 'NTC']")
        self._hidden_size = hidden_size
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._dtype = dtype
        self._gates = _GATES[mode]
        self._projection_size = projection_size if projection_size else None
        self._state_clip = {"lstm_state_clip_min": state_clip_min,
                            "lstm_state_clip_max": state_clip_max,
                            "lstm_state_clip_nan": state_clip_nan}
        self._initializers = {"i2h_weight_initializer": i2h_weight_initializer,
                              "h2h_weight_initializer": h2h_weight_initializer,
                              "i2h_bias_initializer": i2h_bias_initializer,
                              "h2h_bias_initializer": h2h_bias_initializer}
        self.skip_states = None
        rows, width = self._gates * hidden_size, input_size
        recurrent = self._projection_size or hidden_size     # the width of the state fed back
        for layer in range(num_layers):
            for direction in "lr"[:self._dir]:
                self._register_param(f"{direction}{layer}_i2h_weight", (rows, width),
                                     i2h_weight_initializer)
                self._register_param(f"{direction}{layer}_h2h_weight", (rows, recurrent),
                                     h2h_weight_initializer)
                self._register_param(f"{direction}{layer}_i2h_bias", (rows,),
                                     i2h_bias_initializer)
                self._register_param(f"{direction}{layer}_h2h_bias", (rows,),
                                     h2h_bias_initializer)
                if self._projection_size:
                    self._register_param(f"{direction}{layer}_h2r_weight",
                                         (recurrent, hidden_size), h2r_weight_initializer)
            width = recurrent * self._dir
        if self._projection_size:
            self._initializers["h2r_weight_initializer"] = h2r_weight_initializer

    def _register_param(self, name, shape, init):
        param = self.params.get(name, shape=shape, init=init, allow_deferred_init=True,
                                dtype=self._dtype)
        setattr(self, name, param)

    def __repr__(self):
        in_size = self.l0_i2h_weight.shape[1] or None
        text = f"{type(self).__name__}({in_size} -> {self._hidden_size}, {self._layout}"
        if self._num_layers != 1:
            text += f", num_layers={self._num_layers}"
        if self._dropout != 0:
            text += f", dropout={self._dropout}"
        if self._dir == 2:
            text += ", bidirectional"
        return text + ")"

    def _collect_params_with_prefix(self, prefix=""):
        """The keys of ``save_parameters``, as MXNet writes them for a fused layer:
        ``_unfused.0.i2h_weight`` (``_unfused.0.l_cell.i2h_weight`` when bidirectional)."""
        prefix = prefix + "." if prefix else ""
        result = {}
        for name, param in self._reg_params.items():
            direction, layer = name[0], name[1:name.index("_")]
            cell = f"{direction}_cell." if self._dir == 2 else ""
            result[f"{prefix}_unfused.{layer}.{cell}{name[name.index('_') + 1:]}"] = param
        return result

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def _unfuse(self):
        """The same network as a stack of cells that share this layer's Parameters (MXNet's
        ``_unfuse``): a cell per layer (a BidirectionalCell of two when bidirectional), with
        a DropoutCell between layers; unroll it to compute what the fused layer does."""
        from ..contrib.rnn import LSTMPCell
        from .rnn_cell import GRUCell, LSTMCell, RNNCell
        from .rnn_containers import BidirectionalCell, DropoutCell, SequentialRNNCell
        cells = {"rnn_relu": lambda **kw: RNNCell(self._hidden_size, activation="relu", **kw),
                 "rnn_tanh": lambda **kw: RNNCell(self._hidden_size, activation="tanh", **kw),
                 "lstm": lambda **kw: LSTMCell(self._hidden_size, **kw),
                 "gru": lambda **kw: GRUCell(self._hidden_size, **kw)}
        make = cells[self._mode]
        if self._projection_size:        # (MXNet's _unfuse refuses a projection)
            def make(**kw):
                return LSTMPCell(self._hidden_size, self._projection_size, **kw)
        stack = SequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            width = self._input_size
            for layer in range(self._num_layers):
                kwargs = dict(self._initializers, input_size=width)
                if self._dir == 2:
                    stack.add(BidirectionalCell(make(prefix=f"l{layer}_", **kwargs),
                                                make(prefix=f"r{layer}_", **kwargs)))
                else:
                    stack.add(make(prefix=f"l{layer}_", **kwargs))
                if self._dropout > 0 and layer != self._num_layers - 1:
                    stack.add(DropoutCell(self._dropout))
                width = (self._projection_size or self._hidden_size) * self._dir
        return stack

    def state_info(self, batch_size=0):
        """``h`` (with a projection ``(L * D, N, projection_size)``), and ``c`` for LSTM."""
        cell = (self._num_layers * self._dir, batch_size, self._hidden_size)
        hidden = cell[:2] + (self._projection_size or self._hidden_size,)
        shapes = [hidden, cell] if self._mode == "lstm" else [hidden]
        return [{"shape": shape, "__layout__": "LNC", "dtype": self._dtype} for shape in shapes]

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The initial states: ``func(name=..., shape=..., dtype=..., **kwargs)`` each.

        ``func`` may be ``nd.zeros``/``nd.ones`` (give ``batch_size``), or
        ``sym.zeros``/``sym.var`` for a symbolic graph.
        """
        states = []
        for index, info in enumerate(self.state_info(batch_size)):
            info.update(kwargs)
            states.append(func(name=f"{self.prefix}h0_{index}", **info))
        return states

    # -- running ---------------------------------------------------------------------------------
    def __call__(self, inputs, states=None):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, ndarray.NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, (ndarray.NDArray, symbol.Symbol)):
            states = [states]
        return super().__call__(inputs, states)

    def hybrid_forward(self, F, inputs, states, **params):
        if F is ndarray:
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise ValueError(f"Invalid recurrent state shape. Expecting "
                                     f"{info['shape']}, got {state.shape}.")
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, 0, 1)
        outputs, states = self._fused(F, inputs, states, params)
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, 0, 1)
        return outputs if self.skip_states else (outputs, states)

    def _fused(self, F, inputs, states, params):
        """One RNN operator call over every layer (dropout ``p`` between layers happens
        inside it, as in MXNet's fused kernel); returns (outputs, states)."""
        layers = range(self._num_layers)
        groups = ("i2h", "h2h", "h2r") if self._projection_size else ("i2h", "h2h")
        flat = [F.reshape(params[f"{direction}{layer}_{group}_{kind}"], shape=-1)
                for kind in ("weight", "bias") for layer in layers
                for direction in "lr"[:self._dir] for group in groups
                if group != "h2r" or kind == "weight"]           # h2r has no bias
        # _rnn_param_concat: Concat whose shape inference can also complete the i2h weights
        # of the first layer from the length RNN expects (an input size still unknown)
        joined = F._internal._rnn_param_concat(*flat, dim=0)
        extra = {} if self._mode != "lstm" else dict(self._state_clip,
                                                     projection_size=self._projection_size)
        results = F.RNN(inputs, joined, *states, state_size=self._hidden_size,
                        num_layers=self._num_layers, bidirectional=self._dir == 2,
                        state_outputs=True, mode=self._mode, p=self._dropout, **extra)
        return results[0], [results[index] for index in range(1, len(states) + 1)]


class RNN(_RNNLayer):
    """Elman RNN layer: ``h_t = act(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)``.

    Parameters
    ----------
    hidden_size : int
        Features of the hidden state.
    num_layers : int, default 1
        Stacked recurrent layers.
    activation : {'relu', 'tanh'}, default 'relu'
    layout : {'TNC', 'NTC'}, default 'TNC'
        Axis order of the input and output (T: time, N: batch, C: features).
    dropout : float, default 0
        Dropout on the outputs of every layer but the last, while training.
    bidirectional : bool, default False
        Also run each layer backwards in time and concatenate the outputs.
    input_size : int, default 0
        Input features; 0 infers them at the first forward.

    Call with ``(inputs, states=None)``: without states zeros are used and only
    the output is returned; with states, ``(output, new_states)``.

    Examples
    --------
    >>> layer = mx.gluon.rnn.RNN(4, 2); layer.initialize()
    >>> layer(nd.ones((5, 3, 10))).shape
    (5, 3, 4)
    """

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0,
                 bidirectional=False, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "rnn_" + activation, dtype, **kwargs)


class LSTM(_RNNLayer):
    """Long short-term memory layer (gates in MXNet's order: input, forget, cell, output).

    Parameters as for ``RNN`` (without ``activation``).  The states are ``[h, c]``,
    each ``(num_layers * directions, batch, hidden_size)``.

    projection_size : int, default None
        LSTMP: the output and the state ``h`` fed back are ``r = W_hr h`` of this size
        (``h2r_weight`` per layer and direction, no bias; ``h`` is then
        ``(num_layers * directions, batch, projection_size)``, the output's last axis
        ``directions * projection_size``).  MXNet 1.9.1 runs it forward only on CPU;
        minimx trains it too.
    h2r_weight_initializer : str or Initializer, default None
    state_clip_min, state_clip_max : float, default None
        A range for the cell state, which MXNet 1.9.1 applies on GPU (cuDNN) only: its CPU
        kernel ignores it, and refuses it with ``projection_size``; minimx does the same.
    state_clip_nan : bool, default False
        Ignored, as the range.
    """

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 projection_size=None, h2r_weight_initializer=None, state_clip_min=None,
                 state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "lstm", dtype, projection_size,
                         h2r_weight_initializer, state_clip_min, state_clip_max,
                         state_clip_nan, **kwargs)


class GRU(_RNNLayer):
    """Gated recurrent unit layer (cuDNN's variant: the reset gate acts after ``W_hh h``).

    Parameters as for ``RNN`` (without ``activation``); the states are ``[h]``.
    """

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", dtype="float32",
                 **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "gru", dtype, **kwargs)
