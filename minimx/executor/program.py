"""Lowering a plan to a flat program: the fast path of a hybridized call.

Lesson: 10-hybridize.  Mirrors the static path of ``CachedOp``
(``src/imperative/cached_op.cc``, ``StaticForward``): once shapes are known,
every decision ``run_forward`` makes per node and per call (which extras an
op takes, where each input lives, when a buffer dies) is made once here.
What is left per call is a loop of kernel calls over a list of numbered
slots, which is all a graph runtime has to do.

``run_forward`` stays the readable reference interpreter (and the one that
calls the monitor, draws random seeds and handles sparse values); a program is
only built for plans it can run exactly as that interpreter would.  A program
built with ``keep=True`` frees nothing and hands back its slots (``fill``): a
training step's ``BackwardProgram`` (``backward_program.py``) reads the values
backward needs straight from them.
"""
from operator import itemgetter

__all__ = ["ForwardProgram", "can_lower"]


def can_lower(plan):
    """Whether every node of ``plan`` runs the same on every call (no random draws)."""
    return not any(node.call().random for step in plan.steps for node in step.nodes)


class ForwardProgram:
    """``plan`` as a list of instructions over numbered slots.

    Slots ``0 .. len(input_keys) - 1`` hold the inputs in order; folded
    constants sit in their slots from the start.  ``run(inputs)`` returns the
    values of ``result_keys``.  An instruction is ``(kernel, fetch, unary,
    outs, frees)``: ``fetch(slots)`` picks the arguments (one value when
    ``unary``, else a tuple: ``operator.itemgetter`` does it in C), the result
    goes to slot ``outs[0]`` (or ``outs`` for several), and ``frees`` are the
    slots whose last reader this was (memory planning's ``release_after``; none with
    ``keep``).  ``slot_of`` maps each value key to its slot.
    """

    def __init__(self, plan, xp, input_keys, result_keys, is_train, keep=False):
        slot_of = {}

        def slot(key):
            if key not in slot_of:
                slot_of[key] = len(slot_of)
            return slot_of[key]

        for key in input_keys:
            slot(key)
        constants, code, self.listing = {}, [], []
        for index, step in enumerate(plan.steps):
            if step.constant is not None:
                for key, value in zip(step.outputs, step.constant):
                    constants[slot(key)] = value
                continue
            for position, node in enumerate(step.nodes):
                # a fused step passes each node's output straight to the next node
                args = [slot(key) for key in step.inputs] if position == 0 else \
                    [slot((step.nodes[position - 1], 0))]
                outs = tuple(slot((node, i)) for i in range(node.num_outputs()))
                frees = args[:1] if position > 0 and not keep else []   # the chain's last
                if position == len(step.nodes) - 1 and not keep:
                    frees += [slot(key) for key in plan.release_after.get(index, ())]
                self.listing.append((node.name, node.op.name, args, outs, frees))
                fetch = itemgetter(*args) if args else _no_arguments
                code.append((node.call().kernel(xp, is_train), fetch, len(args) == 1, outs,
                             tuple(frees)))
        self.code = code
        self.slot_of = slot_of
        self.num_inputs = len(input_keys)
        self.template = [None] * len(slot_of)
        for index, value in constants.items():
            self.template[index] = value
        self.results = itemgetter(*[slot_of[key] for key in result_keys])
        self.single_result = len(result_keys) == 1

    def __str__(self):
        lines = [f"inputs in slots 0-{self.num_inputs - 1}; "
                 f"{sum(v is not None for v in self.template)} constant slot(s)"]
        for name, op, args, outs, frees in self.listing:
            freed = f", then free {list(frees)}" if frees else ""
            lines.append(f"{name} ({op}): slots {list(args)} -> {list(outs)}{freed}")
        return "\n".join(lines)

    def run(self, inputs):
        """The result values, as a list, for ``inputs`` (backend arrays, in order)."""
        return self.results_of(self.fill(inputs))

    def results_of(self, slots):
        """The result values, as a list, from the slots ``fill`` returned."""
        return [self.results(slots)] if self.single_result else list(self.results(slots))

    def fill(self, inputs):
        """Run the instructions on ``inputs``; the slots (a list) afterwards."""
        slots = self.template.copy()
        slots[:self.num_inputs] = inputs
        for kernel, fetch, unary, outs, frees in self.code:
            result = kernel(fetch(slots)) if unary else kernel(*fetch(slots))
            if type(result) is tuple:
                for index, value in zip(outs, result):
                    slots[index] = value
            else:
                slots[outs[0]] = result
            if frees:
                for index in frees:
                    slots[index] = None
        return slots


def _no_arguments(slots):
    return ()
