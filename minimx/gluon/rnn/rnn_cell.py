"""Recurrent cells: one time step as a Block, and ``unroll`` to run it over a sequence.

Lesson: 09-gluon, 12-training-with-module (the RNN operator).
Mirrors ``python/mxnet/gluon/rnn/rnn_cell.py``.
A cell maps ``(input_t, states)`` to ``(output_t, new_states)``; ``unroll``
calls it once per step, so a traced (``F = sym``) unroll is a graph with one
copy of the cell per step.  Containers stack cells (``SequentialRNNCell``),
run two in opposite directions (``BidirectionalCell``), or modify one
(``ResidualCell``, ``ZoneoutCell``, ``DropoutCell``).
"""
from ... import ndarray, symbol
from ..block import Block
from ..hybrid_block import HybridBlock

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell",
           "ZoneoutCell", "ResidualCell", "BidirectionalCell"]

_TENSORS = (ndarray.NDArray, symbol.Symbol)


def _as_list(value):
    """A list of steps: a list stays, a Symbol of several outputs (a split) gives one each."""
    if isinstance(value, (list, tuple)) or (isinstance(value, symbol.Symbol) and len(value) > 1):
        return list(value)
    return [value]


def _indent(text, spaces):
    return text.replace("\n", "\n" + " " * spaces)


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """(inputs as one tensor if ``merge`` else a list of steps, time axis, F, batch size)."""
    if inputs is None:
        raise ValueError("unroll(inputs=None) is not supported: create the inputs first")
    axis, batch_axis = layout.find("T"), layout.find("N")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    batch_size = 0
    if isinstance(inputs, _TENSORS):
        F = symbol if isinstance(inputs, symbol.Symbol) else ndarray
        if F is ndarray:
            batch_size = inputs.shape[batch_axis]
        if merge is False:
            steps = length if F is symbol else inputs.shape[in_axis]
            if length is not None and steps != length:
                raise ValueError(f"unroll: length {length} but the input has {steps} steps")
            inputs = _as_list(F.split(inputs, axis=in_axis, num_outputs=steps, squeeze_axis=1))
    else:
        if length is not None and len(inputs) != length:
            raise ValueError(f"unroll: length {length} but {len(inputs)} inputs were given")
        F = symbol if isinstance(inputs[0], symbol.Symbol) else ndarray
        if F is ndarray:
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, _TENSORS) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        ctx = inputs.context if isinstance(inputs, _TENSORS) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """Zero the steps past each sequence's valid length."""
    if not isinstance(data, _TENSORS):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True,
                             axis=time_axis)
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=time_axis,
                                   squeeze_axis=True))
    return outputs


def _reverse_sequences(sequences, length, valid_length=None):
    """The steps in reverse order (only the valid ones reversed, with ``valid_length``)."""
    if valid_length is None:
        return list(reversed(sequences))
    F = symbol if isinstance(sequences[0], symbol.Symbol) else ndarray
    reversed_steps = F.SequenceReverse(F.stack(*sequences, axis=0), sequence_length=valid_length,
                                       use_sequence_length=True)
    return _as_list(F.split(reversed_steps, axis=0, num_outputs=length, squeeze_axis=True))


def _cells_state_info(cells, batch_size):
    return sum([cell.state_info(batch_size) for cell in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([cell.begin_state(**kwargs) for cell in cells], [])


class RecurrentCell(Block):
    """Base class of the cells: ``cell(input_t, states) -> (output_t, new_states)``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step counters (``unroll`` calls this before the first step)."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        """One dict per state: ``shape`` and ``__layout__``."""
        raise NotImplementedError

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states made by ``func(name=..., shape=..., **kwargs)``."""
        if self._modified:
            raise RuntimeError("After applying modifier cells (e.g. ZoneoutCell) the base cell "
                               "cannot be called directly. Call the modifier cell instead.")
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {}, **kwargs)
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}", **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Run the cell for ``length`` steps; returns ``(outputs, final_states)``.

        ``inputs`` is one tensor laid out as ``layout`` or a list of ``(N, C)`` steps;
        ``merge_outputs`` True stacks the outputs into one tensor, False gives a list,
        None whichever the inputs were.  ``valid_length`` (N,) masks padded steps.
        """
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*per_step, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for per_step in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        functions = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid,
                     "softsign": F.softsign}
        if activation in functions:
            return functions[activation](inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if type(activation).__name__ == "LeakyReLU":
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        """One step; counts the steps so traced node names are ``t0_``, ``t1_``, ..."""
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A cell written as ``hybrid_forward(F, inputs, states, **params)``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward")


class _GatedCell(HybridRecurrentCell):
    """RNNCell, LSTMCell and GRUCell: ``i2h``/``h2h`` weights of ``gates * hidden_size`` rows."""

    _num_gates = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self._num_gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size),
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def _mapping(self):
        rows, columns = self.i2h_weight.shape
        return f"{columns or None} -> {rows}"

    def __repr__(self):
        return f"{type(self).__name__}({self._mapping()})"

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _projections(self, F, inputs, hidden, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        rows = self._num_gates * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows,
                               name=prefix + "i2h")
        h2h = F.FullyConnected(data=hidden, weight=h2h_weight, bias=h2h_bias, num_hidden=rows,
                               name=prefix + "h2h")
        return prefix, i2h, h2h


class RNNCell(_GatedCell):
    """Elman cell: ``h_t = activation(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)``.

    Examples
    --------
    >>> cell = mx.gluon.rnn.RNNCell(4); cell.initialize()
    >>> out, states = cell(nd.ones((2, 3)), cell.begin_state(batch_size=2))
    >>> out.shape
    (2, 4)
    """

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        self._activation = activation
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return "rnn"

    def __repr__(self):
        return f"{type(self).__name__}({self._mapping()}, {self._activation})"

    def hybrid_forward(self, F, inputs, states, **weights):
        prefix, i2h, h2h = self._projections(F, inputs, states[0], **weights)
        total = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        output = self._get_activation(F, total, self._activation, name=prefix + "out")
        return output, [output]


class LSTMCell(_GatedCell):
    """LSTM cell; gates in MXNet's order (input, forget, cell, output); states ``[h, c]``."""

    _num_gates = 4
    _hidden_name = "out"        # the new h's node (LSTMPCell projects it to its output)

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return "lstm"

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}
                for _ in range(2)]

    def hybrid_forward(self, F, inputs, states, **weights):
        prefix, i2h, h2h = self._projections(F, inputs, states[0], **weights)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=prefix + "plus0"), num_outputs=4,
                               name=prefix + "slice")
        gate = self._recurrent_activation
        in_gate = self._get_activation(F, gates[0], gate, name=prefix + "i")
        forget_gate = self._get_activation(F, gates[1], gate, name=prefix + "f")
        candidate = self._get_activation(F, gates[2], self._activation, name=prefix + "c")
        out_gate = self._get_activation(F, gates[3], gate, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, candidate, name=prefix + "mul1"),
                                name=prefix + "state")
        squashed = F.Activation(next_c, act_type=self._activation, name=prefix + "activation0")
        next_h = F.elemwise_mul(out_gate, squashed, name=prefix + self._hidden_name)
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """GRU cell (cuDNN's variant: the reset gate multiplies ``W_hh h + b_hh``)."""

    _num_gates = 3
    _activation = "tanh"        # of the candidate state (convolutional GRUs choose it)

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return "gru"

    def hybrid_forward(self, F, inputs, states, **weights):
        previous = states[0]
        prefix, i2h, h2h = self._projections(F, inputs, previous, **weights)
        i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        reset = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"),
                             act_type="sigmoid", name=prefix + "r_act")
        update = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"),
                              act_type="sigmoid", name=prefix + "z_act")
        gated = F.elemwise_mul(reset, h2h_n, name=prefix + "mul0")
        candidate = F.Activation(F.elemwise_add(i2h_n, gated, name=prefix + "plus2"),
                                 act_type=self._activation, name=prefix + "h_act")
        keep = F.elemwise_sub(F.ones_like(update, name=prefix + "ones_like0"), update,
                              name=prefix + "minus0")
        next_h = F.elemwise_add(F.elemwise_mul(keep, candidate, name=prefix + "mul1"),
                                F.elemwise_mul(update, previous, name=prefix + "mul20"),
                                name=prefix + "out")
        return next_h, [next_h]


from .rnn_containers import (BidirectionalCell, DropoutCell, HybridSequentialRNNCell,  # noqa
                             ModifierCell, ResidualCell, SequentialRNNCell, ZoneoutCell)
