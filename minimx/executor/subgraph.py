"""Running a control-flow operator's body: a subgraph on raw arrays, with its own plans.

Lesson: 10-hybridize.  The control-flow operators (``op/control_flow.py``) call their body
once per step from inside their own forward and backward; this runner gives them the
executor's machinery for it -- shape and type inference, one plan per input signature
(``build_plan``), the forward and backward interpreters (``run.py``) -- without the engine:
the operator already runs inside the engine push of the graph that holds it.
"""
from ..op.control_flow import set_body_runner
from ..symbol import inference
from ..symbol.graph import entries_depending_on, topo_order
from .plan import build_plan
from .run import run_backward, run_forward

__all__ = ["BodyRunner"]


class BodyRunner:
    """One body graph: ``entries`` are its outputs, its variables (in graph order) its
    inputs."""

    def __init__(self, entries):
        self.entries = list(entries)
        self.variables = [node for node in topo_order(self.entries) if node.is_variable]
        self.num_inputs, self.num_outputs = len(self.variables), len(self.entries)
        self._all_inputs = entries_depending_on(self.entries, {id(v) for v in self.variables})
        self._plans = {}
        # a body with random nodes makes its loop node random (op/control_flow.py)
        self.draws_random = any(not node.is_variable and node.call().random
                                for node in topo_order(self.entries))

    def _known(self, values):
        return {v.name: value for v, value in zip(self.variables, values) if value is not None}

    def infer_shapes(self, shapes):
        _, found = inference.infer_shapes(self.entries, self._known(shapes))
        return ([found.get((v, 0)) for v in self.variables],
                [found.get(entry) for entry in self.entries])

    def infer_types(self, dtypes):
        _, found = inference.infer_types(self.entries, self._known(dtypes))
        return ([found.get((v, 0)) for v in self.variables],
                [found.get(entry) for entry in self.entries])

    def _plan(self, xp, inputs, is_train):
        key = (tuple((a.shape, a.dtype.str) for a in inputs), is_train, xp.__name__)
        found = self._plans.get(key)
        if found is None:
            known = {v.name: a.shape for v, a in zip(self.variables, inputs)}
            _, shapes = inference.infer_shapes(self.entries, known)
            _, dtypes = inference.infer_types(self.entries,
                                              {v.name: a.dtype for v, a in
                                               zip(self.variables, inputs)})
            plan = build_plan(self.entries, shapes, dtypes, is_train, xp)
            meta = {k: (shapes[k], dtypes[k]) for k in shapes
                    if shapes[k] is not None and dtypes.get(k) is not None}
            found = self._plans[key] = (plan, meta)
        return found

    def forward(self, xp, inputs, is_train, keep, rng=None):
        """The body's outputs for ``inputs``; with ``keep`` also what ``backward`` needs.
        ``rng``: the generator every random node of the body draws from, in plan order."""
        plan, meta = self._plan(xp, inputs, is_train or keep)
        values = {(v, 0): a for v, a in zip(self.variables, inputs)}
        saved = {} if keep else None
        run_forward(plan, xp, values, is_train, dict.fromkeys(map(id, plan.random_nodes)),
                    lambda _: rng, saved)
        outputs = [values[plan.resolve(entry)] for entry in self.entries]
        return outputs, ((plan, meta, saved) if keep else None)

    def backward(self, xp, kept, out_grads, is_train):
        """One gradient per body input (None where none reaches it)."""
        plan, meta, saved = kept
        heads = {}
        for entry, grad in zip(self.entries, out_grads):
            key = plan.resolve(entry)
            heads[key] = grad if key not in heads else heads[key] + grad
        grads = run_backward(plan, xp, heads, saved, self._all_inputs, is_train, meta)
        return [grads.get((v, 0)) for v in self.variables]


set_body_runner(BodyRunner)
