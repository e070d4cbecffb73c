"""Cells made of cells: stacks, two directions, and modifiers (residual, zoneout, dropout).

Lesson: 09-gluon, 12-training-with-module (the RNN operator).
Mirrors the container and modifier cells of
``python/mxnet/gluon/rnn/rnn_cell.py``.  A stack passes each cell's output to
the next and concatenates their states; a modifier wraps one cell, shares its
parameters, and changes what one step returns.
"""
from ... import symbol
from .rnn_cell import (_TENSORS, HybridRecurrentCell, RecurrentCell, _cells_begin_state,
                       _cells_state_info, _format_sequence, _get_begin_state, _indent,
                       _mask_sequence_variable_length, _reverse_sequences)

__all__ = ["SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell",
           "ZoneoutCell", "ResidualCell", "BidirectionalCell"]


def _check_not_modified(cell):
    if cell._modified:
        raise RuntimeError("After applying modifier cells (e.g. ZoneoutCell) the base cell "
                           "cannot be called directly. Call the modifier cell instead.")


class _StackMixin:
    """What SequentialRNNCell and HybridSequentialRNNCell share."""

    def __repr__(self):
        lines = [f"({key}): {_indent(repr(cell), 2)}" for key, cell in self._children.items()]
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

    def add(self, cell):
        """Append ``cell`` to the stack."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        _check_not_modified(self)
        return _cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states, position = [], 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise ValueError("a BidirectionalCell cannot be stepped; use unroll")
            count = len(cell.state_info())
            inputs, state = cell(inputs, states[position:position + count])
            position += count
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Unroll each cell in turn over the whole sequence (see ``RecurrentCell.unroll``)."""
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        cells = list(self._children.values())
        next_states, position = [], 0
        for index, cell in enumerate(cells):
            count = len(cell.state_info())
            merge = merge_outputs if index == len(cells) - 1 else None
            inputs, states = cell.unroll(length, inputs=inputs,
                                         begin_state=begin_state[position:position + count],
                                         layout=layout, merge_outputs=merge,
                                         valid_length=valid_length)
            position += count
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, index):
        return self._children[str(index)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_StackMixin, RecurrentCell):
    """A stack of cells run one after the other at every step."""

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_StackMixin, HybridRecurrentCell):
    """A stack of hybridizable cells."""

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs (no states); ``rate`` is the probability of zeroing."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, (int, float)):
            raise TypeError("rate must be a number")
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return f"{type(self).__name__}(rate={self._rate}, axes={self._axes})"

    def _alias(self):
        return "dropout"

    def state_info(self, batch_size=0):
        return []

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes,
                               name=f"t{self._counter}_fwd")
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, _TENSORS):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """Base of cells that wrap ``base_cell`` and share its parameters."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise ValueError(f"Cell {base_cell.name} is already modified. One cell cannot be "
                             f"modified twice")
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=symbol.zeros, **kwargs):
        _check_not_modified(self)
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.base_cell!r})"


class ZoneoutCell(ModifierCell):
    """Zoneout: while training, each output/state unit keeps its previous value with
    probability ``zoneout_outputs`` / ``zoneout_states``."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if isinstance(base_cell, BidirectionalCell):
            raise ValueError("BidirectionalCell doesn't support zoneout since it doesn't "
                             "support step. Please add ZoneoutCell to the cells underneath "
                             "instead.")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return (f"{type(self).__name__}(p_out={self.zoneout_outputs}, "
                f"p_state={self.zoneout_states}, {self.base_cell!r})")

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(probability, like):       # 1 where the new value is kept (scaled dropout)
            return F.Dropout(F.ones_like(like), p=probability)

        previous = self._prev_output
        if previous is None:
            previous = F.zeros_like(next_output)
        output = next_output
        if self.zoneout_outputs != 0.:
            output = F.where(keep_new(self.zoneout_outputs, next_output), next_output, previous)
        if self.zoneout_states != 0.:
            next_states = [F.where(keep_new(self.zoneout_states, new), new, old)
                           for new, old in zip(next_states, states)]
        self._prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output: ``output = cell(x) + x``."""

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name=f"t{self._counter}_fwd"), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(
                length, inputs=inputs, begin_state=begin_state, layout=layout,
                merge_outputs=merge_outputs, valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis,
                                                    merge_outputs)
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(out, x) for out, x in zip(outputs, inputs)], states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward in time; concatenates their outputs.

    It can only be unrolled, not stepped.  The states are ``l_cell``'s then ``r_cell``'s.
    """

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self):
        return (f"{type(self).__name__}(forward={self._children['l_cell']!r}, "
                f"backward={self._children['r_cell']!r})")

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        _check_not_modified(self)
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(inputs, length, valid_length)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        split = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:split],
                                            layout=layout, merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs,
                                            begin_state=states[split:], layout=layout,
                                            merge_outputs=False, valid_length=valid_length)
        r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, _TENSORS)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            r_outputs, _, _, _ = _format_sequence(None, r_outputs, layout, merge_outputs)
        if merge_outputs:
            if not isinstance(r_outputs, _TENSORS):
                r_outputs = F.stack(*r_outputs, axis=axis)
            outputs = F.concat(l_outputs, r_outputs, dim=2, name=f"{self._output_prefix}out")
        else:
            outputs = [F.concat(left, right, dim=1, name=f"{self._output_prefix}t{step}")
                       for step, (left, right) in enumerate(zip(l_outputs, r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states
