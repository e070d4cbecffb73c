"""CachedOp: a traced graph run imperatively, one engine push per call.

Lesson: 10-hybridize.  Mirrors ``CachedOp`` in ``src/imperative/cached_op.cc``.
``hybridize()`` traces a block once into a Symbol; every later call runs the
planned graph (``minimx.executor.plan``) as ONE engine operation, without
calling the block's Python code.  Under ``autograd.record()`` the whole call
is recorded as one tape node whose backward is one more engine operation.
"""
from .. import backend, engine, ndarray, random_state
from ..base import GradientError, MXNetError
from ..tape import recording
from ..tape.nodes import FunctionNode, live_entry
from ..executor.backward_program import BackwardProgram
from ..executor.plan import PlanInfo, build_plan
from ..executor.program import ForwardProgram, can_lower
from ..executor.run import run_backward, run_forward
from ..op.sparse_values import to_dense
from ..ndarray.ndarray import Chunk, NDArray
from ..ndarray.dispatch import gradient_targets
from ..ndarray.sparse_dispatch import as_dense
from ..op.call import own_buffers
from ..symbol import inference
from ..symbol.graph import (Node, aux_variables, check_gradients_exist, entries_depending_on,
                            topo_order)

__all__ = ["CachedOp"]


class CachedOp:
    """Runs ``symbol`` on NDArrays given in the order of ``input_names``.

    One plan is made per input signature (shapes, dtypes, context, training
    mode) and reused; ``plans_built`` counts them, so a lesson can show that
    a new input shape means a new plan.
    """

    def __init__(self, symbol, input_names):
        self.symbol = symbol
        self.input_names = list(input_names)
        self._entries = symbol._entries
        variables = {node.name: node for node in topo_order(self._entries) if node.is_variable}
        # an input the graph does not read (a block that ignores an argument) is accepted,
        # as MXNet's CachedOp accepts it: a variable of its own, whose gradient is zero
        self._variables = [variables.get(name) or Node(None, name)
                           for name in self.input_names]
        aux = aux_variables(self._entries)
        self._mutated = [id(node) in aux for node in self._variables]
        self._plans = {}
        self._needs_grad_cache = {}
        self._gradients_checked = False
        self.plans_built = 0
        self.calls = 0
        self.op_hook = None      # (callback(name, op_name, array), monitor_all) or None

    def _plan_for(self, arrays, ctx, is_train, record):
        # The key is computed on every call, so it holds only plain tuples, strings and
        # ints: a Context as key element would cost a Python-level __hash__/__eq__ per call.
        key = (tuple([(a._shape, a._dtype) for a in arrays]), (ctx.device_type, ctx.device_id),
               is_train, record)
        found = self._plans.get(key)
        if found is None:
            found = self._plans[key] = self._make_plan(arrays, ctx, is_train, record)
            self.plans_built += 1
        return found

    def plans(self):
        """Every plan built so far, oldest first (``executor.plan.PlanInfo``): one per input
        signature (shapes, dtypes), context and mode.  Lessons and the views read these."""
        return [PlanInfo(entry.plan, entry.shapes, entry.dtypes, entry.is_train, key[0])
                for key, entry in self._plans.items()]

    def _make_plan(self, arrays, ctx, is_train, record):
        shapes_in = {node.name: a.shape for node, a in zip(self._variables, arrays)}
        dtypes_in = {node.name: a._dtype for node, a in zip(self._variables, arrays)}
        _, shapes = inference.infer_shapes(self._entries, shapes_in)
        _, dtypes = inference.infer_types(self._entries, dtypes_in)
        # A recorded call keeps what backward needs, also in predict mode.
        plan = build_plan(self._entries, shapes, dtypes, is_train or record,
                          backend.get_xp(ctx))
        return _PlanEntry(self, plan, shapes, dtypes, backend.get_xp(ctx), is_train, record)

    def _needs_grad(self, wanted):
        """The entries that depend on the inputs flagged in ``wanted`` (a graph walk, so
        done once per flag pattern rather than on every backward)."""
        found = self._needs_grad_cache.get(wanted)
        if found is None:
            found = self._needs_grad_cache[wanted] = entries_depending_on(
                self._entries, {id(v) for v, w in zip(self._variables, wanted) if w})
        return found

    def check_gradients(self):
        """Before the first backward: refuse, as MXNet, a graph whose outputs' gradient
        reaches an operator without one (a graph walk, done once)."""
        if not self._gradients_checked:
            check_gradients_exist(self._entries)
            self._gradients_checked = True

    def __call__(self, *arrays, default_ctx=None):
        """Run the graph; returns one NDArray or a list (one per output).  The graph runs on
        the inputs' context, or on ``default_ctx`` when it has no inputs (a graph of
        constants, as a block's whose inputs no computation uses)."""
        self.calls += 1
        if any(a.stype != "default" for a in arrays):     # graphs compute on dense arrays
            arrays = [as_dense(a) for a in arrays]
        is_train = recording.is_training()
        entries = [live_entry(a._autograd) for a in arrays] if recording.is_recording() \
            else None
        record = entries is not None and any(e is not None for e in entries)
        ctx = arrays[0]._chunk.ctx if arrays else default_ctx
        entry = self._plan_for(arrays, ctx, is_train, record)
        outputs = [NDArray._empty(shape, dtype, ctx) for shape, dtype in entry.output_meta]
        if record:
            if entry.program is not None and self.op_hook is None:
                saved = []          # the program's slots, once it has run
                self._push_program(entry, arrays, outputs, ctx, saved)
            else:
                saved = {}
                self._push_forward(entry, arrays, outputs, ctx, is_train, saved)
            node = FunctionNode(_Backward(self, entry, arrays, outputs, saved, entries),
                                entries, [o.shape for o in outputs],
                                [o._dtype for o in outputs], ctx)
            for index, output in enumerate(outputs):
                output._autograd = (node, index)
        elif entry.program is not None and self.op_hook is None:
            self._push_program(entry, arrays, outputs, ctx)
        else:
            self._push_forward(entry, arrays, outputs, ctx, is_train, None)
        return outputs[0] if len(outputs) == 1 else outputs

    @staticmethod
    def _push_program(entry, arrays, outputs, ctx, kept=None):
        """The fast path: run the lowered program (``executor.program``) as one push; a
        recorded call's program keeps every value, and its slots go into ``kept``."""
        program = entry.program

        constants = entry.plan.constants

        def run():
            inputs = [a._read() for a in arrays]
            slots = program.fill(inputs)
            if kept is not None:
                kept.append(slots)
            results = own_buffers(program.results_of(slots), [*inputs, *constants])
            for target, value in zip(outputs, results):
                target._write(value)

        writes = [o._chunk.var for o in outputs]
        writes += [arrays[i]._chunk.var for i in entry.mutated]
        engine.push(run, [a._chunk.var for a in arrays], writes, ctx, "CachedOp",
                    entry.plan.work, entry.plan.small)

    def _push_forward(self, entry, arrays, outputs, ctx, is_train, saved):
        """The interpreter path: recorded calls (``saved`` collects what backward needs)
        and graphs with random nodes."""
        xp = backend.get_xp(ctx)
        plan, keys, result_keys = entry.plan, entry.value_keys, entry.result_keys
        # Seeds are drawn at push time (not in the worker) so results do not depend on
        # when the engine runs the op; most graphs have no random node and skip this.
        seeds = {id(node): random_state.next_seed(ctx) for node in entry.rng_nodes}
        make_rng = (lambda seed: backend.make_rng(ctx, seed)) if seeds else None
        reads = [a._chunk.var for a in arrays]
        writes = [o._chunk.var for o in outputs]
        writes += [arrays[i]._chunk.var for i in entry.mutated]

        monitor, monitor_all = self._hook_monitor(ctx)

        def run():
            inputs = [array._read() for array in arrays]
            values = dict(zip(keys, inputs))
            run_forward(plan, xp, values, is_train, seeds, make_rng, saved, monitor,
                        monitor_all)
            results = own_buffers([values[key] for key in result_keys],
                                  [*inputs, *plan.constants])
            for target, value in zip(outputs, results):
                target._write(value)

        engine.push(run, reads, writes, ctx, "CachedOp", plan.work, plan.small)


    def _hook_monitor(self, ctx):
        """The executor's monitor for ``op_hook`` (``HybridBlock.register_op_hook``)."""
        if self.op_hook is None:
            return None, False
        callback, monitor_all = self.op_hook

        def monitor(name, value, op_name):
            callback(name, op_name, NDArray(Chunk(ctx, value.copy()), value.shape, value.dtype))

        return monitor, monitor_all


class _PlanEntry:
    """One plan and what every call with it needs, computed once instead of per call."""

    def __init__(self, cached_op, plan, shapes, dtypes, xp, is_train, record):
        self.plan, self.shapes, self.dtypes, self.is_train = plan, shapes, dtypes, is_train
        entries = cached_op._entries
        self.output_meta = [(shapes[entry], dtypes[entry]) for entry in entries]
        self.value_keys = [(node, 0) for node in cached_op._variables]
        self.result_keys = [plan.resolve(entry) for entry in entries]
        self.rng_nodes = [node for step in plan.steps for node in step.nodes
                          if node.call().random]
        self.mutated = [i for i, is_aux in enumerate(cached_op._mutated) if is_aux]
        # a recorded call's program keeps every value for the BackwardProgram
        self.program = (ForwardProgram(plan, xp, self.value_keys, self.result_keys, is_train,
                                       keep=record)
                        if can_lower(plan) else None)
        self.meta = {key: (shapes[key], dtypes[key]) for key in shapes
                     if shapes[key] is not None and dtypes.get(key) is not None}
        self.backward_programs = {}      # id(needs_grad) -> (needs_grad, BackwardProgram)

    def backward_program(self, needs_grad):
        """The recorded plan's backward lowered over the program's slots (once per
        ``needs_grad``)."""
        found = self.backward_programs.get(id(needs_grad))
        if found is None or found[0] is not needs_grad:
            found = self.backward_programs[id(needs_grad)] = (
                needs_grad, BackwardProgram(self.plan, self.program, needs_grad, self.meta))
        return found[1]


class _Backward:
    """The tape's view of one CachedOp call: its backward is one engine push."""

    def __init__(self, cached_op, entry, arrays, outputs, saved, entries):
        self.cached_op = cached_op
        self.entries = entries
        self.entry = entry
        self.plan = entry.plan
        self.arrays = arrays
        # The outputs' chunks, not the outputs: each output links back to this object
        # (``_autograd``), and that cycle would keep ``saved`` (every activation of the
        # call) alive until Python's cycle collector happens to run.
        self.output_chunks = [o._chunk for o in outputs]
        self.saved = saved      # the interpreter's dict, or [the lowered program's slots]
        self.meta = entry.meta
        self.mutated = entry.mutated    # positions of the auxiliary states among the inputs

    def writes_into(self):
        """Whether autograd.backward may hand ``_run_backward`` the variables' ``.grad``
        (``into``): when its backward cannot fail before it is pushed."""
        try:
            self.cached_op.check_gradients()
        except GradientError:
            return False
        return True

    def _run_backward(self, out_grads, create_graph, into=None):
        self.cached_op.check_gradients()
        ctx = self.arrays[0].context
        xp = backend.get_xp(ctx)
        variables = self.cached_op._variables
        wanted = [entry is not None for entry in self.entries]
        needs_grad = self.cached_op._needs_grad(tuple(wanted))
        grads = [NDArray._empty(a.shape, a._dtype, ctx) if w else None
                 for a, w in zip(self.arrays, wanted)]
        plan, saved, meta = self.plan, self.saved, self.meta
        is_train = recording.is_training()          # the backward pass's mode, as MXNet's
        arrays = self.arrays
        entries = self.cached_op._entries
        slot_by_key = self.entry.program.slot_of if self.entry.program is not None else None

        def run():
            heads = {}
            for entry, g in zip(entries, out_grads):    # an output listed twice gets both
                heads[entry] = g._read() if entry not in heads else heads[entry] + g._read()
            if type(saved) is list:          # forward ran the lowered program
                program, slot_of = self.entry.backward_program(needs_grad), slot_by_key
                result = program.run(xp, saved[0], {slot_of[plan.resolve(key)]: value
                                                    for key, value in heads.items()}, is_train)
                values = [result[slot_of[(node, 0)]] for node in variables]
            else:
                result = run_backward(plan, xp, heads, saved, needs_grad, is_train, meta)
                values = [result.get((node, 0)) for node in variables]
            # a row_sparse gradient (Embedding(sparse_grad=True)) into the dense grad array
            values = [_dense_value(value) for value in values]
            values = own_buffers(values, [*heads.values(), *(a._read() for a in arrays)])
            for value, target in zip(values, grads):
                if target is not None:
                    target._write(xp.zeros(target.shape, target._dtype) if value is None
                                  else value)

        # ``saved`` holds raw buffers of the inputs: reading their vars keeps later
        # in-place writes to the inputs behind this step (as the op-by-op tape does).
        reads = [g._chunk.var for g in out_grads] + [c.var for c in self.output_chunks]
        reads += [a._chunk.var for a in self.arrays]
        if into is not None:
            grads = gradient_targets(grads, into, reads)
        writes = [g._chunk.var for g in grads if g is not None]
        # auxiliary states (BatchNorm's moving statistics) move in the backward pass
        writes += [self.arrays[i]._chunk.var for i in self.mutated]
        engine.push(run, reads, writes, ctx, "CachedOp_backward", plan.work, plan.small)
        return grads


class NDArrayCachedOp:
    """``nd.CachedOp(sym)``: run a Symbol on NDArrays as one operation; call it with the
    inputs in ``sym.list_inputs()`` order (``flags`` are accepted, as MXNet's)."""

    def __init__(self, sym, flags=()):
        self.flags = dict(flags)
        self._op = CachedOp(sym, sym.list_inputs())

    def __call__(self, *args, out=None, **kwargs):
        if kwargs:
            raise MXNetError(f"CachedOp: unexpected keyword arguments {sorted(kwargs)}")
        result = self._op(*args)
        if out is not None:
            targets = out if isinstance(out, (list, tuple)) else [out]
            values = result if isinstance(result, list) else [result]
            for target, value in zip(targets, values):
                value.copyto(target)
            return out
        return result


ndarray.CachedOp = NDArrayCachedOp      # MXNet's nd.CachedOp: the same graph runner


def _dense_value(value):
    return to_dense(value) if hasattr(value, "toarray") else value
