"""Variable-length sequences in a padded batch: mask, take the last step, reverse.

Lesson: 12-training-with-module.  Mirrors ``src/operator/sequence_mask.cc``,
``sequence_last.cc`` and ``sequence_reverse.cc``.  ``data`` has a time axis
(``axis``, 0 by default) and a batch axis (the other of the first two);
``sequence_length`` gives each sample's true length when
``use_sequence_length`` is set, otherwise every sample uses the full length.
"""
from .common import scalar_in
from .params import Param
from .registry import OpDef, TestHints, register_op

_PARAMS = {
    "use_sequence_length": Param(bool, default=False, doc="read lengths from sequence_length"),
    "axis": Param(int, default=0, doc="the time axis (0 or 1)"),
}


class SequenceOp(OpDef):
    """Shared inputs and checks; ``sequence_length`` is an input only when used."""

    inputs = ("data", "sequence_length")
    no_grad_inputs = ("sequence_length",)
    params = _PARAMS

    def check_params(self):
        if self.axis not in (0, 1):
            raise self.param_error(f"axis must be 0 or 1, got {self.axis}")

    def list_inputs(self, num_args=None):
        return self.inputs if self.use_sequence_length else ("data",)

    def batch_axis(self):
        return 1 - self.axis

    def infer_input_shapes(self, data, sequence_length=None):
        if not self.use_sequence_length:
            return [data]
        return [data, sequence_length or (None if data is None else (data[self.batch_axis()],))]

    def check_shapes(self, data, sequence_length):
        if len(data) < 2:
            raise self.shape_error(f"data needs a time and a batch axis, got {tuple(data)}")
        if sequence_length is not None and tuple(sequence_length) != (data[self.batch_axis()],):
            raise self.shape_error(f"sequence_length must have shape "
                                   f"({data[self.batch_axis()]},), got {tuple(sequence_length)}")

    def lengths(self, xp, data, sequence_length):
        """One integer length per sample."""
        batch = data.shape[self.batch_axis()]
        if sequence_length is None:
            return xp.full((batch,), data.shape[self.axis], dtype="int64")
        return sequence_length.astype("int64")

    def valid_mask(self, xp, data, sequence_length):
        """Boolean, broadcastable to data: True where the time step is within the length."""
        steps = xp.arange(data.shape[self.axis])
        lengths = self.lengths(xp, data, sequence_length)
        mask = steps[:, None] < lengths[None, :]
        if self.axis == 1:
            mask = mask.T
        return mask.reshape(mask.shape + (1,) * (data.ndim - 2))


# The tests draw lengths from 1 to the number of steps: MXNet reads out of bounds for 0.
@register_op
class SequenceMask(SequenceOp):
    """Set every step past each sample's length to ``value``."""
    name = "SequenceMask"
    params = {**_PARAMS, "value": Param(float, default=0.0, doc="the fill value")}
    saves = ("data", "sequence_length")
    test = TestHints(shapes=((4, 3, 2), (3,)), params={"use_sequence_length": True},
                     integer_inputs={"sequence_length": (1, 5)})

    def infer_shape(self, data, sequence_length=None):
        self.check_shapes(data, sequence_length)
        return data

    def forward(self, xp, data, sequence_length=None):
        mask = self.valid_mask(xp, data, sequence_length)
        return xp.where(mask, data, scalar_in(data.dtype, self.value))

    def backward(self, xp, out_grad, data, sequence_length=None):
        return xp.where(self.valid_mask(xp, data, sequence_length), out_grad, 0), None


@register_op
class SequenceLast(SequenceOp):
    """The last valid step of each sample; the time axis disappears."""
    name = "SequenceLast"
    saves = ("data", "sequence_length")
    test = TestHints(shapes=((4, 3, 2), (3,)), params={"use_sequence_length": True},
                     integer_inputs={"sequence_length": (1, 5)})

    def infer_shape(self, data, sequence_length=None):
        self.check_shapes(data, sequence_length)
        return tuple(size for a, size in enumerate(data) if a != self.axis)

    def _index(self, xp, data, sequence_length):
        last = xp.clip(self.lengths(xp, data, sequence_length) - 1, 0, None)
        batch = xp.arange(data.shape[self.batch_axis()])
        return (last, batch) if self.axis == 0 else (batch, last)

    def forward(self, xp, data, sequence_length=None):
        return data[self._index(xp, data, sequence_length)]

    def backward(self, xp, out_grad, data, sequence_length=None):
        grad = xp.zeros_like(data)
        grad[self._index(xp, data, sequence_length)] = out_grad
        return grad, None


@register_op
class SequenceReverse(SequenceOp):
    """Reverse the first ``length`` steps of each sample; padding stays in place."""
    name = "SequenceReverse"
    saves = ("sequence_length",)
    test = TestHints(shapes=((4, 3, 2), (3,)), params={"use_sequence_length": True},
                     integer_inputs={"sequence_length": (1, 5)})

    def check_params(self):
        if self.axis != 0:
            raise self.param_error(f"only axis 0 is supported (as in MXNet), got {self.axis}")

    def infer_shape(self, data, sequence_length=None):
        self.check_shapes(data, sequence_length)
        return data

    def _reverse(self, xp, data, sequence_length):
        steps = xp.arange(data.shape[0])[:, None]
        lengths = self.lengths(xp, data, sequence_length)[None, :]
        source = xp.where(steps < lengths, lengths - 1 - steps, steps)
        return data[source, xp.arange(data.shape[1])[None, :]]

    def forward(self, xp, data, sequence_length=None):
        return self._reverse(xp, data, sequence_length)

    def backward(self, xp, out_grad, sequence_length=None):
        return self._reverse(xp, out_grad, sequence_length), None
