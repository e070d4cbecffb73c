"""The tape: nodes recorded by ``autograd.record()``, linked from each output NDArray.

Lesson: 04-autograd.  Mirrors ``src/imperative/imperative.cc`` (``RecordOp``,
``AGInfo``).  An NDArray produced while recording carries ``_autograd =
(node, output_index)``; following these links backwards from a head gives the
graph that ``backward()`` walks.
"""
import itertools

__all__ = ["OpNode", "VariableNode", "FunctionNode", "LinkNode", "live_entry"]

# Every recorded call gets the next number, as MXNet's RecordOp names its nodes node_<n>
# (``autograd.get_symbol`` shows these names).
_serials = itertools.count()


def live_entry(entry):
    """``entry`` for a new recording, or None when its node was freed by a backward.

    As in MXNet 1.x, an array whose graph was already back-propagated (without
    ``retain_graph``) is a constant from then on: recording an operation on it again
    starts a fresh graph there, and its old graph gets no further gradient.  (Calling
    backward *through* a freed node still fails, as in MXNet.)
    """
    return None if entry is None or entry[0].freed else entry


class OpNode:
    """One recorded operator call.

    ``inputs``: the ``(node, index)`` entry of each input, or None for inputs
    that need no gradient; ``saved``: what the declaration's ``saves`` names,
    as NDArrays sharing the recorded buffers (or shapes).  The forward's training
    mode is not kept: backward runs in the backward pass's own mode, as MXNet's.
    """

    __slots__ = ("op", "inputs", "saved", "input_shapes", "input_dtypes", "output_shapes",
                 "output_dtypes", "ctx", "freed", "serial", "__weakref__")

    def __init__(self, op, inputs, saved, input_shapes, input_dtypes, output_shapes,
                 output_dtypes, ctx):
        self.op = op
        self.inputs = inputs
        self.saved = saved
        self.input_shapes = input_shapes
        self.input_dtypes = input_dtypes
        self.output_shapes = output_shapes
        self.output_dtypes = output_dtypes
        self.ctx = ctx
        self.freed = False
        self.serial = next(_serials)

    @property
    def name(self):
        return self.op.name

    def num_outputs(self):
        return self.op.num_visible()

    def free(self):
        self.saved = None
        self.freed = True


class VariableNode:
    """A leaf marked by ``attach_grad`` or ``mark_variables``: where its gradient goes.

    ``fresh_grad`` turns True when ``backward`` writes the gradient; Gluon's
    Trainer clears it after each update to detect stale gradients (MXNet's
    ``NDArray._fresh_grad``).
    """

    __slots__ = ("grad", "grad_req", "fresh_grad")
    inputs = ()
    name = "variable"
    freed = False

    def __init__(self, grad, grad_req):
        self.grad = grad
        self.grad_req = grad_req
        self.fresh_grad = False

    def num_outputs(self):
        return 1

    def free(self):
        """Leaves keep nothing to free."""


class FunctionNode:
    """One call of a user's ``autograd.Function``: backward calls its ``backward``."""

    __slots__ = ("function", "inputs", "output_shapes", "output_dtypes", "ctx", "freed",
                 "serial")
    name = "Function"

    def __init__(self, function, inputs, output_shapes, output_dtypes, ctx):
        self.function = function
        self.inputs = inputs
        self.output_shapes = output_shapes
        self.output_dtypes = output_dtypes
        self.ctx = ctx
        self.freed = False
        self.serial = next(_serials)

    def num_outputs(self):
        return len(self.output_shapes)

    def free(self):
        """Drop the function and what it saved: its outputs link to this node, and a
        function that saved an output (or a CachedOp call holding its activations) would
        otherwise sit in a reference cycle until Python's cycle collector runs."""
        self.function = None
        self.freed = True


class LinkNode:
    """Ties a value to inputs it was computed from without a differentiable path.

    A gradient written with ``create_graph=True`` may not depend on the node's inputs in a
    differentiable way (``relu``'s mask, ``radians``' constant factor).  MXNet still
    records such a gradient with the inputs its backward read, so differentiating it again
    gives zero, not "not in a recorded graph"; a LinkNode does the same: its gradient for
    every input is zero.
    """

    __slots__ = ("inputs", "output_shapes", "output_dtypes", "ctx", "freed")
    name = "link"

    def __init__(self, inputs, output_shapes, output_dtypes, ctx):
        self.inputs = inputs
        self.output_shapes = output_shapes
        self.output_dtypes = output_dtypes
        self.ctx = ctx
        self.freed = False

    def num_outputs(self):
        return len(self.output_shapes)

    def free(self):
        self.freed = True
