"""Module: a Symbol with its executors, parameters and optimizer, trained by ``fit``.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/module/module.py``.  ``bind`` makes a
``DataParallelExecutorGroup`` (one executor per context), ``init_params`` fills
a CPU copy of every parameter and copies it to the devices, ``init_optimizer``
creates the optimizer and, for several devices or distributed training, the
KVStore that adds their gradients up (``updating.py``).  The CPU copy is
refreshed from the devices only when someone asks (``get_params``): the flag
``_params_dirty`` records that the devices have moved on since.
"""
import logging
import warnings

from .. import model
from .. import ndarray as nd
from .. import optimizer as opt
from ..base import MXNetError
from ..context import Context, cpu, current_context
from ..initializer import InitDesc, Uniform
from ..io import DataDesc
from . import updating
from .base_module import BaseModule, check_input_names, parse_data_desc
from ..executor.bind import new_array
from .executor_group import DataParallelExecutorGroup

__all__ = ["Module"]


class Module(BaseModule):
    """A trainable Symbol.

    Parameters
    ----------
    symbol : Symbol
    data_names, label_names : list of str
        The arguments fed from ``DataBatch.data`` / ``DataBatch.label``.
    logger : logging.Logger
    context : Context or list of Context
        With several contexts each batch is split between them.
    work_load_list : list of float, optional
        Relative share of each context (default: equal).
    fixed_param_names : list of str, optional
        Parameters that are not trained.
    state_names : list of str, optional
        Inputs set with ``set_states`` and kept between batches (RNN states).
    group2ctxs, compression_params : optional
        Accepted for MXNet compatibility (``compression_params`` goes to the KVStore).

    Examples
    --------
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    >>> net = mx.sym.SoftmaxOutput(net, name='softmax')
    >>> mod = mx.mod.Module(net)
    >>> mod.bind(data_shapes=[('data', (4, 3))], label_shapes=[('softmax_label', (4,))])
    >>> mod.init_params()
    >>> mod.output_shapes
    [('softmax_output', (4, 2))]
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=cpu(), work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        self._context = [context] if isinstance(context, Context) else list(context)
        self._work_load_list = list(work_load_list or [1] * len(self._context))
        if len(self._work_load_list) != len(self._context):
            raise MXNetError(f"work_load_list has {len(self._work_load_list)} entries for "
                             f"{len(self._context)} contexts")
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        check_input_names(symbol, self._data_names, "data", True)
        check_input_names(symbol, self._label_names, "label", False)
        check_input_names(symbol, self._state_names, "state", True)
        check_input_names(symbol, self._fixed_param_names, "fixed_param", True)
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [name for name in symbol.list_arguments() if name not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._compression_params = compression_params
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._sum_locally = False
        self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # -- checkpoints -------------------------------------------------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params``; keyword
        arguments go to ``Module``.  ``load_optimizer_states`` reads
        ``prefix-%04d.states`` when the optimizer is installed."""
        symbol, args, auxs = model.load_checkpoint(prefix, epoch)
        mod = Module(symbol=symbol, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False,
                        remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and ``.states``)."""
        model._write_atomically(f"{prefix}-symbol.json", self._symbol.tojson().encode("utf-8"))
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = "%s-%04d.states" % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    def save_optimizer_states(self, fname):
        """Write the optimizer's states (minimx's pickle-free format) to ``fname``."""
        self._check_optimizer("save_optimizer_states")
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
        else:
            model._write_atomically(fname, self._updater.get_states())

    def load_optimizer_states(self, fname):
        """Read states written by ``save_optimizer_states``."""
        self._check_optimizer("load_optimizer_states")
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
        else:
            with open(fname, "rb") as stream:
                self._updater.set_states(stream.read())

    # -- names and shapes --------------------------------------------------------------------
    @property
    def data_names(self):
        return self._data_names

    @property
    def label_names(self):
        return self._label_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        self._check_bound("data_shapes")
        return self._data_shapes

    @property
    def label_shapes(self):
        self._check_bound("label_shapes")
        return self._label_shapes

    @property
    def output_shapes(self):
        self._check_bound("output_shapes")
        return self._exec_group.get_output_shapes()

    # -- parameters --------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)`` on the CPU, refreshed from the devices if needed."""
        self._check_ready("get_params")
        if self._params_dirty:
            self._sync_params_from_devices()
        return (self._arg_params, self._aux_params)

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Give every parameter its first value: from ``arg_params``/``aux_params`` when
        they have it, else from ``initializer`` (an error when ``allow_missing`` is
        False and the dicts are given but miss it)."""
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "init_params call ignored.", stacklevel=2)
            return
        self._check_bound("init_params")
        attrs = self._symbol.attr_dict()
        for params, given in ((self._arg_params, arg_params), (self._aux_params, aux_params)):
            for name, array in sorted(params.items()):
                desc = InitDesc(name, attrs.get(name, None))
                _init_one(desc, array, given, initializer, allow_missing)
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Assign parameter values; before ``bind`` they are kept until binding."""
        def assign():
            self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        self._set_params_or_assign(assign, arg_params, aux_params, allow_missing, force_init,
                                   allow_extra)

    def _sync_params_from_devices(self):
        """Copy the devices' parameters here; a row_sparse parameter the KVStore updates is
        pulled from the store whole (the devices hold only the rows last prepared)."""
        self._exec_group.get_params(self._arg_params, self._aux_params)
        if self._kvstore and self._update_on_kvstore:
            for name, array in sorted(self._arg_params.items()):
                if array.stype == "row_sparse":
                    self._kvstore.row_sparse_pull(name, array, row_ids=nd.arange(
                        0, array.shape[0], dtype="int64"))
        self._params_dirty = False

    # -- binding -----------------------------------------------------------------------------
    def _reset_bind(self):
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Allocate the executors for these input shapes (``[(name, shape)]`` or DataDesc).

        ``shared_module``: a bound, initialised Module whose parameters this one uses.
        """
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise MXNetError("bind: inputs_need_grad=True needs for_training=True")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        self._data_shapes, self._label_shapes = parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)
        shared_group = self._shared_group(shared_module)
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes,
            self._label_shapes, self._param_names, for_training, inputs_need_grad,
            shared_group, logger=self.logger, fixed_param_names=self._fixed_param_names,
            grad_req=grad_req, group2ctxs=self._group2ctxs, state_names=self._state_names)
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            # parameters loaded before binding (Module.load): copy them to the devices
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            # on the current context, as MXNet's nd.zeros; a row_sparse parameter's copy is
            # row_sparse too (what the KVStore holds), kept on the host as minimx's sparse is
            self._arg_params = {name: new_array(block[0].shape, current_context()
                                                if block[0].stype == "default" else cpu(),
                                                block[0].dtype, block[0].stype)
                                for name, block in zip(self._param_names,
                                                       self._exec_group.param_arrays)}
            self._aux_params = {name: nd.zeros(block[0].shape, dtype=block[0].dtype)
                                for name, block in zip(self._aux_names,
                                                       self._exec_group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    def _shared_group(self, shared_module):
        if shared_module is None:
            return None
        if not (shared_module.binded and shared_module.params_initialized):
            raise MXNetError("bind: shared_module must be bound and initialised")
        if len(shared_module._exec_group.execs) < len(self._context):
            raise MXNetError("bind: shared_module has fewer contexts than this module")
        return shared_module._exec_group

    def reshape(self, data_shapes, label_shapes=None):
        """Re-bind for new input shapes (parameters stay shared)."""
        self._check_bound("reshape")
        self._data_shapes, self._label_shapes = parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # -- the optimizer -----------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Create the optimizer (by name, with ``optimizer_params``, or an instance) and the
        KVStore; ``rescale_grad`` defaults to ``1 / batch_size`` (times the workers)."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kvstore, update_on_kvstore, sum_locally = updating.create_kvstore(
            kvstore, len(self._context), self._arg_params)
        batch_size = self._exec_group.batch_size
        if kvstore is not None and "dist" in kvstore.type and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        optimizer = self._make_optimizer(optimizer, optimizer_params, 1.0 / batch_size,
                                         self._param_indices(update_on_kvstore))
        self._optimizer = optimizer
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._sum_locally = sum_locally
        self._updater = None
        if kvstore is not None:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            updating.initialize_kvstore(kvstore, self._exec_group.param_arrays,
                                        self._arg_params, self._param_names,
                                        update_on_kvstore)
        if not update_on_kvstore:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _param_indices(self, update_on_kvstore):
        """Optimizer index -> parameter name (one index per device without a store)."""
        names = self._exec_group.param_names
        if update_on_kvstore:
            return dict(enumerate(names))
        count = len(self._context)
        return {i * count + k: name for k in range(count) for i, name in enumerate(names)}

    def _make_optimizer(self, optimizer, optimizer_params, rescale_grad, idx2name):
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", rescale_grad)
            return opt.create(optimizer, sym=self.symbol, param_idx2name=idx2name, **params)
        if not isinstance(optimizer, opt.Optimizer):
            raise MXNetError(f"init_optimizer: optimizer must be a name or an Optimizer, got "
                             f"{type(optimizer).__name__}")
        if optimizer.rescale_grad != rescale_grad:
            warnings.warn("Optimizer created manually outside Module but rescale_grad is not "
                          f"normalized to 1.0/batch_size/num_workers ({optimizer.rescale_grad} "
                          f"vs. {rescale_grad}). Is this intended?", stacklevel=3)
        if not optimizer.idx2name:
            optimizer.idx2name = idx2name.copy()
        return optimizer

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, KVStore and updater (BucketingModule)."""
        if not shared_module.optimizer_initialized:
            raise MXNetError("borrow_optimizer: the shared module has no optimizer yet")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._sum_locally = shared_module._sum_locally
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    # -- computation -------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Compute the outputs of ``data_batch``; a batch of another shape re-binds first."""
        self._check_ready("forward")
        if isinstance(data_batch, list):
            raise MXNetError("forward: a list of DataBatch (pre-sliced) is not supported")
        _check_batch(data_batch, self._data_names)
        given = tuple(_shape(array) for array in data_batch.data)
        if given != tuple(desc.shape for desc in self._data_shapes):
            self._reshape_for(data_batch, given)
        self._exec_group.forward(data_batch, is_train)

    def _reshape_for(self, data_batch, given):
        """Re-bind for a batch whose data shapes differ from the bound ones."""
        old = {desc.name: desc.shape for desc in self._data_shapes}
        data = getattr(data_batch, "provide_data", None)
        if not data or sorted(d[0] for d in data) != sorted(self._data_names):
            data = [DataDesc(d.name, shape, d.dtype, d.layout)
                    for d, shape in zip(self._data_shapes, given)]
        label = getattr(data_batch, "provide_label", None)
        if not label and self._label_shapes:
            if getattr(data_batch, "label", None):
                label = [DataDesc(d.name, _shape(array), d.dtype, d.layout)
                         for d, array in zip(self._label_shapes, data_batch.label)]
            else:       # no labels (inference): the bound ones, for the new batch size
                label = [_resized(d, data[0]) for d in self._label_shapes]
        try:
            self.reshape(data, label or None)
        except MXNetError as error:
            new = dict(zip(self._data_names, given))
            raise MXNetError(f"forward: the batch's data shapes {new} differ from the bound "
                             f"ones {old} (provide_data), and the module cannot be re-bound "
                             f"for them: {error}") from error

    def backward(self, out_grads=None):
        """Gradients of the last forward (``out_grads``: head gradients, for outputs that
        are not loss layers)."""
        self._check_ready("backward")
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Apply the optimizer to every parameter with the gradients of the last backward."""
        self._check_optimizer("update")
        self._params_dirty = True
        group = self._exec_group
        if self._update_on_kvstore:
            updating.update_params_on_kvstore(group.param_arrays, group.grad_arrays,
                                              self._kvstore, group.param_names)
        else:
            updating.update_params(group.param_arrays, group.grad_arrays, self._updater,
                                   len(self._context), self._kvstore, group.param_names,
                                   self._sum_locally)

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last forward (per output: one array, or one per device)."""
        self._check_ready("get_outputs")
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """Gradients with respect to the data inputs (bind with ``inputs_need_grad``)."""
        self._check_ready("get_input_grads")
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        self._check_ready("get_states")
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._check_ready("set_states")
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Feed the last outputs and ``labels`` to ``eval_metric``."""
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Let ``mon`` (``mx.mon.Monitor``) watch every executor."""
        self._check_bound("install_monitor")
        self._exec_group.install_monitor(mon)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Before ``forward`` on ``data_batch``: pull from the KVStore the rows of each
        row_sparse parameter that ``sparse_row_id_fn(data_batch)`` names (``{name: row
        ids}``), so the devices hold the rows this batch reads -- and only those.  Without a
        KVStore that updates the parameters there is nothing to pull (a warning says so)."""
        self._check_bound("prepare")
        if sparse_row_id_fn is None:
            return
        if not self._kvstore or not self._update_on_kvstore:
            warnings.warn(UserWarning("Parameters are not updated in the KVStore. No need to "
                                      "call sparse_row_id_fn."), stacklevel=2)
            return
        row_ids = sparse_row_id_fn(data_batch)
        if not isinstance(row_ids, dict):
            raise MXNetError(f"prepare: sparse_row_id_fn must return a dict (parameter name "
                             f"-> row ids), got {type(row_ids).__name__}")
        group = self._exec_group
        for name, ids in row_ids.items():
            index = group.param_names.index(name)
            arrays = group.param_arrays[index]
            if arrays[0].stype != "row_sparse":
                warnings.warn(UserWarning(f"{name}.stype is not 'row_sparse'. No need to "
                                          f"perform row_sparse_pull."), stacklevel=2)
            else:
                self._kvstore.row_sparse_pull(name, arrays, row_ids=ids, priority=-index)

    # -- checks ------------------------------------------------------------------------------
    def _check_bound(self, what):
        if not self.binded:
            raise MXNetError(f"{what}: call bind() first")

    def _check_optimizer(self, what):
        self._check_ready(what)
        if not self.optimizer_initialized:
            raise MXNetError(f"{what}: call init_optimizer() first")


def _shape(array):
    return tuple(array.shape)


def _resized(desc, data_desc):
    """``desc`` with the batch size of ``data_desc`` (both as DataDesc)."""
    axis = DataDesc.get_batch_axis(desc.layout)
    data_axis = DataDesc.get_batch_axis(getattr(data_desc, "layout", None))
    if axis < 0 or data_axis < 0:
        return desc
    shape = list(desc.shape)
    shape[axis] = data_desc[1][data_axis]
    return DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout)


def _check_batch(data_batch, data_names):
    """A batch with one data array per data name, matching its own provide_data."""
    if data_batch.data is None or len(data_batch.data) != len(data_names):
        count = 0 if data_batch.data is None else len(data_batch.data)
        raise MXNetError(f"forward: the batch has {count} data arrays, the module expects "
                         f"{len(data_names)} ({data_names})")
    for descs, arrays in ((getattr(data_batch, "provide_data", None), data_batch.data),
                          (getattr(data_batch, "provide_label", None),
                           getattr(data_batch, "label", None))):
        for desc, array in zip(descs or [], arrays or []):
            if tuple(desc[1]) != _shape(array):
                raise MXNetError(f"forward: batch input {desc[0]!r} has shape "
                                 f"{_shape(array)} but the batch's provide_data/provide_label "
                                 f"says {tuple(desc[1])}")


def _init_one(desc, array, given, initializer, allow_missing):
    """Fill one parameter: from ``given`` (a dict) if it has it, else the initializer."""
    if given is not None:
        if desc in given:
            value = given[desc]
            if value is not array:
                if value.shape != array.shape:
                    raise MXNetError(f"init_params: {desc!r} has shape {value.shape} in the "
                                     f"given parameters, the module needs {array.shape}")
                value.copyto(array)
            return
        if not allow_missing:
            raise RuntimeError(f"{desc} is not presented")
    if initializer is not None:
        initializer(desc, array)
