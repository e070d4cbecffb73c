"""Lowering backward to slots: the fast path of a training step.

Lesson: 08-executors.  ``run_backward`` (``run.py``) is the readable reference: it
looks each value up in dictionaries keyed by ``(node, index)`` and gets what a
node saved from the dictionary ``run_forward`` filled.  Once a training plan is
lowered to a ``ForwardProgram`` built with ``keep=True``, every value forward
computed stays in its numbered slot, so backward can be lowered the same way:
for each node of the backward schedule, which slots hold its output gradients,
which slots hold what its ``saves`` names, and which gradient slots its input
gradients go to are all decided once here.  What is left per call is a loop of
``backward`` calls over lists, in the interpreter's order (so the sums of
gradients that meet at one value are added in the same order: the results are the
interpreter's, bit for bit).
"""
from itertools import repeat
from operator import is_not, itemgetter

from .run import backward_schedule
from .sparse_step import add_gradients, backward_node, is_sparse

__all__ = ["BackwardProgram"]

_NONES = repeat(None)       # map(is_not, values, _NONES): "is not None" per value, in C


class BackwardProgram:
    """The backward schedule of ``plan`` for ``needs_grad`` over ``forward``'s slots.

    ``meta`` maps a value key to its (shape, dtype): an output nobody sent a gradient
    to gets zeros of that.  An instruction is ``(call, out_slots, zeros, names, fetch,
    shapes, in_slots, needs)``: ``backward`` receives ``names`` bound to ``fetch(slots)``
    (saved inputs and outputs: ``operator.itemgetter`` picks them in C) and the
    ``(keyword, slot or slots)`` of ``shapes``, the saved shapes of inputs.
    """

    def __init__(self, plan, forward, needs_grad, meta):
        slot_of = forward.slot_of
        self.code = []
        for node, call, out_keys, needs in backward_schedule(plan, needs_grad):
            out_slots = tuple(slot_of[key] for key in out_keys)
            in_slots = tuple(slot_of[plan.resolve(key)] for key in node.inputs)
            names, values, shapes = [], [], []
            for name, kind, position in call.saves:
                if kind == "output":
                    names.append(name)
                    values.append(slot_of[(node, position)])
                elif kind == "input":
                    names.append(name)
                    values.append(in_slots[position])
                else:                       # an input's shape, or all of them
                    shapes.append((name, in_slots if kind == "input_shapes"
                                   else in_slots[position]))
            fetch = itemgetter(*values) if len(values) > 1 else (
                (lambda slots, index=values[0]: (slots[index],)) if values else
                (lambda slots: ()))
            zeros = tuple(meta[key] for key in out_keys)
            self.code.append((call, out_slots, zeros, tuple(names), fetch, tuple(shapes),
                              in_slots, needs))
        self.num_slots = len(slot_of)
        self._kernels = {}      # (xp, is_train) -> each instruction's backward kernel

    def kernels(self, xp, is_train):
        """Each instruction's ``OpCall.backward_kernel`` (``xp``, ``needs`` and ``is_train``
        bound in once, not looked up per call)."""
        key = (xp, is_train)
        found = self._kernels.get(key)
        if found is None:
            found = self._kernels[key] = [
                call.backward_kernel(xp, needs, is_train)
                for call, _, _, _, _, _, _, needs in self.code]
        return found

    def run(self, xp, slots, heads, is_train):
        """Gradients by slot (a list, None where no gradient arrived): ``slots`` are what
        forward left, ``heads`` ``{slot: head gradient}``."""
        grads = [None] * self.num_slots
        for index, value in heads.items():
            grads[index] = value
        for kernel, (call, out_slots, zeros, names, fetch, shapes, in_slots, needs) in zip(
                self.kernels(xp, is_train), self.code):
            if len(out_slots) == 1:            # one output: its gradient, or nothing to do
                index = out_slots[0]
                grad = grads[index]
                if grad is None:
                    continue
                grads[index] = None            # read once: free it as the interpreter does
                out_grads = (grad,)
            else:
                out_grads = [grads[index] for index in out_slots]
                if not all(map(is_not, out_grads, _NONES)):     # some gradient is missing
                    if not any(map(is_not, out_grads, _NONES)):
                        continue
                    out_grads = [grad if grad is not None else xp.zeros(*meta)
                                 for grad, meta in zip(out_grads, zeros)]
                for index in out_slots:
                    grads[index] = None
            kept = dict(zip(names, fetch(slots)))
            if shapes:
                for name, where in shapes:
                    kept[name] = (tuple(slots[where].shape) if type(where) is int else
                                  tuple(tuple(slots[index].shape) for index in where))
            if any(map(is_sparse, out_grads)):     # a row_sparse gradient flows on
                result = backward_node(call, xp, out_grads, kept, needs, is_train)
            else:
                # ``call.backward_needs`` without its per-call branches: the kernel returns
                # the declaration's result, and a gradient counts where ``needs`` says so
                result = kernel(*out_grads, **kept)
                if type(result) is not tuple and type(result) is not list:
                    result = (result,)
            for index, value, need in zip(in_slots, result, needs):
                if value is not None and need:
                    total = grads[index]
                    grads[index] = value if total is None else add_gradients(total, value)
        return grads
