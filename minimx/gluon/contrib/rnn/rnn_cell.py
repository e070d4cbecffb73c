"""VariationalDropoutCell, LSTMPCell and ``dynamic_unroll``.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/contrib/rnn/rnn_cell.py``.
Variational dropout (Gal and Ghahramani 2016) draws one dropout mask per sequence and uses
it at every step, for the inputs, the first state (h) and the outputs, each its own mask;
``reset()`` (which ``unroll`` calls) forgets the masks.  An LSTMP cell (Sak et al. 2014)
is an LSTM whose hidden state is projected to ``projection_size`` before it is fed back
and output.
"""
from .... import ndarray, symbol
from ...rnn.rnn_cell import HybridRecurrentCell, LSTMCell, _format_sequence, \
    _get_begin_state, _mask_sequence_variable_length
from ...rnn.rnn_containers import BidirectionalCell, ModifierCell, SequentialRNNCell

__all__ = ["VariationalDropoutCell", "LSTMPCell", "dynamic_unroll"]


class VariationalDropoutCell(ModifierCell):
    """``base_cell`` with one dropout mask per sequence on its inputs, its first state and
    its outputs (rates ``drop_inputs``, ``drop_states``, ``drop_outputs``; 0 is none)."""

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        if drop_states and isinstance(base_cell, BidirectionalCell):
            raise AssertionError("BidirectionalCell doesn't support variational state "
                                 "dropout: wrap the cells underneath instead")
        if drop_states and isinstance(base_cell, SequentialRNNCell) and getattr(
                base_cell, "_bidirectional", False):
            raise AssertionError("a bidirectional SequentialRNNCell doesn't support "
                                 "variational state dropout: wrap the cells underneath")
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self._masks = {}

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self._masks = {}

    def _masked(self, F, where, value, rate):
        """``value`` times this sequence's mask for ``where`` (drawn at its first use)."""
        if not rate:
            return value
        if where not in self._masks:
            self._masks[where] = F.Dropout(F.ones_like(value), p=rate)
        return value * self._masks[where]

    def hybrid_forward(self, F, inputs, states):
        states = list(states)
        if self.drop_states:
            states[0] = self._masked(F, "states", states[0], self.drop_states)
        inputs = self._masked(F, "inputs", inputs, self.drop_inputs)
        output, next_states = self.base_cell(inputs, states)
        return self._masked(F, "outputs", output, self.drop_outputs), next_states

    def __repr__(self):
        return (f"{type(self).__name__}(p_out = {self.drop_outputs}, "
                f"p_state = {self.drop_states})")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Without state dropout, the input and output masks are one Dropout each over the
        whole sequence, shared along the time axis (``axes=(time,)``)."""
        if self.drop_states:
            return super().unroll(length, inputs, begin_state, layout, merge_outputs,
                                  valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        outputs, states = self.base_cell.unroll(length, inputs, states, layout,
                                                merge_outputs=True, valid_length=valid_length)
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        merge = True if merge_outputs is None else merge_outputs
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge)
        return outputs, states


class LSTMPCell(LSTMCell):
    """LSTM with a projected recurrent state: ``r_t = W_hr h_t`` (no bias) is the output
    and the state fed back; states ``[r, c]`` of sizes ``projection_size`` and
    ``hidden_size``.  Parameters: ``i2h_weight``, ``h2h_weight`` (4 * hidden_size,
    projection_size), ``h2r_weight`` (projection_size, hidden_size) and the two biases."""

    _hidden_name = "hidden"

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, h2r_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None):
        HybridRecurrentCell.__init__(self, prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        self._activation, self._recurrent_activation = "tanh", "sigmoid"
        rows = 4 * hidden_size
        get = self.params.get
        self.i2h_weight = get("i2h_weight", shape=(rows, input_size),
                              init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = get("h2h_weight", shape=(rows, projection_size),
                              init=h2h_weight_initializer, allow_deferred_init=True)
        self.h2r_weight = get("h2r_weight", shape=(projection_size, hidden_size),
                              init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                            allow_deferred_init=True)
        self.h2h_bias = get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                            allow_deferred_init=True)

    def _alias(self):
        return "lstmp"

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def __repr__(self):
        columns = self.i2h_weight.shape[1]
        return (f"{type(self).__name__}({columns or None} -> {self._hidden_size} -> "
                f"{self._projection_size})")

    def hybrid_forward(self, F, inputs, states, h2r_weight, **weights):
        hidden, (_, next_c) = super().hybrid_forward(F, inputs, states, **weights)
        next_r = F.FullyConnected(data=hidden, weight=h2r_weight, no_bias=True,
                                  num_hidden=self._projection_size,
                                  name=f"t{self._counter}_out")
        return next_r, [next_r, next_c]


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0,
                   layout="TNC", valid_length=None):
    """Run ``cell`` over every step of ``inputs`` (an NDArray or a Symbol laid out as
    ``layout``) with ``F.contrib.foreach``; returns ``(outputs, states)``: outputs merged
    in ``layout``, each sequence's states at its last valid step (``valid_length``, shape
    (N,)) and its padded steps zero.  Dropout of rate ``drop_inputs``/``drop_outputs``
    shares one mask along axis ``layout.find("T")``, as MXNet's.

    On Symbols the loop is one ``_foreach`` node: a hybridized block holds the cell once,
    whatever the sequence length.  With ``valid_length`` an extra state counts the steps,
    and a sequence's states stop changing once the count reaches its length.
    """
    F = symbol if isinstance(inputs, symbol.Symbol) else ndarray
    axis = layout.find("T")
    axes = list(range(len(layout)))
    axes[0], axes[axis] = axes[axis], axes[0]
    if axis != 0:
        inputs = F.transpose(inputs, axes=axes)          # time first: foreach's axis
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    states = list(begin_state)
    if valid_length is None:
        body = cell
    else:
        states.append(F.zeros((1,)))

        def body(step, loop_states):
            *cell_states, count = loop_states
            output, new_states = cell(step, cell_states)
            running = F.broadcast_greater(valid_length, count)
            kept = [F.where(running, new, old) for new, old in zip(new_states, cell_states)]
            return output, kept + [count + 1]
    outputs, states = F.contrib.foreach(body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axis != 0:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True,
                             axis=axis)
    return outputs, states[:-1]
