"""SVRGModule: a Module whose updates use SVRG's variance-reduced gradients.

Lesson: 12-training-with-module.  Mirrors
``python/mxnet/contrib/svrg_optimization/svrg_module.py``.  A second Module bound to the
same symbol (``_mod_aux``) holds the snapshot weights.  ``update_full_grads(data)``
copies the current weights into it and averages its gradients over every batch of
``data`` (``mu``); ``fit`` does that every ``update_freq`` epochs.  After each
``backward`` the gradients become ``g(w) - g(w_snapshot) + mu`` (the snapshot's gradient
on the same batch), and ``update`` applies the optimizer to those.
"""
import logging

from ...context import cpu
from ...module import Module
from ... import ndarray as nd
from .svrg_optimizer import _SVRGOptimizer

__all__ = ["SVRGModule"]


class SVRGModule(Module):
    """Arguments as Module's, plus ``update_freq`` (int): epochs between full-gradient
    snapshots."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=cpu(), work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None, update_freq=None):
        super().__init__(symbol, data_names=data_names, label_names=label_names,
                         logger=logger, context=context, work_load_list=work_load_list,
                         fixed_param_names=fixed_param_names, state_names=state_names,
                         group2ctxs=group2ctxs, compression_params=compression_params)
        if not isinstance(update_freq, int) or isinstance(update_freq, bool) or \
                update_freq <= 0:
            raise ValueError(f"SVRGModule: update_freq must be a positive int (epochs between "
                             f"full-gradient snapshots), got {update_freq!r}")
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, data_names=data_names, label_names=label_names,
                               logger=logger, context=context, work_load_list=work_load_list,
                               fixed_param_names=fixed_param_names, state_names=state_names,
                               group2ctxs=group2ctxs, compression_params=compression_params)
        self._ctx_len = len(context) if isinstance(context, (list, tuple)) else 1
        self._param_dict = None

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                     shared_module, grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                               force_rebind, None, grad_req)

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """The optimizer becomes an ``_SVRGOptimizer`` around ``optimizer``; a KVStore gets
        a ``<name>_full`` key per parameter, where the devices' full gradients add up.

        MXNet 1.9.1 also pulls those (zero) keys into the parameters when the store
        updates them, which sets the weights on every device to zero when training on
        several devices (``get_params`` still shows the old ones until the next sync).
        minimx leaves the weights as they are."""
        params = dict(optimizer_params)
        batch_size = self._exec_group.batch_size
        params.setdefault("rescale_grad", 1.0 / batch_size)
        names = self._exec_group.param_names
        idx2name = dict(enumerate(names))
        idx2name.update({len(names) + i: name + "_full" for i, name in enumerate(names)})
        svrg = _SVRGOptimizer(default_optimizer=optimizer, param_idx2name=idx2name, **params)
        super().init_optimizer(kvstore=kvstore, optimizer=svrg, force_init=force_init)
        group = self._exec_group
        self._param_dict = [{name: nd.zeros(grads[device].shape, ctx=grads[device].context)
                             for name, grads in zip(group.param_names, group.grad_arrays)}
                            for device in range(self._ctx_len)]
        if self._kvstore:
            # the keys that add the devices' full gradients up (assigned, not optimized)
            for name in group.param_names:
                self._kvstore.init(name + "_full", nd.zeros(self._arg_params[name].shape))

    def forward(self, data_batch, is_train=None):
        super().forward(data_batch, is_train)
        if is_train or (is_train is None and self.for_training):
            self._mod_aux.forward(data_batch, is_train=True)

    def backward(self, out_grads=None):
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update(self):
        """The optimizer's step on ``grad - snapshot's grad + full grad``."""
        self._reduce_variance()
        super().update()

    def _reduce_variance(self):
        """``grad = grad - snapshot's grad + full grad``, per device and parameter."""
        group, snapshot = self._exec_group, self._mod_aux._exec_group
        for name, grads, snapshot_grads in zip(group.param_names, group.grad_arrays,
                                               snapshot.grad_arrays):
            for device, (grad, old) in enumerate(zip(grads, snapshot_grads)):
                full = self._param_dict[device][name].as_in_context(grad.context)
                grad[:] = grad - old + full

    def update_full_grads(self, train_data):
        """Snapshot the weights and add their gradient over every batch of ``train_data``
        to ``_param_dict`` (one dict per device), then divide by the number of batches (a
        padded last batch counting as its real fraction).

        As MXNet 1.9.1 does, the sums start from the previous snapshot's full gradient,
        not from zero (``_param_dict`` is zeroed only by ``init_optimizer``): from the
        second snapshot on, ``mu = (mu_before + sum of batch gradients) / batches``.
        Programs get MXNet's numbers; a textbook SVRG would start each snapshot at zero.
        """
        arg_params, aux_params = self.get_params()
        self._mod_aux.set_params(arg_params=arg_params, aux_params=aux_params)
        train_data.reset()
        group = self._mod_aux._exec_group
        batches, padding = 0, 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            batches += 1
            for name, grads in zip(group.param_names, group.grad_arrays):
                for device, grad in enumerate(grads):
                    self._param_dict[device][name] = self._param_dict[device][name] + grad
            padding = batch.pad or 0
        if batches == 0:
            raise ValueError("SVRGModule.update_full_grads: train_data gave no batch")
        real_batches = batches - padding / train_data.batch_size
        for per_device in self._param_dict:
            for name in per_device:
                per_device[name] = per_device[name] / real_batches
        if self._kvstore:
            for name in group.param_names:
                self._accumulate_kvstore(name, [per_device[name]
                                                for per_device in self._param_dict])
        train_data.reset()

    def _accumulate_kvstore(self, key, value):
        """The devices' full gradients of ``key`` (one array each) summed in the KVStore
        under ``<key>_full``, pulled back into ``value``; each device keeps the sum divided
        by the number of devices."""
        self._kvstore.push(key + "_full", value)
        self._kvstore.pull(key + "_full", value)
        for device in range(self._ctx_len):
            self._param_dict[device][key] = value[device] / self._ctx_len

    def _fit_epoch(self, train_data, epoch, *args, **kwargs):
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
        return super()._fit_epoch(train_data, epoch, *args, **kwargs)
