"""The symbolic recurrent cells of MXNet 1.x's ``mx.rnn`` (before Gluon had its own).

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/rnn/rnn_cell.py``.  A cell builds
one time step of a Symbol graph: ``cell(inputs, states)`` returns ``(output, new_states)``,
and ``cell.unroll(length, inputs)`` chains ``length`` steps (``t0``, ``t1`` ... in the node
names).  The weights are Variables an ``RNNParams`` hands out by name, so that every step
(and cells given the same ``params``) shares them.  ``FusedRNNCell`` is the other kind:
one ``RNN`` operator over the whole sequence, all weights in one vector;
``unpack_weights``/``pack_weights`` convert between the two, and ``unfuse()`` returns the
equivalent stack of step cells.  Modifier cells wrap another cell: dropout on its outputs,
zoneout, a residual connection, and a bidirectional pair.

Shapes are written with ``0`` for the batch size (``(0, num_hidden)``): the begin states
are ``sym.zeros`` whose batch shape inference fills in from the data.
"""
import functools
import math
import warnings

import numpy as np

from .. import initializer as init
from .. import ndarray
from .. import symbol
from ..op.rnn import GATE_NAMES, fused_input_size, fused_parameter_pieces

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell",
           "ConvGRUCell"]


class RNNParams:
    """The weights of one or more cells: ``get(name)`` is the Variable ``prefix + name``,
    made at the first request and the same object afterwards."""

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


def _normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """``inputs`` as a list of ``length`` step Symbols (``merge`` False), one Symbol with
    the time axis of ``layout`` (True), or as they come (None); also that axis."""
    if inputs is None:
        raise ValueError("unroll(inputs=None) has been deprecated; give the inputs explicitly")
    axis = layout.find("T")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise ValueError("unroll doesn't allow grouped symbol as input; convert to a "
                                 "list with list(inputs) first or let unroll handle splitting")
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length,
                                       squeeze_axis=1))
    else:
        if length is not None and len(inputs) != length:
            raise ValueError(f"unroll: {len(inputs)} inputs for length {length}")
        if merge is True:
            inputs = symbol.Concat(*[symbol.expand_dims(i, axis=axis) for i in inputs],
                                   dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


class BaseRNNCell:
    """What every cell has: its ``params``, its ``state_info``, ``begin_state`` and
    ``unroll``; subclasses give ``__call__`` (one step) and ``state_info``."""

    def __init__(self, prefix="", params=None):
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Start counting steps (and begin states) from zero again."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        raise NotImplementedError()

    @property
    def params(self):
        """The cell's RNNParams (asking for them makes them shared, not owned)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        raise NotImplementedError()

    @property
    def state_shape(self):
        return [info["shape"] for info in self.state_info]

    _gate_names = ()             # the gates a cell's weights stack (``GATE_NAMES``)

    def begin_state(self, func=symbol.zeros, **kwargs):
        """One initial state per ``state_info`` entry, made by ``func`` (``sym.zeros``, or
        ``sym.Variable`` for states given at run time)."""
        if self._modified:
            raise RuntimeError("After applying modifier cells (e.g. DropoutCell) the base "
                               "cell cannot be called directly. Call the modifier cell instead.")
        states = []
        for info in self.state_info:
            self._init_counter += 1
            arguments = dict(kwargs, **(info or {}))
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}",
                               **arguments))
        return states

    def unpack_weights(self, args):
        """``args`` with each gate's weights apart (``i2h_weight`` -> ``i2h_i_weight`` ...)."""
        args = dict(args)
        if not self._gate_names:
            return args
        hidden = self._num_hidden
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                joined = args.pop(f"{self._prefix}{group}_{kind}")
                for index, gate in enumerate(self._gate_names):
                    args[f"{self._prefix}{group}{gate}_{kind}"] = \
                        joined[index * hidden:(index + 1) * hidden].copy()
        return args

    def pack_weights(self, args):
        """The inverse of ``unpack_weights``."""
        args = dict(args)
        if not self._gate_names:
            return args
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                parts = [args.pop(f"{self._prefix}{group}{gate}_{kind}")
                         for gate in self._gate_names]
                args[f"{self._prefix}{group}_{kind}"] = ndarray.concatenate(parts)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """``length`` steps over ``inputs`` (one Symbol with a time axis, or a list);
        returns ``(outputs, last states)``, the outputs merged into one Symbol if
        ``merge_outputs`` (None: as the inputs came)."""
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        outputs = []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)

    def _slice(self, data, count, name, axis):
        """SliceChannel into the gates; ``axis`` None keeps MXNet's default (no attribute)."""
        extra = {} if axis is None else {"axis": axis}
        return symbol.SliceChannel(data, num_outputs=count, name=name, **extra)

    def _lstm_step(self, i2h, h2h, prev_c, name, activation="tanh", axis=None):
        """One LSTM step from the two products: (next_h, next_c), MXNet's node names."""
        gates = self._slice(i2h + h2h, 4, f"{name}slice", axis)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name=f"{name}i")
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name=f"{name}f")
        candidate = self._get_activation(gates[2], activation, name=f"{name}c")
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name=f"{name}o")
        next_c = symbol.elemwise_add(forget_gate * prev_c, in_gate * candidate,
                                     name=f"{name}state")
        next_h = symbol.elemwise_mul(out_gate, self._get_activation(next_c, activation),
                                     name=f"{name}out")
        return next_h, next_c

    def _gru_step(self, i2h, h2h, prev_h, name, activation="tanh", axis=None):
        """One GRU step from the two products: next_h, MXNet's node names."""
        i2h_r, i2h_z, i2h_n = self._slice(i2h, 3, f"{name}i2h_slice", axis)
        h2h_r, h2h_z, h2h_n = self._slice(h2h, 3, f"{name}h2h_slice", axis)
        reset = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name=f"{name}r_act")
        update = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid", name=f"{name}z_act")
        candidate = self._get_activation(i2h_n + reset * h2h_n, activation,
                                         name=f"{name}h_act")
        return symbol.elemwise_add((1.0 - update) * candidate, update * prev_h,
                                   name=f"{name}out")

    def _step_name(self):
        self._counter += 1
        return f"{self._prefix}t{self._counter}_"

    def _dense_pair(self, inputs, state, name, width):
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=width, name=f"{name}i2h")
        h2h = symbol.FullyConnected(data=state, weight=self._hW, bias=self._hB,
                                    num_hidden=width, name=f"{name}h2h")
        return i2h, h2h


class _DenseCell(BaseRNNCell):
    """A cell whose step is two dense layers (input to hidden, hidden to hidden)."""

    def __init__(self, num_hidden, prefix, params, i2h_bias_init=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._iB = (self.params.get("i2h_bias", init=i2h_bias_init) if i2h_bias_init
                    else self.params.get("i2h_bias"))
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    _num_states = 1

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}
                for _ in range(self._num_states)]


class RNNCell(_DenseCell):
    """``h = activation(W x + U h_prev + b)``."""

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super().__init__(num_hidden, prefix, params)
        self._activation = activation

    _gate_names = ("",)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._dense_pair(inputs, states[0], name, self._num_hidden)
        output = self._get_activation(i2h + h2h, self._activation, name=f"{name}out")
        return output, [output]


class LSTMCell(_DenseCell):
    """Long short-term memory; the forget gate's bias starts at ``forget_bias``."""

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super().__init__(num_hidden, prefix, params, init.LSTMBias(forget_bias=forget_bias))

    _num_states = 2
    _gate_names = GATE_NAMES["lstm"]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._dense_pair(inputs, states[0], name, 4 * self._num_hidden)
        next_h, next_c = self._lstm_step(i2h, h2h, states[1], name)
        return next_h, [next_h, next_c]


class GRUCell(_DenseCell):
    """Gated recurrent unit (Cho et al., 2014)."""

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(num_hidden, prefix, params)

    _gate_names = GATE_NAMES["gru"]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._dense_pair(inputs, states[0], name, 3 * self._num_hidden)
        next_h = self._gru_step(i2h, h2h, states[0], name)
        return next_h, [next_h]


class FusedRNNCell(BaseRNNCell):
    """All layers and steps as one ``RNN`` operator; its weights are one Variable,
    ``<prefix>parameters``, initialised by ``mx.init.FusedRNN``."""

    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False,
                 dropout=0.0, get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        prefix = f"{mode}_" if prefix is None else prefix
        super().__init__(prefix=prefix, params=params)
        self._num_hidden, self._num_layers, self._mode = num_hidden, num_layers, mode
        self._bidirectional, self._dropout = bidirectional, dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        self._parameter = self.params.get("parameters", init=init.FusedRNN(
            None, num_hidden, num_layers, mode, bidirectional, forget_bias))

    @property
    def state_info(self):
        shape = (len(self._directions) * self._num_layers, 0, self._num_hidden)
        return [{"shape": shape, "__layout__": "LNC"} for _ in range(1 + (self._mode == "lstm"))]

    @property
    def _gate_names(self):
        return GATE_NAMES[self._mode]

    def _pieces(self, total):
        sizes = (self._mode, self._num_hidden, self._num_layers, self._bidirectional)
        return fused_parameter_pieces(*sizes, fused_input_size(*sizes, total))

    def unpack_weights(self, args):
        """The one ``parameters`` vector as the per-gate weights of the unfused cells."""
        args = dict(args)
        flat = args.pop(self._parameter.name)
        values = flat.asnumpy()
        for name, offset, shape in self._pieces(values.size):
            piece = values[offset:offset + math.prod(shape)].reshape(shape)
            args[self._prefix + name] = ndarray.array(piece, ctx=flat.context, dtype=flat.dtype)
        return args

    def pack_weights(self, args):
        """The per-gate weights back into the one ``parameters`` vector."""
        args = dict(args)
        first = args[f"{self._prefix}l0_i2h{self._gate_names[0]}_weight"]
        sizes = (self._mode, self._num_hidden, self._num_layers, self._bidirectional)
        pieces = fused_parameter_pieces(*sizes, first.shape[1])
        total = pieces[-1][1] + math.prod(pieces[-1][2])
        flat = np.zeros(total, dtype=first.dtype)
        for name, offset, shape in pieces:
            flat[offset:offset + math.prod(shape)] = args.pop(self._prefix + name).asnumpy() \
                .reshape(-1)
        args[self._parameter.name] = ndarray.array(flat, ctx=first.context, dtype=first.dtype)
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for "
                          "faster speed")
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise ValueError(f"FusedRNNCell: unsupported layout {layout}")
        states = self.begin_state() if begin_state is None else begin_state
        named = {"state": states[0]}
        if self._mode == "lstm":
            named["state_cell"] = states[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional,
                         p=self._dropout, state_outputs=self._get_next_state, mode=self._mode,
                         name=f"{self._prefix}rnn", **named)
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            states = [rnn[index] for index in range(1, 2 + (self._mode == "lstm"))]
            for state in states:
                state._set_attr(__layout__="LNC")
            outputs = rnn[0]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self):
        """The same network as a SequentialRNNCell of step cells (weights named as
        ``unpack_weights`` names them)."""
        hidden = self._num_hidden
        make = {"rnn_relu": lambda p: RNNCell(hidden, activation="relu", prefix=p),
                "rnn_tanh": lambda p: RNNCell(hidden, activation="tanh", prefix=p),
                "lstm": lambda p: LSTMCell(hidden, prefix=p),
                "gru": lambda p: GRUCell(hidden, prefix=p)}[self._mode]
        stack = SequentialRNNCell()
        for layer in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make(f"{self._prefix}l{layer}_"),
                                            make(f"{self._prefix}r{layer}_"),
                                            output_prefix=f"{self._prefix}bi_l{layer}_"))
            else:
                stack.add(make(f"{self._prefix}l{layer}_"))
            if self._dropout > 0 and layer != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix=f"{self._prefix}_dropout{layer}_"))
        return stack


class _CellGroup(BaseRNNCell):
    """A cell made of child cells (``self._cells``): its states are theirs one after
    another, and each child packs and unpacks its own weights."""

    def __init__(self, params=None):
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def _adopt(self, *cells):
        """Take ``cells`` as children, sharing parameters with them (the group's given
        ``params`` override theirs)."""
        if self._override_cell_params:
            if not all(cell._own_params for cell in cells):
                raise ValueError(f"Either specify params for {type(self).__name__} or child "
                                 "cells, not both.")
            for cell in cells:
                cell.params._params.update(self.params._params)
        for cell in cells:
            self.params._params.update(cell.params._params)
        self._cells.extend(cells)

    @property
    def state_info(self):
        return [info for cell in self._cells for info in cell.state_info]

    def begin_state(self, **kwargs):
        if self._modified:
            raise RuntimeError("After applying modifier cells (e.g. ZoneoutCell) the base "
                               "cell cannot be called directly. Call the modifier cell instead.")
        return [state for cell in self._cells for state in cell.begin_state(**kwargs)]

    def unpack_weights(self, args):
        for cell in self._cells:
            args = cell.unpack_weights(args)
        return args

    def pack_weights(self, args):
        for cell in self._cells:
            args = cell.pack_weights(args)
        return args

    def _split_states(self, states):
        position = 0
        for cell in self._cells:
            count = len(cell.state_info)
            yield cell, states[position:position + count]
            position += count


class SequentialRNNCell(_CellGroup):
    """Cells stacked: each step's output is the next cell's input."""

    def add(self, cell):
        self._adopt(cell)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        for cell, own in self._split_states(states):
            if isinstance(cell, BidirectionalCell):
                raise NotImplementedError("a BidirectionalCell inside a SequentialRNNCell "
                                          "cannot be stepped; use unroll")
            inputs, own = cell(inputs, own)
            next_states.extend(own)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        begin_state = self.begin_state() if begin_state is None else begin_state
        last = len(self._cells) - 1
        next_states = []
        for index, (cell, own) in enumerate(self._split_states(begin_state)):
            inputs, own = cell.unroll(length, inputs=inputs, begin_state=own, layout=layout,
                                      merge_outputs=None if index < last else merge_outputs)
            next_states.extend(own)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the inputs it is given (put it between cells of a stack)."""

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix, params)
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """A cell that changes another (its ``base_cell``), which may then only be used through
    the modifier."""

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, func=symbol.zeros, **kwargs):
        if self._modified:
            raise RuntimeError("After applying modifier cells the base cell cannot be called "
                               "directly. Call the modifier cell instead.")
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def reset(self):
        super().reset()
        if hasattr(self, "base_cell"):
            self.base_cell.reset()

    def __call__(self, inputs, states):
        raise NotImplementedError()


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al., 2016): each output and state unit keeps its previous value
    with probability ``zoneout_outputs`` / ``zoneout_states`` while training."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        if isinstance(base_cell, FusedRNNCell):
            raise TypeError("FusedRNNCell doesn't support zoneout. Please unfuse first.")
        if isinstance(base_cell, BidirectionalCell):
            raise TypeError("BidirectionalCell doesn't support zoneout since it doesn't "
                            "support step. Please add ZoneoutCell to the cells underneath "
                            "instead.")
        super().__init__(base_cell)
        self.zoneout_outputs, self.zoneout_states = zoneout_outputs, zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def kept(p, like):                     # 1 where the new value is taken
            return symbol.Dropout(symbol.ones_like(like), p=p)

        previous = self.prev_output if self.prev_output is not None else symbol.zeros((0, 0))
        output = (symbol.where(kept(self.zoneout_outputs, next_output), next_output, previous)
                  if self.zoneout_outputs != 0 else next_output)
        if self.zoneout_states != 0:
            next_states = [symbol.where(kept(self.zoneout_states, new), new, old)
                           for new, old in zip(next_states, states)]
        self.prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds the cell's input to its output (He et al., 2016), step by step."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        return symbol.elemwise_add(output, inputs, name=f"{output.name}_plus_residual"), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            return symbol.elemwise_add(outputs, inputs,
                                       name=f"{outputs.name}_plus_residual"), states
        return [symbol.elemwise_add(o, i, name=f"{o.name}_plus_residual")
                for o, i in zip(outputs, inputs)], states


class BidirectionalCell(_CellGroup):
    """Two cells over the sequence, one forwards and one backwards; each step's output is
    the two outputs joined (``<output_prefix>t<i>``)."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super().__init__(params)
        self._output_prefix = output_prefix
        self._adopt(l_cell, r_cell)

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        l_cell, r_cell = self._cells
        split = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:split],
                                            layout=layout, merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)),
                                            begin_state=states[split:], layout=layout,
                                            merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = (isinstance(l_outputs, symbol.Symbol)
                             and isinstance(r_outputs, symbol.Symbol))
            if not merge_outputs:
                l_outputs = _as_steps(l_outputs, axis, length)
                r_outputs = _as_steps(r_outputs, axis, length)
        if merge_outputs:
            l_outputs, r_outputs = [l_outputs], [symbol.reverse(r_outputs, axis=axis)]
        else:
            r_outputs = list(reversed(r_outputs))
        outputs = [symbol.Concat(left, right, dim=1 + merge_outputs,
                                 name=(f"{self._output_prefix}out" if merge_outputs
                                       else f"{self._output_prefix}t{step}"))
                   for step, (left, right) in enumerate(zip(l_outputs, r_outputs))]
        return (outputs[0] if merge_outputs else outputs), l_states + r_states


def _as_steps(outputs, axis, length):
    if isinstance(outputs, symbol.Symbol):
        return list(symbol.SliceChannel(outputs, axis=axis, num_outputs=length,
                                        squeeze_axis=1))
    return outputs


class BaseConvRNNCell(BaseRNNCell):
    """A recurrent cell whose two dense layers are convolutions (Shi et al., 2015): the
    state is an image, ``(0, num_hidden, H', W')`` for inputs of ``input_shape``."""

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel,
                 i2h_stride, i2h_pad, i2h_dilate, i2h_weight_initializer,
                 h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 activation, prefix="", params=None, conv_layout="NCHW"):
        super().__init__(prefix=prefix, params=params)
        if any(k % 2 == 0 for k in h2h_kernel):
            raise ValueError(f"Only support odd number, get h2h_kernel= {h2h_kernel}")
        self._h2h_kernel, self._h2h_dilate = h2h_kernel, h2h_dilate
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(h2h_dilate, h2h_kernel))
        self._i2h_kernel, self._i2h_stride = i2h_kernel, i2h_stride
        self._i2h_pad, self._i2h_dilate = i2h_pad, i2h_dilate
        self._num_hidden, self._input_shape = num_hidden, input_shape
        self._conv_layout, self._activation = conv_layout, activation
        self._iW = self.params.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = self.params.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = self.params.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = self.params.get("h2h_bias", init=h2h_bias_initializer)
        data = symbol.Variable("data")
        state = symbol.Convolution(data=data, num_filter=num_hidden, kernel=i2h_kernel,
                                   stride=i2h_stride, pad=i2h_pad, dilate=i2h_dilate,
                                   layout=conv_layout)
        self._state_shape = (0,) + tuple(state.infer_shape(data=input_shape)[1][0][1:])

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._num_states)]

    _num_states = 1

    def _conv_forward(self, inputs, states, name):
        width = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name=f"{name}i2h", data=inputs, num_filter=width,
                                 kernel=self._i2h_kernel, stride=self._i2h_stride,
                                 pad=self._i2h_pad, dilate=self._i2h_dilate, weight=self._iW,
                                 bias=self._iB, layout=self._conv_layout)
        h2h = symbol.Convolution(name=f"{name}h2h", data=states[0], num_filter=width,
                                 kernel=self._h2h_kernel, dilate=self._h2h_dilate,
                                 pad=self._h2h_pad, stride=(1, 1), weight=self._hW,
                                 bias=self._hB, layout=self._conv_layout)
        return i2h, h2h


_LEAKY = functools.partial(symbol.LeakyReLU, act_type="leaky", slope=0.2)
_CONV_DEFAULTS = dict(h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                      i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1))


def _conv_arguments(given):
    return {key: given.get(key, value) for key, value in _CONV_DEFAULTS.items()}


class _ConvCell(BaseConvRNNCell):
    """The constructor the three convolutional cells share: MXNet's arguments, the kernel
    geometry as keywords (``h2h_kernel``, ``i2h_pad``, ... with MXNet's defaults), and the
    cell's own ``default_prefix``."""

    default_prefix = ""

    def __init__(self, input_shape, num_hidden, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", activation=_LEAKY, prefix=None,
                 params=None, conv_layout="NCHW", **geometry):
        super().__init__(input_shape, num_hidden, i2h_weight_initializer=i2h_weight_initializer,
                         h2h_weight_initializer=h2h_weight_initializer,
                         i2h_bias_initializer=i2h_bias_initializer,
                         h2h_bias_initializer=h2h_bias_initializer, activation=activation,
                         prefix=self.default_prefix if prefix is None else prefix,
                         params=params, conv_layout=conv_layout, **_conv_arguments(geometry))


class ConvRNNCell(_ConvCell):
    """``h = activation(conv(x) + conv(h_prev))``."""

    default_prefix = "ConvRNN_"
    _gate_names = ("",)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name=f"{name}out")
        return output, [output]


class ConvLSTMCell(_ConvCell):
    """The LSTM with convolutions (Shi et al., 2015)."""

    _num_states = 2
    default_prefix = "ConvLSTM_"
    _gate_names = GATE_NAMES["lstm"]

    def __init__(self, *args, forget_bias=1.0, **kwargs):
        """As the other convolutional cells; ``forget_bias`` is accepted as MXNet's is."""
        super().__init__(*args, **kwargs)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        next_h, next_c = self._lstm_step(i2h, h2h, states[1], name, self._activation,
                                         self._conv_layout.find("C"))
        return next_h, [next_h, next_c]


class ConvGRUCell(_ConvCell):
    """The GRU with convolutions."""

    default_prefix = "ConvGRU_"
    _gate_names = GATE_NAMES["gru"]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        next_h = self._gru_step(i2h, h2h, states[0], name, self._activation,
                                self._conv_layout.find("C"))
        return next_h, [next_h]
