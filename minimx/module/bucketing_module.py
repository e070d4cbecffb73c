"""BucketingModule: one Module per bucket (sequence length), all training the same parameters.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/module/bucketing_module.py``.  A
recurrent network unrolled for 10 steps and the same network unrolled for 20
are two graphs with one set of weights.  ``sym_gen(bucket_key)`` returns the
graph for a bucket as ``(symbol, data_names, label_names)``; each batch names
its bucket (``DataBatch.bucket_key``), and the first batch of a new bucket
binds a new Module whose parameter and gradient arrays are the default
bucket's own (``bind(shared_module=...)``), so an update made through any
bucket is seen by all.
"""
import logging

import numpy as np

from .. import ndarray as nd
from .. import symbol as sym
from ..base import MXNetError
from ..context import Context, cpu
from ..initializer import Uniform
from ..model import load_params
from ..name import NameManager
from .base_module import BaseModule, check_input_names
from .module import Module

__all__ = ["BucketingModule"]


class BucketingModule(BaseModule):
    """Train a family of Symbols (one per bucket key) that share their parameters.

    Parameters
    ----------
    sym_gen : callable
        ``bucket_key -> (symbol, data_names, label_names)``.
    default_bucket_key : int or str
        The bucket bound first (make it the largest: its memory serves the others
        in MXNet); its graph names the parameters.
    logger, context, work_load_list, fixed_param_names, state_names, group2ctxs,
    compression_params :
        As for ``Module``; every bucket's Module gets them.
    """

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=cpu(),
                 work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise MXNetError("BucketingModule needs a default_bucket_key")
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        self._fixed_param_names = list(fixed_param_names or [])
        self._state_names = list(state_names or [])
        check_input_names(symbol, list(data_names or []), "data", True)
        check_input_names(symbol, list(label_names or []), "label", False)
        check_input_names(symbol, self._state_names, "state", True)
        check_input_names(symbol, self._fixed_param_names, "fixed_param", True)
        self._compression_params = compression_params
        self._context = [context] if isinstance(context, Context) else list(context)
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None

    def _call_sym_gen(self, bucket_key):
        with NameManager():
            return self._sym_gen(bucket_key)

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    def _new_module(self, symbol, data_names, label_names):
        return Module(symbol, data_names, label_names, logger=self.logger,
                      context=self._context, work_load_list=self._work_load_list,
                      fixed_param_names=self._fixed_param_names, state_names=self._state_names,
                      group2ctxs=self._group2ctxs, compression_params=self._compression_params)

    # -- names and shapes --------------------------------------------------------------------
    @property
    def data_names(self):
        if self.binded:
            return self._curr_module.data_names
        return list(self._call_sym_gen(self._default_bucket_key)[1])

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        self._check_bound("data_shapes")
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        self._check_bound("label_shapes")
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        self._check_bound("output_shapes")
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        """The current bucket's Symbol."""
        self._check_bound("symbol")
        return self._curr_module.symbol

    # -- parameters --------------------------------------------------------------------------
    def get_params(self):
        self._check_ready("get_params")
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        def assign():
            self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                         force_init=force_init, allow_extra=allow_extra)
        self._set_params_or_assign(assign, arg_params, aux_params, allow_missing, force_init,
                                   allow_extra)

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._check_bound("init_params")
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        self._check_ready("get_states")
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._check_ready("set_states")
        self._curr_module.set_states(states, value)

    # -- binding and buckets -----------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind the default bucket's Module for these shapes."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params() if self.binded else (
                self._curr_module._arg_params, self._curr_module._aux_params)   # loaded
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise MXNetError("shared_module for BucketingModule is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        module = self._new_module(*self._call_sym_gen(self._default_bucket_key))
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                    force_rebind=False, shared_module=None, grad_req=grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key`` current, binding its Module (sharing parameters) if new."""
        self._check_bound("switch_bucket")
        module = self._buckets.get(bucket_key)
        if module is None:
            if data_shapes is None:
                raise MXNetError(f"switch_bucket: bucket {bucket_key!r} is new; give its "
                                 f"data_shapes")
            module = self._new_module(*self._call_sym_gen(bucket_key))
            self._buckets[bucket_key] = module
        if not module.binded:
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
        self._curr_module = module
        self._curr_bucket_key = bucket_key

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Install one optimizer, shared by every bucket's Module."""
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for module in self._buckets.values():
            if module is not self._curr_module:
                module.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    # -- computation -------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Bind the batch's bucket ahead of time (``fit`` calls this for the next batch)."""
        self._check_ready("prepare")
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        """Switch to the batch's bucket and run its forward."""
        self._check_ready("forward")
        bucket_key = getattr(data_batch, "bucket_key", None)
        if bucket_key is None:
            bucket_key = self._default_bucket_key
        self.switch_bucket(bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        self._check_ready("backward")
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        if not self.optimizer_initialized:
            raise MXNetError("update: call init_optimizer() first")
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        self._check_ready("get_outputs")
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._check_ready("get_input_grads")
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._check_ready("update_metric")
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._check_bound("install_monitor")
        self._monitor = mon
        for module in self._buckets.values():
            module.install_monitor(mon)

    # -- checkpoints -------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """``prefix-%04d.params``, one ``prefix-<key>-symbol.json`` per bucket and
        ``prefix.buckets`` (the keys, as MXNet writes them: integers)."""
        if not self._buckets:
            raise MXNetError("Empty BucketingModule cannot be saved")
        self.save_params("%s-%04d.params" % (prefix, epoch))
        for bucket_key in self._buckets:
            symbol, _, _ = self._call_sym_gen(bucket_key)
            symbol.save("%s-%s-symbol.json" % (prefix, bucket_key))
        nd.save("%s.buckets" % prefix, nd.array(list(self._buckets), dtype=np.int32))

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule from ``save_checkpoint``'s files (bind it before use)."""
        if sym_gen is None or default_bucket_key is None:
            raise MXNetError("BucketingModule.load needs sym_gen and default_bucket_key")
        keys = [int(key) for key in nd.load("%s.buckets" % prefix)[0].asnumpy()]
        module = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for bucket_key in keys:
            _, data_names, label_names = sym_gen(bucket_key)
            symbol = sym.load("%s-%s-symbol.json" % (prefix, bucket_key))
            module._buckets[bucket_key] = Module(symbol, data_names, label_names, **kwargs)
        module._curr_module = module._buckets[default_bucket_key]
        arg_params, aux_params = load_params(prefix, epoch)
        module._curr_module._arg_params = arg_params
        module._curr_module._aux_params = aux_params
        module._curr_module.params_initialized = True
        module.params_initialized = True
        return module

    def _check_bound(self, what):
        if not self.binded:
            raise MXNetError(f"{what}: call bind() first")
