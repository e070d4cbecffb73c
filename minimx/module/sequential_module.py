"""SequentialModule: modules chained, each one's outputs the next one's data.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/module/sequential_module.py``.
``forward`` runs the modules in order, feeding the outputs of one as the data
of the next; ``backward`` runs them in reverse, feeding each module's input
gradients (``get_input_grads``) as the head gradients of the one before.  A
module added with ``take_labels=True`` receives the batch's labels (usually
the last, holding the loss); ``auto_wiring=True`` renames the incoming arrays
to the module's own ``data_names``.
"""
import copy
import logging
import warnings

from ..base import MXNetError
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """A chain of modules trained as one.

    Examples
    --------
    >>> net1 = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc1')
    >>> net2 = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'),
    ...                             num_hidden=2, name='fc2'), name='softmax')
    >>> seq = mx.mod.SequentialModule()
    >>> seq = seq.add(mx.mod.Module(net1, label_names=None))
    >>> seq = seq.add(mx.mod.Module(net2), take_labels=True, auto_wiring=True)
    >>> seq.bind([('data', (3, 5))], [('softmax_label', (3,))])
    >>> seq.output_shapes
    [('softmax_output', (3, 2))]
    """

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append ``module`` (options: ``take_labels``, ``auto_wiring``); returns self."""
        unknown = set(kwargs) - self._meta_keys
        if unknown:
            raise MXNetError(f"SequentialModule.add: unknown option(s) {sorted(unknown)}; "
                             f"known: {sorted(self._meta_keys)}")
        self._modules.append(module)
        self._metas.append(kwargs)
        # a new module has to be bound and initialised, so the chain has to be again
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    def _takes_labels(self, index):
        return bool(self._metas[index].get(self.META_TAKE_LABELS, False))

    # -- names and shapes --------------------------------------------------------------------
    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        self._check_bound("data_shapes")
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        self._check_bound("label_shapes")
        return self._label_shapes

    @property
    def output_shapes(self):
        self._check_bound("output_shapes")
        return self._modules[-1].output_shapes

    # -- parameters --------------------------------------------------------------------------
    def get_params(self):
        """Every module's parameters in one pair of dicts."""
        self._check_ready("get_params")
        arg_params, aux_params = {}, {}
        for module in self._modules:
            args, auxs = module.get_params()
            arg_params.update(args)
            aux_params.update(auxs)
        return (arg_params, aux_params)

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialise every module; two modules may not have a parameter of the same name."""
        if self.params_initialized and not force_init:
            return
        self._check_bound("init_params")
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=allow_extra)
        owners = ({}, {})
        for index, module in enumerate(self._modules):
            for known, names in zip(owners, module.get_params()):
                for name in names:
                    if name in known:
                        raise MXNetError(f"Duplicated parameter names: {name!r} is in module "
                                         f"{known[name]} and module {index}")
                    known[name] = index
        self.params_initialized = True

    # -- binding -----------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind each module for the output shapes of the one before."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise MXNetError("bind: inputs_need_grad=True needs for_training=True")
        if shared_module is not None:
            raise MXNetError("Shared module is not supported")
        if not self._modules:
            raise MXNetError("Attempting to bind an empty SequentialModule")
        self.binded = True
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._label_shapes = label_shapes
        shapes, anyone_needs_labels = data_shapes, False
        for index, module in enumerate(self._modules):
            labels = label_shapes if self._takes_labels(index) else None
            anyone_needs_labels |= labels is not None
            if self._metas[index].get(self.META_AUTO_WIRING, False):
                names = module.data_names
                if len(names) != len(shapes):
                    raise MXNetError(f"auto_wiring: module {index} takes {names}, the "
                                     f"previous one gives {len(shapes)} arrays")
                shapes = [(name, desc[1]) for name, desc in zip(names, shapes)]
            module.bind(data_shapes=shapes, label_shapes=labels, for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and index > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            shapes = module.output_shapes
        if not anyone_needs_labels:
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """One optimizer per module, all made from the same arguments."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            warnings.warn("optimizer already initialized, ignoring.", stacklevel=2)
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    # -- computation -------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Forward through the chain; a shallow copy of the batch carries the data along."""
        self._check_ready("forward")
        data_batch = copy.copy(data_batch)
        for index, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if index + 1 == len(self._modules):
                break
            data_batch.data = module.get_outputs()
            names = [name for name, _ in module.output_shapes]
            data_batch.provide_data = [(name, x.shape) for name, x in
                                       zip(names, data_batch.data)]

    def backward(self, out_grads=None):
        """Backward through the chain in reverse, passing input gradients back."""
        self._check_ready("backward")
        for index in reversed(range(len(self._modules))):
            module = self._modules[index]
            module.backward(out_grads=out_grads)
            if index == 0:
                break
            out_grads = module.get_input_grads()

    def update(self):
        if not self.optimizer_initialized:
            raise MXNetError("update: call init_optimizer() first")
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        self._check_ready("get_outputs")
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready("get_input_grads")
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: bind with inputs_need_grad=True first")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """The modules that take labels update the metric with their outputs."""
        self._check_ready("update_metric")
        for index, module in enumerate(self._modules):
            if self._takes_labels(index):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._check_bound("install_monitor")
        for module in self._modules:
            module.install_monitor(mon)

    def _check_bound(self, what):
        if not self.binded:
            raise MXNetError(f"{what}: call bind() first")
