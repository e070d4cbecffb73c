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
from .run import backward_schedule
from .sparse_step import add_gradients, backward_node, is_sparse

__all__ = ["BackwardProgram"]


class BackwardProgram:
    """The backward schedule of ``plan`` for ``needs_grad`` over ``forward``'s slots.

    ``meta`` maps a value key to its (shape, dtype): an output nobody sent a gradient
    to gets zeros of that.  An instruction is ``(call, out_slots, zeros, saves,
    in_slots, needs)``: ``saves`` is ``(keyword, kind, slot or slots)`` per value the
    operator's ``backward`` receives (``kind`` as in ``OpCall.saves``).
    """

    def __init__(self, plan, forward, needs_grad, meta):
        slot_of = forward.slot_of
        self.code = []
        for node, call, out_keys, needs in backward_schedule(plan, needs_grad):
            out_slots = tuple(slot_of[key] for key in out_keys)
            in_slots = tuple(slot_of[plan.resolve(key)] for key in node.inputs)
            saves = []
            for name, kind, position in call.saves:
                if kind == "output":
                    saves.append((name, kind, slot_of[(node, position)]))
                elif kind == "input_shapes":
                    saves.append((name, kind, in_slots))
                else:                       # an input, or an input's shape
                    saves.append((name, kind, in_slots[position]))
            zeros = tuple(meta[key] for key in out_keys)
            self.code.append((call, out_slots, zeros, tuple(saves), in_slots, needs))
        self.num_slots = len(slot_of)

    def run(self, xp, slots, heads, is_train):
        """Gradients by slot (a list, None where no gradient arrived): ``slots`` are what
        forward left, ``heads`` ``{slot: head gradient}``."""
        grads = [None] * self.num_slots
        for index, value in heads.items():
            grads[index] = value
        for call, out_slots, zeros, saves, in_slots, needs in self.code:
            out_grads = [grads[index] for index in out_slots]
            if all(grad is None for grad in out_grads):
                continue
            for index in out_slots:
                grads[index] = None            # read once: free it as the interpreter does
            out_grads = [grad if grad is not None else xp.zeros(*meta)
                         for grad, meta in zip(out_grads, zeros)]
            kept = {name: _saved_value(slots, kind, where) for name, kind, where in saves}
            if any(map(is_sparse, out_grads)):     # a row_sparse gradient flows on
                result = backward_node(call, xp, out_grads, kept, needs, is_train)
            else:
                result = call.backward_needs(xp, out_grads, kept, needs, is_train)
            for index, value in zip(in_slots, result):
                if value is not None:
                    total = grads[index]
                    grads[index] = value if total is None else add_gradients(total, value)
        return grads


def _saved_value(slots, kind, where):
    if kind == "input" or kind == "output":
        return slots[where]
    if kind == "shape":
        return tuple(slots[where].shape)
    return tuple(tuple(slots[index].shape) for index in where)
