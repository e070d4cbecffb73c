"""Data parallelism inside one process: one Executor per device, each batch split between them.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/module/executor_group.py``.  The group
binds the same Symbol once per context; ``forward`` cuts every input along its
batch axis (``slices``, proportional to ``workload``) and copies each part to
its device; ``get_outputs`` concatenates the parts again.  Gradients stay on
their devices: ``Module.update`` adds them up (through the KVStore).  The
arrays are listed per parameter, one entry per device (``param_arrays[i][k]``),
which is the layout the KVStore's ``push``/``pull`` take.
"""
import logging

from .. import ndarray as nd
from ..base import MXNetError
from ..context import cpu
from ..executor.placement import check_group2ctx, group2ctx_per_device, variable_contexts
from ..executor.bind import (argument_gradient_storage_types, argument_storage_types,
                             new_array)
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup", "split_input_slice"]


def split_input_slice(batch_size, work_load_list):
    """One ``slice`` of the batch per device, sized in proportion to its workload.

    Examples
    --------
    >>> split_input_slice(10, [1, 1])
    [slice(0, 5, None), slice(5, 10, None)]
    """
    total = sum(work_load_list)
    sizes = [round(load * batch_size / total) for load in work_load_list]
    sizes[-1] += batch_size - sum(sizes)
    slices, begin = [], 0
    for size in sizes:
        end = min(begin + size, batch_size)
        if end <= begin:
            raise MXNetError(f"cannot split a batch of {batch_size} between "
                             f"{len(work_load_list)} devices: some would get no example")
        slices.append(slice(begin, end))
        begin = end
    return slices


def _batch_part(array, part, axis):
    """The examples ``part`` (a slice) of ``array`` along its batch axis ``axis``."""
    if axis < 0 or (part.start == 0 and part.stop == array.shape[axis]):
        return array
    if axis == 0:
        return array[part.start:part.stop]
    return nd.slice_axis(array, axis=axis, begin=part.start, end=part.stop)


def _merge(per_device, axis):
    """One array from the per-device parts: concatenated along ``axis`` (on the first
    part's device), or the first part when there is no batch axis."""
    if len(per_device) == 1 or axis < 0:
        return per_device[0]
    ctx = per_device[0].context
    return nd.concat(*[part.as_in_context(ctx) for part in per_device], dim=axis)


def _as_ndarray(value):
    return value if isinstance(value, nd.NDArray) else nd.array(value)


class DataParallelExecutorGroup:
    """The executors of a Module: one per context, sharing a Symbol, splitting each batch.

    Parameters
    ----------
    symbol : Symbol
    contexts : list of Context
    workload : list of float
        Relative share of the batch each context gets.
    data_shapes, label_shapes : list of DataDesc
        Whole-batch shapes (``label_shapes`` may be None or empty).
    param_names : list of str
        The arguments that are parameters (neither data nor label nor state).
    for_training, inputs_need_grad : bool
    shared_group : DataParallelExecutorGroup, optional
        Take the parameter (and gradient) arrays of this group: BucketingModule's
        buckets all train the same parameters.
    fixed_param_names : list of str, optional
        Parameters that get no gradient.
    grad_req : str or dict
        ``'write'``, ``'add'`` or ``'null'``, or one per argument name.
    state_names : list of str, optional
        Inputs that are states (kept between batches, no gradient).
    """

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req="write", state_names=None, group2ctxs=None):
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload)
        self.param_names = list(param_names)
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.output_names = symbol.list_outputs()
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.group2ctxs = group2ctx_per_device(group2ctxs, len(self.contexts))
        self.shared_group = shared_group
        self.output_layouts = [DataDesc.get_batch_axis(symbol[i].attr("__layout__"))
                               for i in range(len(self.output_names))]
        data_shapes = [_desc(d) for d in data_shapes]              # DataDesc or (name, shape)
        label_shapes = [_desc(d) for d in label_shapes or []]
        self.data_names = [desc.name for desc in data_shapes]
        self.label_names = [desc.name for desc in label_shapes]
        self.grad_req = self._grad_reqs(grad_req)
        self.execs = []
        self._execs_by_shapes = {}
        self.bind_exec(data_shapes, label_shapes or None, shared_group)

    def _grad_reqs(self, grad_req):
        """The gradient request of every argument (MXNet's rules when given one string)."""
        if not self.for_training:
            return dict.fromkeys(self.arg_names, "null")
        if isinstance(grad_req, dict):
            return {name: grad_req.get(name, "null") for name in self.arg_names}
        if not isinstance(grad_req, str):
            return dict(zip(self.arg_names, grad_req))
        reqs = {}
        for name in self.arg_names:
            if name in self.param_names:
                reqs[name] = "null" if name in self.fixed_param_names else grad_req
            elif name in self.data_names:
                reqs[name] = grad_req if self.inputs_need_grad else "null"
            else:
                reqs[name] = "null"
        return reqs

    # -- binding -----------------------------------------------------------------------
    def decide_slices(self, data_shapes):
        """The batch size of ``data_shapes`` and its split between the devices."""
        sizes = {}
        for desc in data_shapes:
            axis = DataDesc.get_batch_axis(getattr(desc, "layout", None))
            if axis >= 0:
                sizes[desc.name] = desc.shape[axis]
        if len(set(sizes.values())) > 1:
            raise MXNetError(f"all data must have the same batch size; got {sizes}")
        self.batch_size = next(iter(sizes.values()), 0)
        self.slices = split_input_slice(self.batch_size, self.workload)
        return self.slices

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind (or, with ``reshape``, re-bind for new shapes) one executor per context."""
        data_shapes = [_desc(d) for d in data_shapes]
        label_shapes = [_desc(d) for d in label_shapes or []]
        key = tuple((d.name, tuple(d.shape)) for d in data_shapes + label_shapes)
        self.decide_slices(data_shapes)
        if key in self._execs_by_shapes:
            self.execs = self._execs_by_shapes[key]
        else:
            sources = shared_group.execs if shared_group is not None else (
                self.execs if reshape else [None] * len(self.contexts))
            self.execs = [self._bind_ith_exec(i, data_shapes, label_shapes, source)
                          for i, source in enumerate(sources)]
            self._execs_by_shapes[key] = self.execs
        self.data_shapes, self.label_shapes = data_shapes, label_shapes or None
        self.data_layouts = [DataDesc.get_batch_axis(d.layout) for d in data_shapes]
        self.label_layouts = [DataDesc.get_batch_axis(d.layout) for d in label_shapes]
        self._collect_arrays()

    def reshape(self, data_shapes, label_shapes):
        """Executors for new input shapes, sharing the parameters with the current ones."""
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def _sliced_shapes(self, descs, part):
        shapes = {}
        for desc in descs:
            shape = list(desc.shape)
            axis = DataDesc.get_batch_axis(desc.layout)
            if axis >= 0:
                shape[axis] = part.stop - part.start
            shapes[desc.name] = tuple(shape)
        return shapes

    def _bind_ith_exec(self, i, data_shapes, label_shapes, shared_exec):
        """Bind on context ``i`` the inputs' slice ``i``; parameters, their gradients and
        auxiliary states come from ``shared_exec`` when it has them in the same shape."""
        ctx = self.contexts[i]
        descs = data_shapes + label_shapes
        shapes = self._sliced_shapes(descs, self.slices[i])
        dtypes = {d.name: d.dtype for d in descs}
        arg_shapes, _, aux_shapes = self._infer_shapes(shapes)
        arg_types, _, aux_types = self.symbol.infer_type(**dtypes)
        if arg_types is None:
            arg_types, aux_types = [None] * len(arg_shapes), [None] * len(aux_shapes)
        shared = _SharedArrays(shared_exec, self.param_names)
        group2ctx = self.group2ctxs[i]
        check_group2ctx(ctx, group2ctx, "Module.bind")
        where = variable_contexts(self.symbol, ctx, group2ctx)      # each group's context
        stypes = argument_storage_types(self.symbol)     # a Variable's stype='csr' ...
        grad_stypes = argument_gradient_storage_types(
            self.symbol, dict(zip(self.arg_names, arg_shapes)), stypes)
        args, grads = [], []
        for name, shape, dtype in zip(self.arg_names, arg_shapes, arg_types):
            args.append(_or_zeros(shared.arg(name, shape), shape, where[name], dtype,
                                  stypes[name]))
            if self.grad_req[name] == "null":
                grads.append(None)
            else:
                grads.append(_or_zeros(shared.grad(name, shape), shape, where[name], dtype,
                                       grad_stypes.get(name, "default")))
        aux = [_or_zeros(shared.aux(name, shape), shape, where[name], dtype, stypes[name])
               for name, shape, dtype in zip(self.aux_names, aux_shapes, aux_types)]
        reqs = [self.grad_req[name] for name in self.arg_names]
        grads_given = grads if any(g is not None for g in grads) else None
        return self.symbol.bind(ctx, args, args_grad=grads_given, grad_req=reqs,
                                aux_states=aux, group2ctx=group2ctx, shared_exec=shared_exec)

    def _infer_shapes(self, shapes):
        try:
            arg_shapes, out_shapes, aux_shapes = self.symbol.infer_shape(**shapes)
        except MXNetError as error:
            raise MXNetError(f"cannot bind the module for input shapes {shapes}: {error}") \
                from error
        if arg_shapes is None:
            partial = self.symbol.infer_shape_partial(**shapes)[0]
            unknown = [name for name, shape in zip(self.arg_names, partial)
                       if not shape or 0 in shape]
            raise MXNetError(f"cannot bind the module: the shapes of {unknown} do not follow "
                             f"from the input shapes {shapes}")
        return arg_shapes, out_shapes, aux_shapes

    def _collect_arrays(self):
        """The per-name, per-device lists the Module and the KVStore work with."""
        execs = self.execs
        index = {name: i for i, name in enumerate(self.arg_names)}
        self.data_arrays = [[(part, e.arg_arrays[index[name]]) for part, e in
                             zip(self.slices, execs)] for name in self.data_names]
        self.label_arrays = [[(part, e.arg_arrays[index[name]]) for part, e in
                              zip(self.slices, execs)] for name in self.label_names
                             if name in index] or None
        self.state_arrays = [[e.arg_arrays[index[name]] for e in execs]
                             for name in self.state_names]
        self.param_arrays = [[e.arg_arrays[index[name]] for e in execs]
                             for name in self.param_names]
        self.grad_arrays = [[_grad(e, index[name]) for e in execs] for name in self.param_names]
        self.aux_arrays = [[e.aux_arrays[i] for e in execs] for i in range(len(self.aux_names))]
        self.input_grad_arrays = (
            [[_grad(e, index[name]) for e in execs] for name in self.data_names]
            if self.inputs_need_grad else [])

    # -- parameters ----------------------------------------------------------------------
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy the given parameters into every executor."""
        for executor in self.execs:
            executor.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Copy the parameters into the given dicts (the mean over devices, on the CPU)."""
        for names, blocks, target in ((self.param_names, self.param_arrays, arg_params),
                                      (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                _average_into(block, target[name])

    def get_states(self, merge_multi_context=True):
        states = self.state_arrays
        return [_merge(s, 0) for s in states] if merge_multi_context else states

    def set_states(self, states=None, value=None):
        """Set the state inputs from per-device lists ``states``, or all to ``value``."""
        if states is not None:
            for targets, sources in zip(self.state_arrays, states):
                for target, source in zip(targets, sources):
                    source.copyto(target)
        else:
            for targets in self.state_arrays:
                for target in targets:
                    target[:] = value

    # -- running -------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Copy the batch's slices to the devices and run every executor forward."""
        if is_train is None:
            is_train = self.for_training
        _load(data_batch.data, self.data_arrays, self.data_layouts, self.data_names)
        labels = getattr(data_batch, "label", None)    # a namedtuple Batch may have none
        if self.label_arrays is not None and labels:
            _load(labels, self.label_arrays, self.label_layouts, self.label_names)
        for executor in self.execs:
            executor.forward(is_train=is_train)

    def backward(self, out_grads=None):
        """Backward on every device; ``out_grads`` (whole-batch) are split like the data."""
        if not self.for_training:
            raise MXNetError("backward: the module was bound with for_training=False")
        out_grads = [] if out_grads is None else (
            [out_grads] if isinstance(out_grads, nd.NDArray) else list(out_grads))
        for executor, part in zip(self.execs, self.slices):
            parts = [_batch_part(grad, part, axis).as_in_context(executor._ctx)
                     for grad, axis in zip(out_grads, self.output_layouts)]
            executor.backward(out_grads=parts or None)

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs ``begin:end``: per output one array (merged) or a list per device."""
        end = len(self.output_names) if end is None else end
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        if merge_multi_context:
            return [_merge(parts, axis)
                    for parts, axis in zip(outputs, self.output_layouts[begin:end])]
        return outputs

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: bind with inputs_need_grad=True first")
        if merge_multi_context:
            return [_merge(g, axis) for g, axis in zip(self.input_grad_arrays,
                                                       self.data_layouts)]
        return self.input_grad_arrays

    def get_output_shapes(self):
        """``[(name, whole-batch shape)]`` of the outputs."""
        shapes = {d.name: d.shape for d in self.data_shapes + (self.label_shapes or [])}
        _, out_shapes, _ = self.symbol.infer_shape(**shapes)
        return list(zip(self.output_names, out_shapes))

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Feed each device's outputs and its slice of ``labels`` to ``eval_metric``."""
        for position, (executor, part) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_part = labels[position]
            else:
                labels_part = [_batch_part(label, part, axis)
                               for label, axis in zip(labels, self.label_layouts or [0] *
                                                      len(labels))]
            label_dict = dict(zip(self.label_names or _default_names(labels_part),
                                  labels_part))
            eval_metric.update_dict(label_dict, dict(zip(self.output_names, executor.outputs)))

    def install_monitor(self, mon):
        for executor in self.execs:
            mon.install(executor)


class _SharedArrays:
    """The arrays another executor already has, by argument name, when shapes agree."""

    def __init__(self, executor, param_names):
        self.params = set(param_names)
        self.args = executor.arg_dict if executor is not None else {}
        self.grads = executor.grad_dict if executor is not None else {}
        self.auxs = executor.aux_dict if executor is not None else {}

    @staticmethod
    def _take(arrays, name, shape):
        array = arrays.get(name)
        return array if array is not None and array.shape == tuple(shape) else None

    def _parameter(self, arrays, name, shape):
        """The shared parameter array; a parameter whose shape would change is an error."""
        if name not in self.params or name not in arrays:
            return None
        if arrays[name].shape != tuple(shape):
            raise MXNetError(f"parameter {name!r} would need shape {tuple(shape)} for these "
                             f"inputs, but it has shape {arrays[name].shape}")
        return arrays[name]

    def arg(self, name, shape):
        return self._parameter(self.args, name, shape)

    def grad(self, name, shape):
        return self._parameter(self.grads, name, shape)

    def aux(self, name, shape):
        return self._take(self.auxs, name, shape)


def _or_zeros(array, shape, ctx, dtype, stype):
    return array if array is not None else new_array(shape, ctx, dtype, stype)


def _desc(desc):
    return desc if isinstance(desc, DataDesc) else DataDesc(*desc)


def _grad(executor, index):
    return executor.grad_arrays[index] if executor.grad_arrays is not None else None


def _default_names(arrays):
    return [f"label{i}" for i in range(len(arrays))]


def _average_into(block, target):
    """``target[:] = mean(block)``: one device's array is copied, several are averaged."""
    if len(block) == 1:
        source = block[0]
    else:
        source = nd.add_n(*[w.as_in_context(cpu()) for w in block]) / len(block)
    if source.dtype != target.dtype:
        source = source.astype(target.dtype)
    if source is not target:
        source.copyto(target)


def _load(sources, targets, layouts, names):
    """Copy each batch array's slices into the executors' input arrays."""
    if len(sources) != len(targets):
        raise MXNetError(f"the batch has {len(sources)} arrays for the inputs {names}")
    for name, source, per_device, axis in zip(names, sources, targets, layouts):
        source = _as_ndarray(source)
        for part, target in per_device:
            piece = _batch_part(source, part, axis)
            if piece.shape != target.shape:
                bound = _whole(target.shape, per_device, axis)
                raise MXNetError(f"input {name!r}: the batch gives shape {source.shape}, "
                                 f"the module is bound for {bound}")
            piece.copyto(target)


def _whole(shape, per_device, axis):
    """The whole-batch shape that ``per_device`` parts of ``shape`` make up."""
    if axis < 0:
        return tuple(shape)
    whole = list(shape)
    whole[axis] = sum(part.stop - part.start for part, _ in per_device)
    return tuple(whole)
