"""Executor: a Symbol bound to arrays on a device, planned once and run many times.

Lesson: 08-executors.  Mirrors ``python/mxnet/executor.py`` and
``src/executor/graph_executor.cc``.  ``forward`` and ``backward`` are each ONE
engine push that runs the whole plan (see ``run.py``): this is where the
speed of ``hybridize()`` comes from.
"""
import os
import weakref

from .. import backend, engine, random_state
from ..base import InvalidParameterError, InvalidShapeError, MXNetError
from ..ndarray.ndarray import NDArray
from ..ndarray.sparse_array import class_of
from ..op.call import own_buffers
from ..symbol import inference
from ..symbol.storage import infer_storage_types
from ..op import get_op
from ..symbol.graph import (check_gradients_exist, eliminate_common_expressions,
                            entries_depending_on, topo_order, untouched_gradient_variables)
from .placement import context_of
from .plan import PlanInfo, build_plan
from .backward_program import BackwardProgram
from .program import ForwardProgram, can_lower
from .run import run_backward, run_forward
from .sparse_step import dense_of, write_gradient

__all__ = ["Executor"]

_GRAD_REQS = ("write", "add", "null")


class Executor:
    """Runs one Symbol with fixed arrays (use ``Symbol.bind`` or ``simple_bind``)."""

    def __init__(self, symbol, ctx, arg_arrays, grad_arrays, grad_reqs, aux_arrays,
                 group2ctx=None, shared_exec=None):
        self._symbol = symbol
        # read at bind, as MXNet's graph executor reads it (see get_optimized_symbol)
        self._eliminate_common_expr = os.environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1") != "0"
        self._ctx = ctx
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self.arg_arrays = arg_arrays
        self.grad_arrays = grad_arrays
        self.aux_arrays = aux_arrays
        self._grad_reqs = grad_reqs
        self._entries = symbol._entries
        self._variables = {node.name: node for node in symbol._order()
                           if node.is_variable}
        self._infer()
        self._group2ctx = group2ctx
        if grad_arrays is not None and any(
                req != "null" and grad is not None for req, grad in zip(grad_reqs, grad_arrays)):
            check_gradients_exist(self._entries, symbol._order())
        self.outputs = [class_of(self._stypes[e])._empty(self._shapes[e], self._dtypes[e],
                                                         context_of(e[0], ctx, group2ctx))
                        for e in self._entries]
        self._plans = {}
        self._programs = {}           # (id(plan), is_train) -> its ForwardProgram
        # (needs_grad, forward program, BackwardProgram, each head's slot, each target's slot)
        self._backward_program = None
        self._resolved = {}           # id(plan) -> the value keys of the outputs in it
        # the value key of each argument, then of each auxiliary state (their arrays' order)
        self._value_keys = [(self._variables[name], 0)
                            for name in self._arg_names + self._aux_names]
        self._state = engine.new_var()      # orders forward's saved values before backward
        # what backward reads: the interpreter's {id(node): saved values}, or a lowered
        # forward's (program, its slots)
        self._saved = {}
        self._saved_from = []      # (bound array or output, the buffer forward saved of it)
        self._saving = False       # does the last forward pushed save what backward reads?
        # shared with the executors bound with ``shared_exec`` (``_claim_saved_memory``)
        self._memory = shared_exec._memory if shared_exec is not None else _SavedMemory()
        self._forward_mode = None  # is_train of the last forward pushed (None: none yet)
        self._backward_cache = None
        self._var_lists = {}       # 'forward'/'backward' -> the vars of the arrays bound (_vars)
        self._monitor = None
        self._monitor_all = False

    @property
    def symbol(self):
        """The Symbol this executor runs."""
        return self._symbol

    # -- dictionaries --------------------------------------------------------------------
    @property
    def arg_dict(self):
        return dict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        """{argument name: gradient array}, None for arguments without one (as MXNet)."""
        if self.grad_arrays is None:
            return {}
        return dict(zip(self._arg_names, self.grad_arrays))

    @property
    def aux_dict(self):
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        return dict(zip(self._symbol.list_outputs(), self.outputs))

    # -- planning ----------------------------------------------------------------------
    def _infer(self):
        known = {name: array.shape for name, array in self._named_arrays()}
        order = self._symbol._order()
        _, self._shapes = inference.infer_shapes(self._entries, known, order)
        dtypes = {name: array._dtype for name, array in self._named_arrays()}
        _, self._dtypes = inference.infer_types(self._entries, dtypes, order)
        self._stypes = infer_storage_types(self._entries, self._shapes, {
            name: array.stype for name, array in self._named_arrays()}, order)
        self._sparse = any(stype != "default" for stype in self._stypes.values())
        for node, index in self._entries:
            if self._shapes.get((node, index)) is None:
                raise InvalidShapeError(
                    f"bind: cannot infer the shape of output {node.output_name(index)}")
        for name, array in self._named_arrays():
            inferred = self._shapes.get((self._variables[name], 0))
            if inferred is not None and tuple(inferred) != array.shape:
                raise InvalidShapeError(f"bind: argument '{name}' has shape {array.shape} but "
                                        f"the graph needs {tuple(inferred)}")

    def _named_arrays(self):
        return list(zip(self._arg_names, self.arg_arrays)) + list(
            zip(self._aux_names, self.aux_arrays))

    def _plan(self, is_train):
        if is_train not in self._plans:
            xp = backend.get_xp(self._ctx)
            self._plans[is_train] = build_plan(self._entries, self._shapes, self._dtypes,
                                               is_train, xp, self._symbol._order())
        return self._plans[is_train]

    def _program(self, plan, is_train, save):
        """``plan`` lowered to a ForwardProgram (``program.py``; with ``save``, one that
        keeps every value for ``BackwardProgram``), or None when the interpreter must run
        it (random nodes draw per call; a monitor sees every node; sparse values go node
        by node through ``sparse_step.py``)."""
        key = (id(plan), is_train)                # cleared whenever _plans is
        if key not in self._programs:
            lowered = self._monitor is None and not self._sparse and can_lower(plan)
            self._programs[key] = ForwardProgram(
                plan, backend.get_xp(self._ctx), self._value_keys,
                self._resolved_entries(plan), is_train, keep=save) if lowered else None
        return self._programs[key]

    def plan_report(self, is_train=False):
        """What the planning passes did (for lessons and the graph widget)."""
        return self._plan(is_train).report

    def plan_info(self, is_train=False):
        """The plan this executor runs in that mode, with its shapes and dtypes (``PlanInfo``;
        built now if no forward has needed it yet)."""
        signature = tuple((name, array.shape, array.dtype) for name, array in
                          self._named_arrays())
        return PlanInfo(self._plan(is_train), self._shapes, self._dtypes, is_train, signature)

    # -- running -----------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Compute the outputs; keyword arrays are copied into the named arguments first."""
        return self._forward(is_train, is_train, kwargs)

    def _forward(self, is_train, save, kwargs):
        """``forward``; with ``save`` the values backward reads are kept (a training
        forward always keeps them)."""
        for name, value in kwargs.items():
            if name not in self._arg_names:
                raise MXNetError(f"forward: unknown argument {name!r}; arguments are "
                                 f"{self._arg_names}")
            target = self.arg_dict[name]
            if isinstance(value, NDArray):
                value.copyto(target)
            else:
                target[:] = value
        plan = self._plan(is_train or save)        # backward reads the training plan's nodes
        if save:
            self._claim_saved_memory()
        self._saving = save
        self._forward_mode = is_train
        program = self._program(plan, is_train, save)
        if program is not None:
            self._push_program(plan, program, save)
            return self.outputs
        xp = backend.get_xp(self._ctx)
        ctx = self._ctx
        seeds = {id(node): random_state.next_seed(ctx) for node in plan.random_nodes}
        keys, arrays = self._value_keys, self.arg_arrays + self.aux_arrays
        outputs = list(self.outputs)
        entries = self._resolved_entries(plan)
        saved = {} if save else None
        monitor, monitor_all = self._monitor, self._monitor_all

        def run():
            raw = [array._read() for array in arrays]
            values = dict(zip(keys, raw))
            run_forward(plan, xp, values, is_train, seeds,
                        lambda seed: backend.make_rng(ctx, seed), saved, monitor,
                        monitor_all, monitor_variables=True)
            results = [values[key] for key in entries]
            kept = saved
            computed = list(results)
            for target, value in zip(outputs, own_buffers(results, [*raw, *plan.constants])):
                target._write(dense_of(value) if target.stype == "default" else value)
            self._saved = kept if save else {}
            self._saved_from = ([(a, a._chunk.data, buffer) for a, buffer in
                                 zip([*arrays, *outputs], [*raw, *computed])] if save else [])

        reads = [array._chunk.var for array in arrays]
        writes = [o._chunk.var for o in outputs] + [a._chunk.var for a in self.aux_arrays]
        engine.push(run, reads, writes + [self._state], ctx, "executor_forward", plan.work,
                    plan.small)
        return self.outputs

    def _push_program(self, plan, program, save):
        """``_forward`` by the lowered program (``program.py``): no dictionaries, and the
        engine's var lists are the ones worked out for these arrays before (``_vars``).
        A training forward keeps the program's slots for ``BackwardProgram``."""
        arrays = self.arg_arrays + self.aux_arrays
        outputs = list(self.outputs)
        reads, writes = self._vars("forward", (arrays, outputs), self._forward_vars)
        constants = plan.constants

        def run():
            raw = [array._read() for array in arrays]
            slots = program.fill(raw)
            results = program.results_of(slots)
            computed = list(results)
            for target, value in zip(outputs, own_buffers(results, [*raw, *constants])):
                target._write(value)        # (a lowered plan has only dense values)
            if save:
                self._saved = (program, slots)
                self._saved_from = [(a, a._chunk.data, buffer) for a, buffer in
                                    zip([*arrays, *outputs], [*raw, *computed])]
            else:
                self._saved, self._saved_from = {}, []

        engine.push(run, reads, writes, self._ctx, "executor_forward", plan.work, plan.small)

    def _forward_vars(self, arrays, outputs):
        """The vars forward reads (the bound arrays) and writes (its outputs, the auxiliary
        states, the executor's ``_state``)."""
        reads = [array._chunk.var for array in arrays]
        writes = [o._chunk.var for o in outputs] + [a._chunk.var for a in self.aux_arrays]
        return reads, writes + [self._state]

    def _vars(self, kind, groups, make):
        """``make(*groups)``'s (read vars, write vars), kept while the same arrays are
        bound (``groups``: lists of NDArrays; an array's chunk, and so its var, is its own
        for life), each var listed once: the engine then has no duplicates to take out."""
        key = tuple(tuple(map(id, group)) for group in groups)
        cached = self._var_lists.get(kind)
        if cached is None or cached[0] != key:
            reads, writes = make(*groups)
            writes = list(dict.fromkeys(writes))
            reads = [var for var in dict.fromkeys(reads) if var not in writes]
            # the arrays themselves (not the lists, which may change) are kept with the
            # key: while cached, no other array can be given one of their ids
            cached = self._var_lists[kind] = (key, tuple(map(tuple, groups)), reads, writes)
        return cached[2], cached[3]

    def _claim_saved_memory(self):
        """Become the executor of its memory group that keeps what its forward saved.

        Executors bound with ``shared_exec`` (a BucketingModule's buckets, a reshaped
        executor) share one memory in MXNet: a forward of one overwrites the values another
        saved for its backward.  minimx keeps saved values per executor, so every bucket
        trained once would hold its activations for good; instead the previous holder lets
        them go (after its pending backward: the release writes its ``_state``), and a
        ``backward`` of it without a new forward runs that forward again (see ``backward``).
        """
        memory = self._memory
        previous = memory.holder() if memory.holder is not None else None
        memory.holder = weakref.ref(self)
        if previous is None or previous is self or not previous._saving:
            return
        previous._saving = False

        def release():
            previous._saved, previous._saved_from = {}, []

        engine.push(release, [], [previous._state], previous._ctx, "executor_release_saved",
                    small=True)

    def _resolved_entries(self, plan):
        """The value keys that hold the outputs in ``plan`` (worked out once per plan)."""
        if id(plan) not in self._resolved:          # cleared whenever _plans is
            self._resolved[id(plan)] = [plan.resolve(entry) for entry in self._entries]
        return self._resolved[id(plan)]

    def backward(self, out_grads=None, is_train=True):
        """Compute gradients of the arguments into ``grad_arrays`` (per ``grad_req``)."""
        setup = self._backward_setup()
        if setup is None:
            return          # no gradient is asked for (as MXNet, nothing to do)
        if isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        elif isinstance(out_grads, dict):
            out_grads = [out_grads[name] for name in self._symbol.list_outputs()]
        if not self._saving:
            # MXNet lets backward run without a forward that kept its values (on whatever
            # its buffers hold); minimx runs that forward again, keeping them, in the last
            # forward's mode (after forward(is_train=False), BatchNorm's saved statistics
            # are its moving ones, as MXNet's), or in backward's mode if there was none.
            mode = is_train if self._forward_mode is None else self._forward_mode
            self._forward(mode, True, {})
        plan = self._plan(True)
        xp = backend.get_xp(self._ctx)
        targets, needs_grad, meta = setup.targets, setup.needs_grad, setup.meta
        heads = list(out_grads) if out_grads is not None else []
        self._check_head_gradients(heads, setup.heads_required)
        # as MXNet's Backward, a head gradient is copied to its output's device first
        heads = [grad if grad is None or grad.context == output.context
                 else grad.as_in_context(output.context)
                 for grad, output in zip(heads, self.outputs)]
        heads += [None] * (len(self._entries) - len(heads))
        monitor = self._monitor

        def run():
            # an output without a head gradient starts from ones (a loss's backward
            # ignores it)
            head = [grad._read() if grad is not None else xp.ones(*shape_dtype)
                    for grad, shape_dtype in zip(heads, setup.head_meta)]
            if type(self._saved) is tuple:          # forward ran the lowered program
                values = self._run_backward_program(plan, xp, head, needs_grad, meta,
                                                    targets, is_train)
            else:
                saved = _as_now(self._saved, self._saved_from)
                grads = run_backward(plan, xp, dict(zip(self._entries, head)), saved,
                                     needs_grad, is_train, meta, monitor)
                values = [grads.get((node, 0)) for node, _, _ in targets]
            values = own_buffers(values, [*head, *[a._read() for a in arrays]])
            _store_gradients(xp, targets, values)

        arrays = self.arg_arrays + self.aux_arrays
        given = [g for g in heads if g is not None]
        reads, writes = self._vars("backward", (given, arrays, self.outputs,
                                                [array for _, array, _ in targets]),
                                   self._backward_vars)
        engine.push(run, reads, writes, self._ctx, "executor_backward", plan.work, plan.small)

    def _backward_vars(self, heads, arrays, outputs, gradients):
        """The vars backward reads (the head gradients given, the bound arrays, the
        outputs) and writes (the gradient arrays, the auxiliary states)."""
        # Forward saved raw buffers of the bound arrays for this step: declaring them read
        # keeps a later in-place write (``arg_dict['data'][:] = next_batch``) behind it.
        reads = [self._state] + [g._chunk.var for g in heads]
        reads += [array._chunk.var for array in arrays]
        reads += [o._chunk.var for o in outputs]      # an in-place change is read too
        writes = [array._chunk.var for array in gradients]
        writes += [a._chunk.var for a in self.aux_arrays]    # BatchNorm's backward moves them
        return reads, writes

    def _run_backward_program(self, plan, xp, head, needs_grad, meta, targets, is_train):
        """``run_backward``'s gradients of ``targets``, by the lowered BackwardProgram over
        the slots the last forward kept (inside backward's engine operation); ``head``: one
        head gradient per output."""
        forward, slots = self._saved
        cached = self._backward_program
        if cached is None or cached[0] is not needs_grad or cached[1] is not forward:
            slot_of = forward.slot_of
            cached = self._backward_program = (
                needs_grad, forward, BackwardProgram(plan, forward, needs_grad, meta),
                [slot_of.get(entry) for entry in self._entries],      # each head's slot
                [slot_of[(node, 0)] for node, _, _ in targets])       # each target's slot
        _, _, program, head_slots, target_slots = cached
        slots = _slots_now(slots, self._saved_from)
        # (a dict: the last of two heads of one output counts, as the interpreter's)
        heads = dict(zip(head_slots, head))
        heads.pop(None, None)
        grads = program.run(xp, slots, heads, is_train)
        return [grads[index] for index in target_slots]

    def _check_head_gradients(self, heads, required):
        """As MXNet: an output that is not a loss needs its head gradient in ``out_grads``
        (the ones minimx used to assume are a gradient nobody asked for); a loss layer,
        ``BlockGrad`` or an output no gradient flows through needs none.  ``required``:
        the positions of the outputs that need one (``_backward_setup``)."""
        for position in required:
            if position >= len(heads) or heads[position] is None:
                name = self._symbol.list_outputs()[position]
                op = self._entries[position][0].instance
                raise MXNetError(
                    f"backward: output {name!r} ({op.name}) is not a loss, so its head "
                    f"gradient is required: pass out_grads to backward (to minimize an "
                    f"output as an objective, pass it through make_loss)")

    def _backward_setup(self):
        """What backward needs that stays the same for every call while ``grad_arrays`` and
        ``grad_req`` stay (a ``_BackwardSetup``), or None when no gradient is asked for."""
        grads = self.grad_arrays
        key = None if grads is None else (tuple(map(id, grads)), tuple(self._grad_reqs))
        if self._backward_cache is None or self._backward_cache[0] != key:
            self._backward_cache = key, self._new_backward_setup()
        return self._backward_cache[1]

    def _new_backward_setup(self):
        if self.grad_arrays is None or all(req == "null" for req in self._grad_reqs):
            return None
        # as MXNet, a loss layer's label keeps its gradient array as it was
        order = self._symbol._order()
        untouched = untouched_gradient_variables(self._entries, order)
        targets = [(self._variables[name], array, req) for name, array, req in
                   zip(self._arg_names, self.grad_arrays, self._grad_reqs)
                   if array is not None and req != "null"
                   and id(self._variables[name]) not in untouched]
        needs_grad = entries_depending_on(self._entries, {id(node) for node, _, _ in targets},
                                          order)
        meta = {entry: (shape, self._dtypes[entry]) for entry, shape in self._shapes.items()
                if shape is not None and entry in self._dtypes}
        required = [position for position, entry in enumerate(self._entries)
                    if entry in needs_grad and entry[0].instance.differentiable
                    and entry[0].instance.head_gradient]
        return _BackwardSetup(targets, needs_grad, meta, [meta.get(e) for e in self._entries],
                              required)

    # -- parameters and shapes --------------------------------------------------------------
    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy values from dicts of NDArrays into the bound arguments and auxiliary states."""
        for params, names, arrays in ((arg_params, self._arg_names, self.arg_arrays),
                                      (aux_params or {}, self._aux_names, self.aux_arrays)):
            lookup = dict(zip(names, arrays))
            for name, value in params.items():
                if name in lookup:
                    value.copyto(lookup[name])
                elif not allow_extra_params:
                    raise InvalidParameterError(
                        f"copy_params_from: {name!r} is not an argument of the symbol (pass "
                        f"allow_extra_params=True to ignore it)")

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes (``data=(3, 4)``) that shares this one's
        memory, as MXNet's: a smaller array is a view on the front of the old one, a larger
        one is refused unless ``allow_up_sizing``; an argument not named may change shape only
        with ``partial_shaping`` (see ``reshape.py``)."""
        from .reshape import reshaped
        return reshaped(self, partial_shaping, allow_up_sizing, kwargs)

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, array)`` on every node output in forward and every gradient
        in backward (``monitor_all``: on every node input too); it runs inside the engine."""
        self._monitor = None if callback is None else (
            lambda name, value, op_name: callback(name, _as_ndarray(value, self._ctx)))
        self._monitor_all = monitor_all
        self._plans.clear()
        self._programs.clear()
        self._backward_program = None
        self._resolved.clear()

    def get_optimized_symbol(self):
        """The bound symbol after MXNet's graph pass: a new Symbol.

        MXNet 1.9.1's executor eliminates common subexpressions (``(a+b) + (a+b)``
        computes ``a+b`` once) unless ``MXNET_ELIMINATE_COMMON_EXPR`` was 0 at bind; this
        returns that graph (``symbol.graph.eliminate_common_expressions``), else a copy.
        minimx's own plan (``plan_report``) schedules the bound graph instead.
        """
        if not self._eliminate_common_expr:
            return self._symbol.__copy__()
        entries = eliminate_common_expressions(self._entries, get_op("_copy"))
        return type(self._symbol)(entries)

    def debug_str(self):
        """The symbol's graph, the plan report of the inference plan, and MXNet's closing
        line: the memory its plan allocates for the intermediate results, in whole MB
        (the training plan's when some gradient is wanted, as MXNet plans one graph)."""
        training = self.grad_arrays is not None and any(req != "null"
                                                        for req in self._grad_reqs)
        allocated = self.plan_report(is_train=training).memory_planned
        return (self._symbol.debug_str() + "\n--------\n" + str(self.plan_report())
                + f"\nTotal {allocated >> 20} MB allocated\n")



class _BackwardSetup:
    """An executor's backward facts for one set of gradient arrays and requests: ``targets``
    ``(variable node, gradient array, req)``, ``needs_grad`` (the values a gradient flows
    through), ``meta`` (value key -> (shape, dtype)), ``head_meta`` (each output's), and
    ``heads_required`` (the outputs whose head gradient backward must be given)."""

    __slots__ = ("targets", "needs_grad", "meta", "head_meta", "heads_required")

    def __init__(self, targets, needs_grad, meta, head_meta, heads_required):
        self.targets, self.needs_grad, self.meta = targets, needs_grad, meta
        self.head_meta, self.heads_required = head_meta, heads_required


class _SavedMemory:
    """The memory a group of executors shares (``Executor._claim_saved_memory``): which of
    them holds saved values now (a weak reference, or None)."""

    __slots__ = ("holder",)

    def __init__(self):
        self.holder = None


def _store_gradients(xp, targets, values):
    """``write_gradient`` of each value into its target ``(node, gradient array, req)`` (a
    value None is zeros).  The common case, a new dense array of the gradient's own shape
    and dtype for a 'write', becomes the array's buffer at once: what ``write_gradient``
    and ``NDArray._write`` would decide after their checks (a training step writes every
    parameter's gradient this way)."""
    ndarray = getattr(xp, "ndarray", None)
    for (_, array, req), value in zip(targets, values):
        chunk = array._chunk
        if (type(value) is ndarray and req == "write" and type(array) is NDArray
                and array._view is None and not chunk.pinned and value.base is None
                and value.dtype == array._dtype and value.shape == array._shape
                and value.flags.c_contiguous):
            chunk.data = value
            continue
        if value is None:
            value = xp.zeros(array.shape, array._dtype)
        write_gradient(array, value, req)


def _as_ndarray(value, ctx):
    from ..ndarray.ndarray import Chunk
    return NDArray(Chunk(ctx, value.copy()), value.shape, value.dtype)


def _slots_now(slots, saved_from):
    """``slots`` with each buffer of a bound array or an output replaced by what that array
    holds now: ``_as_now``'s rule for a lowered forward's slots."""
    now = _changed_buffers(saved_from)
    return [now.get(id(value), value) for value in slots] if now else slots


def _changed_buffers(saved_from):
    """{id of a buffer forward saved: what its array holds now}, for the arrays changed
    since forward (see ``_as_now``)."""
    now = {}
    for array, held, buffer in saved_from:
        chunk = array._chunk
        if chunk.data is not held or (chunk.pinned and buffer is not held):
            now[id(buffer)] = array._read()
    return now


def _as_now(saved, saved_from):
    """``saved`` with each buffer of a bound array or an output replaced by what that array
    holds now.  MXNet's backward reads the arrays themselves, so an in-place change between
    forward and backward is seen (MXNet's stochastic-depth example adds to a module's
    outputs in place: ``outputs[i] += ...``, and the ReLU before reads the sum).

    ``saved_from`` has ``(array, the buffer its chunk held after forward, the buffer
    forward saved of it)``: a write gives the chunk a new buffer; one into the same buffer
    (a view's, a pinned chunk's) is seen through the saved one, which is a view of it --
    unless forward's value was copied into the chunk, so then the chunk is read anyway."""
    now = _changed_buffers(saved_from)
    if not now:
        return saved
    return {node: {name: now.get(id(value), value) for name, value in values.items()}
            for node, values in saved.items()}
