"""Control-flow operators: ``_foreach``, ``_while_loop`` and ``_cond`` run a graph of their own.

Lesson: 10-hybridize.  Mirrors MXNet's subgraph operators (``src/operator/control_flow.cc``).
A traced Python loop would be unrolled into the graph, one copy of the body per step, fixed
at trace time; these operators hold the body once, as a *subgraph*, and loop over it when
the graph runs.  A graph node keeps its bodies in ``Node.subgraphs``; the node's operator
instance gets one *body runner* per subgraph (``with_subgraphs``), made by the layer that
can run a graph (``executor/subgraph.py`` registers it with ``set_body_runner``), so this
module stays below the executor as every declaration does.

A body runner offers ``num_inputs``, ``num_outputs``, ``infer_shapes(shapes)`` and
``infer_types(dtypes)`` (each returning the completed input and the output values, None
where unknown), ``forward(xp, inputs, is_train, keep)`` (the outputs and, with ``keep``,
what its backward needs) and ``backward(xp, kept, out_grads, is_train)`` (one gradient per
input, None for none).

The gradient of a loop walks the steps in reverse; the steps' intermediate values are
computed again in the backward pass rather than kept from the forward (an operator saves
only its inputs and outputs), which costs one more forward of the loop.

A body may draw random numbers (``Dropout``, ``random.uniform``): every step then draws
afresh, as in MXNet.  The node gets an ``rng`` per call like any random operator, seeds one
generator with a number drawn from it, and its bodies' random nodes draw from that
generator in turn; the seed is a hidden last output, so the backward's rerun of the loop
draws the same numbers as the forward did.
"""
import copy

from .params import Param, Shape
from .registry import ALL_NEEDED, OpDef, TestHints, register_op

__all__ = ["Foreach", "WhileLoop", "Cond", "set_body_runner"]

_BODY_RUNNER = []


def set_body_runner(factory):
    """Register ``factory(entries) -> body runner`` (called once, by the executor)."""
    _BODY_RUNNER[:] = [factory]


class SubgraphOp(OpDef):
    """What every control-flow operator shares: variadic inputs, its bodies, saving its
    inputs for a backward that runs the loop again."""

    variadic = True
    unnamed_inputs = True
    bodies = ()
    body_count = 1          # how many bodies the operator runs (MXNet's num_args counts them)
    # built only by sym.contrib; the per-operator tests are in tests/symbol/test_sym_control_flow_mxnet.py
    test = TestHints(generated=False)

    def with_subgraphs(self, subgraphs):
        """A copy of this instance running ``subgraphs`` (each a list of graph entries)."""
        clone = copy.copy(self)
        clone.__dict__.pop("_calls", None)
        clone.bodies = tuple(_BODY_RUNNER[0](entries) for entries in subgraphs)
        clone.saves = self.list_inputs() + (("body_seed",) if clone.draws_random() else ())
        return clone

    def draws_random(self):
        """Whether a body draws random numbers (then the node gets an ``rng``)."""
        return any(body.draws_random for body in self.bodies)

    def body_generator(self, xp, rng):
        """The generator the bodies of one forward draw from, and the hidden output that
        keeps its seed (none when no body draws)."""
        if rng is None:
            return None, ()
        seed = int(rng.integers(0, 2 ** 62))
        return xp.random.default_rng(seed), (xp.asarray([seed], dtype="int64"),)

    @staticmethod
    def saved_generator(xp, saved):
        """The forward's body generator again, from its saved seed (for the backward)."""
        seed = saved.get("body_seed")
        return None if seed is None else xp.random.default_rng(int(seed.reshape(-1)[0]))

    def infer_shape(self, *shapes):
        seed = [(1,)] if self.draws_random() else []
        return list(self.visible_shapes(*shapes)) + seed

    def infer_type(self, *dtypes):
        seed = ["int64"] if self.draws_random() else []
        return list(self.visible_types(*dtypes)) + seed

    def num_visible(self):
        return self.num_outputs

    def num_mxnet_outputs(self):
        return self.num_outputs         # MXNet's node has no seed output

    def list_inputs(self, num_inputs=None):
        """The node's inputs; the parameter ``num_args`` counts the body too, as MXNet's
        (its Python API passes the subgraph as the first argument)."""
        count = num_inputs if num_inputs is not None else self.num_args - self.body_count
        return tuple(f"arg{index}" for index in range(count))

    def body(self, index=0):
        if len(self.bodies) <= index:
            raise self.param_error("runs a subgraph and has none: build it with "
                                   "sym.contrib.foreach / while_loop / cond")
        return self.bodies[index]

    def list_outputs(self):
        visible = tuple(f"output{index}" for index in range(self.num_outputs))
        return visible + (("body_seed",) if self.draws_random() else ())

    def saved_inputs(self, saved):
        return [saved[name] for name in self.list_inputs()]


def _place(count, pairs):
    """A list of ``count`` Nones with ``value`` at ``location`` for each pair."""
    result = [None] * count
    for location, value in pairs:
        result[location] = value
    return result


@register_op
class Foreach(SubgraphOp):
    """Run the body once per slice along axis 0 of the data inputs, carrying the states;
    outputs: the body's data outputs stacked over the steps, then the last states.
    Inputs: the data arrays, the initial states, then the body's other inputs."""
    name = "_foreach"
    params = {"num_args": Param(int, doc="how many inputs, plus one (the body)"),
              "num_outputs": Param(int, doc="data outputs plus states"),
              "num_out_data": Param(int, doc="how many outputs are stacked over the steps"),
              "in_state_locs": Param(Shape, doc="the states' positions among the body's inputs"),
              "in_data_locs": Param(Shape, doc="the data's positions among the body's inputs"),
              "remain_locs": Param(Shape, doc="the other inputs' positions in the body")}

    def check_params(self):
        located = len(self.in_data_locs) + len(self.in_state_locs) + len(self.remain_locs)
        if self.num_args != located + 1:
            raise self.param_error(f"num_args is {self.num_args} (the body and its inputs), "
                                   f"but the locations name {located} inputs")
        if self.num_outputs - self.num_out_data != len(self.in_state_locs):
            raise self.param_error(
                f"{self.num_outputs - self.num_out_data} state outputs for "
                f"{len(self.in_state_locs)} states")

    def _split(self, values):
        data_count, state_count = len(self.in_data_locs), len(self.in_state_locs)
        return (list(values[:data_count]), list(values[data_count:data_count + state_count]),
                list(values[data_count + state_count:]))

    def _body_values(self, data, states, remain):
        return _place(self.body().num_inputs,
                      [*zip(self.in_data_locs, data), *zip(self.in_state_locs, states),
                       *zip(self.remain_locs, remain)])

    def _from_body(self, values, steps):
        """Input values of this node from the body's (data get the step axis back)."""
        data = [None if values[loc] is None else steps(values[loc])
                for loc in self.in_data_locs]
        return (data + [values[loc] for loc in self.in_state_locs]
                + [values[loc] for loc in self.remain_locs])

    # -- inference ----------------------------------------------------------------------
    def _infer(self, shapes):
        data, states, remain = self._split(shapes)
        if any(shape is None or not len(shape) for shape in data):
            return None, None
        steps = data[0][0]
        sliced = [tuple(shape[1:]) for shape in data]
        inputs, outputs = self.body().infer_shapes(self._body_values(sliced, states, remain))
        stacked = [None if shape is None else (steps,) + tuple(shape)
                   for shape in outputs[:self.num_out_data]]
        return (self._from_body(inputs, lambda shape: (steps,) + tuple(shape)),
                stacked + list(outputs[self.num_out_data:]))

    def infer_input_shapes(self, *shapes):
        completed, _ = self._infer(shapes)
        if completed is None:
            return list(shapes)
        return [old if new is None else new for old, new in zip(shapes, completed)]

    def visible_shapes(self, *shapes):
        _, outputs = self._infer(shapes)
        if outputs is None or any(shape is None for shape in outputs):
            raise self.shape_error(f"cannot infer the body's output shapes from input "
                                   f"shapes {list(shapes)}")
        return [tuple(shape) for shape in outputs]

    def visible_types(self, *dtypes):
        data, states, remain = self._split(dtypes)
        _, outputs = self.body().infer_types(self._body_values(data, states, remain))
        if any(dtype is None for dtype in outputs):
            raise self.type_error(f"cannot infer the body's output types from {list(dtypes)}")
        return list(outputs)

    # -- computing ----------------------------------------------------------------------
    def _loop(self, xp, arrays, is_train, keep, rng=None):
        data, states, remain = self._split(arrays)
        body, stacked, kept = self.body(), [], []
        steps = data[0].shape[0] if data else 0
        if steps == 0:
            raise self.shape_error("the data inputs have no step (axis 0 has size 0)")
        for step in range(steps):
            results, record = body.forward(
                xp, self._body_values([d[step] for d in data], states, remain), is_train, keep,
                rng)
            stacked.append(results[:self.num_out_data])
            states = list(results[self.num_out_data:])
            kept.append(record)
        outputs = [xp.stack(per_step) for per_step in zip(*stacked)]
        return tuple(outputs + states), kept

    def forward(self, xp, *arrays, is_train=False, rng=None):
        generator, seed = self.body_generator(xp, rng)
        return self._loop(xp, arrays, is_train, False, generator)[0] + seed

    def backward(self, xp, *out_grads, is_train=True, needs=ALL_NEEDED, **saved):
        arrays = self.saved_inputs(saved)
        outputs, kept = self._loop(xp, arrays, True, True, self.saved_generator(xp, saved))
        data, states, remain = self._split(arrays)
        body = self.body()
        data_grads = [xp.zeros(d.shape, d.dtype) for d in data]
        state_grads = list(out_grads[self.num_out_data:])
        remain_grads = [None] * len(remain)
        for step in reversed(range(len(kept))):
            heads = [g[step] for g in out_grads[:self.num_out_data]] + state_grads
            grads = body.backward(xp, kept[step], heads, is_train)
            for k, loc in enumerate(self.in_data_locs):
                if grads[loc] is not None:
                    data_grads[k][step] = grads[loc]
            state_grads = [xp.zeros(s.shape, s.dtype) if grads[loc] is None else grads[loc]
                           for loc, s in zip(self.in_state_locs, states)]
            for k, loc in enumerate(self.remain_locs):
                if grads[loc] is not None:
                    remain_grads[k] = grads[loc] if remain_grads[k] is None \
                        else remain_grads[k] + grads[loc]
        return tuple(data_grads + state_grads + remain_grads)


def _is_true(xp, value):
    """A one-element body output (the loop or branch condition) as a Python bool."""
    if value.size != 1:
        raise ValueError(f"control flow: the condition must have one element, got shape "
                         f"{tuple(value.shape)}")
    return bool(value.reshape(-1)[0].item())


def _add_gradients(total, positions, grads):
    """Add each body input's gradient ``grads[k]`` into ``total`` at node input
    ``positions[k]`` (a node input several bodies read sums their gradients)."""
    for position, grad in zip(positions, grads):
        if grad is not None:
            total[position] = grad if total[position] is None else total[position] + grad


@register_op
class WhileLoop(SubgraphOp):
    """Run the ``func`` body while the ``cond`` body gives true, at most ``max_iterations``
    times; outputs: the step outputs stacked and padded with zeros to ``max_iterations``
    rows, then the final loop variables.  Inputs: every value either body reads."""
    name = "_while_loop"
    params = {"num_args": Param(int, doc="how many inputs, plus two (the bodies)"),
              "num_outputs": Param(int, doc="step outputs plus loop variables"),
              "num_out_data": Param(int, doc="how many outputs are stacked over the steps"),
              "max_iterations": Param(int, doc="the most steps the loop runs"),
              "cond_input_locs": Param(Shape, doc="cond's inputs among the node's"),
              "func_input_locs": Param(Shape, doc="func's inputs among the node's"),
              "func_var_locs": Param(Shape, doc="the loop variables among func's inputs")}
    body_count = 2

    def _var_inputs(self):
        """The node input holding each loop variable."""
        return [self.func_input_locs[loc] for loc in self.func_var_locs]

    def visible_shapes(self, *shapes):
        _, outputs = self.body(1).infer_shapes([shapes[i] for i in self.func_input_locs])
        outputs = [tuple(shapes[i]) if out is None and i is not None else out
                   for out, i in zip(outputs, [None] * self.num_out_data + self._var_inputs())]
        if any(shape is None for shape in outputs):
            raise self.shape_error(f"cannot infer the body's output shapes from input "
                                   f"shapes {list(shapes)}")
        return ([(self.max_iterations,) + tuple(s) for s in outputs[:self.num_out_data]]
                + [tuple(s) for s in outputs[self.num_out_data:]])

    def visible_types(self, *dtypes):
        _, outputs = self.body(1).infer_types([dtypes[i] for i in self.func_input_locs])
        outputs = [dtypes[i] if out is None and i is not None else out
                   for out, i in zip(outputs, [None] * self.num_out_data + self._var_inputs())]
        if any(dtype is None for dtype in outputs):
            raise self.type_error(f"cannot infer the body's output types from {list(dtypes)}")
        return list(outputs)

    def _loop(self, xp, arrays, is_train, keep, rng=None):
        cond, func = self.body(0), self.body(1)
        values, var_inputs, rows, kept = list(arrays), self._var_inputs(), [], []
        while len(rows) < self.max_iterations:
            test, _ = cond.forward(xp, [values[i] for i in self.cond_input_locs], False, False,
                                   rng)
            if not _is_true(xp, test[0]):
                break
            results, record = func.forward(xp, [values[i] for i in self.func_input_locs],
                                           is_train, keep, rng)
            rows.append(results[:self.num_out_data])
            kept.append(record)
            for position, value in zip(var_inputs, results[self.num_out_data:]):
                values[position] = value
        return values, rows, kept

    def forward(self, xp, *arrays, is_train=False, rng=None):
        generator, seed = self.body_generator(xp, rng)
        values, rows, _ = self._loop(xp, arrays, is_train, False, generator)
        shapes = self.visible_shapes(*[a.shape for a in arrays])
        dtypes = self.visible_types(*[a.dtype for a in arrays])
        outputs = []
        for k in range(self.num_out_data):
            stacked = xp.zeros(shapes[k], dtypes[k])
            for step, row in enumerate(rows):
                stacked[step] = row[k]
            outputs.append(stacked)
        return tuple(outputs + [values[i] for i in self._var_inputs()]) + seed

    def backward(self, xp, *out_grads, is_train=True, needs=ALL_NEEDED, **saved):
        arrays = self.saved_inputs(saved)
        _, _, kept = self._loop(xp, arrays, True, True, self.saved_generator(xp, saved))
        var_inputs = self._var_inputs()
        totals = [None] * len(arrays)
        var_grads = list(out_grads[self.num_out_data:])
        for step in reversed(range(len(kept))):
            heads = [g[step] for g in out_grads[:self.num_out_data]] + var_grads
            grads = self.body(1).backward(xp, kept[step], heads, is_train)
            var_grads = [grads[loc] for loc in self.func_var_locs]
            var_grads = [xp.zeros(arrays[i].shape, arrays[i].dtype) if g is None else g
                         for g, i in zip(var_grads, var_inputs)]
            others = [None if k in self.func_var_locs else g for k, g in enumerate(grads)]
            _add_gradients(totals, self.func_input_locs, others)
        _add_gradients(totals, var_inputs, var_grads)
        return tuple(totals)


@register_op
class Cond(SubgraphOp):
    """Run the ``then`` body if the ``cond`` body gives true, else the ``else`` body.
    Inputs: every value any of the three reads."""
    name = "_cond"
    params = {"num_args": Param(int, doc="how many inputs, plus three (the bodies)"),
              "num_outputs": Param(int, doc="how many outputs each branch gives"),
              "cond_input_locs": Param(Shape, doc="cond's inputs among the node's"),
              "then_input_locs": Param(Shape, doc="then's inputs among the node's"),
              "else_input_locs": Param(Shape, doc="else's inputs among the node's")}
    body_count = 3

    def _branch_values(self, values, branch):
        locations = self.then_input_locs if branch == 1 else self.else_input_locs
        return [values[i] for i in locations], locations

    def visible_shapes(self, *shapes):
        found = []
        for branch in (1, 2):
            inputs, _ = self._branch_values(shapes, branch)
            found.append(self.body(branch).infer_shapes(inputs)[1])
        outputs = [a if a is not None else b for a, b in zip(*found)]
        if any(shape is None for shape in outputs):
            raise self.shape_error(f"cannot infer the branches' output shapes from input "
                                   f"shapes {list(shapes)}")
        return [tuple(shape) for shape in outputs]

    def visible_types(self, *dtypes):
        inputs, _ = self._branch_values(dtypes, 1)
        outputs = self.body(1).infer_types(inputs)[1]
        if any(dtype is None for dtype in outputs):
            raise self.type_error(f"cannot infer the branches' output types from "
                                  f"{list(dtypes)}")
        return list(outputs)

    def _branch(self, xp, arrays, rng):
        test, _ = self.body(0).forward(xp, [arrays[i] for i in self.cond_input_locs], False,
                                       False, rng)
        return 1 if _is_true(xp, test[0]) else 2

    def forward(self, xp, *arrays, is_train=False, rng=None):
        generator, seed = self.body_generator(xp, rng)
        branch = self._branch(xp, arrays, generator)
        inputs, _ = self._branch_values(arrays, branch)
        return tuple(self.body(branch).forward(xp, inputs, is_train, False, generator)[0]) + seed

    def backward(self, xp, *out_grads, is_train=True, needs=ALL_NEEDED, **saved):
        arrays = self.saved_inputs(saved)
        generator = self.saved_generator(xp, saved)
        branch = self._branch(xp, arrays, generator)
        inputs, locations = self._branch_values(arrays, branch)
        body = self.body(branch)
        _, kept = body.forward(xp, inputs, True, True, generator)
        totals = [None] * len(arrays)
        _add_gradients(totals, locations, body.backward(xp, kept, list(out_grads), is_train))
        return tuple(totals)
