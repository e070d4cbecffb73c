"""``gluon.Trainer``: apply an optimizer to a set of Parameters after ``backward``.

Lesson: 09-gluon, 13-optimizers.  Mirrors ``python/mxnet/gluon/trainer.py``.  One
``step(batch_size)`` is ``allreduce_grads()`` (sum each gradient over the
contexts the Parameter lives on, through a KVStore) followed by ``update()``
(every context's copy updated with ``rescale_grad = 1 / batch_size``).  The
KVStore is created lazily at the first step, as MXNet does, so Parameters may
finish deferred initialisation in between.  A Parameter whose gradient was not
written by ``backward`` since the last step is stale: ``step`` refuses it unless
``ignore_stale_grad=True``, which skips it instead.
"""
import os

import numpy as np

from .. import kvstore as kvstore_module
from .. import optimizer as opt
from ..base import InvalidParameterError, InvalidTypeError, MXNetError, StateError
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


class Trainer:
    """Applies an Optimizer to a set of Parameters; use it together with autograd.

    Parameters
    ----------
    params : ParameterDict, dict or list of Parameter
        The Parameters to optimise (a dict is taken in sorted name order, as MXNet does).
    optimizer : str or Optimizer
        An optimizer name for ``mx.optimizer.create`` or an Optimizer instance.
    optimizer_params : dict, optional
        Keyword arguments for the optimizer (``{'learning_rate': 0.1}``); only with a name.
    kvstore : str, KVStore or None, default 'device'
        How gradients of several contexts are summed.  With one context no KVStore is needed.
    compression_params : dict, optional
        Passed to ``KVStore.set_gradient_compression``.
    update_on_kvstore : bool, optional
        Let the KVStore run the optimizer; None lets the Trainer choose.

    Examples
    --------
    >>> w = mx.gluon.Parameter('w', shape=(2,), init=mx.init.One())
    >>> w.initialize()
    >>> trainer = mx.gluon.Trainer([w], 'sgd', {'learning_rate': 0.5})
    >>> with mx.autograd.record():
    ...     loss = (w.data() * 2).sum()
    >>> loss.backward()
    >>> trainer.step(1)
    >>> w.data().asnumpy()
    array([0., 0.], dtype=float32)
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        self._params = _as_parameter_list(params)
        self._param2idx = {}
        for index, param in enumerate(self._params):
            self._param2idx[param.name] = index
            param._set_trainer(self)
        self._contains_sparse_weight = any(p._stype != "default" for p in self._params)
        self._contains_sparse_grad = any(p._grad_stype != "default" for p in self._params)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = list(param.list_ctx())
            if contexts is not None and contexts != ctx:
                raise StateError(
                    f"All Parameters must be initialized on the same set of contexts, but "
                    f"Parameter {param.name} is initialized on {ctx} while previous Parameters "
                    f"are initialized on {contexts}.")
            contexts = ctx
        return contexts or []

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise StateError("optimizer_params must be None if optimizer is an instance "
                                 "of Optimizer instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    # -- the KVStore ---------------------------------------------------------------------------
    def _reset_kvstore(self):
        """Forget the KVStore; the next step creates it again (after ``set_data``)."""
        if self._kvstore is not None and "dist" in getattr(self._kvstore, "type", ""):
            raise MXNetError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Create the KVStore and decide who runs the optimizer (MXNet's rules)."""
        config = self._kvstore_params
        kvstore, update_on_kvstore = _create_kvstore(config["kvstore"], len(self._contexts),
                                                     self._params)
        self._distributed = kvstore is not None and "dist" in getattr(kvstore, "type", "")
        if self._distributed and "async" in kvstore.type:
            if config["update_on_kvstore"] is False:
                raise InvalidParameterError("Please set update_on_kvstore=True when training "
                                            "in async "
                                 "mode.")
            update_on_kvstore = True
        if config["update_on_kvstore"] is not None:
            update_on_kvstore = config["update_on_kvstore"]
        if kvstore is None:
            update_on_kvstore = False
        elif update_on_kvstore and not _is_capable(kvstore, "optimizer"):
            if config["update_on_kvstore"]:
                raise InvalidParameterError(f"Please set update_on_kvstore=False when "
                                            f"training with "
                                 f"{type(kvstore).__name__}")
            update_on_kvstore = False
        if kvstore is not None:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore if kvstore is not None else None
        self._kv_initialized = True

    def _init_params(self):
        """Copy each Parameter's first copy to the KVStore (deferred ones wait)."""
        waiting = []
        for param in self._params_to_init:
            if param._deferred_init:
                waiting.append(param)
            elif self._kvstore is not None:
                arrays = param._check_and_get(param._data, list)
                _kv_broadcast(self._kvstore, self._param2idx[param.name], arrays)
        self._params_to_init = waiting

    def _prepare(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    # -- the learning rate -------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The optimizer's current learning rate."""
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        """The Optimizer this Trainer applies."""
        return self._optimizer

    def set_learning_rate(self, lr):
        """Set the optimizer's learning rate (an error when an LR scheduler decides it)."""
        self._optimizer.set_learning_rate(lr)

    # -- one training step -------------------------------------------------------------------
    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning("Possible change in the `batch_size` from previous `step` "
                                  "detected. Optimizer gradient normalizing factor will not "
                                  "change w.r.t new batch_size when update_on_kvstore=True "
                                  "and when distributed kvstore is used.")
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """Sum the gradients over contexts, then update with ``rescale_grad = 1/batch_size``.

        Call it after ``backward()``, outside ``autograd.record()``.  Set
        ``batch_size`` to 1 when the loss is already a mean.
        """
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each gradient over its contexts (``step`` = this + ``update``).

        Call it yourself to change the summed gradients (clipping) before ``update``.
        """
        self._prepare()
        self._refuse_when_updating_on_kvstore("allreduce_grads()")
        self._allreduce_grads()

    def update(self, batch_size, ignore_stale_grad=False):
        """Update the Parameters from their (already summed) gradients."""
        self._prepare()
        self._refuse_when_updating_on_kvstore("update()")
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _refuse_when_updating_on_kvstore(self, what):
        if self._kvstore is not None and self._update_on_kvstore:
            raise StateError(f"{what} when parameters are updated on kvstore is not "
                             f"supported. Try setting `update_on_kvstore` to False when "
                             f"creating trainer.")

    def _allreduce_grads(self):
        if self._kvstore is None:
            return
        for index, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            out = param.list_data() if self._update_on_kvstore else None
            _kv_pushpull(self._kvstore, index, param.list_grad(), out)

    def _update(self, ignore_stale_grad=False):
        updates = [[] for _ in self._updaters]
        on_kvstore = self._kvstore is not None and self._update_on_kvstore
        for index, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            arrays = param._check_and_get(param._data, list)
            if not ignore_stale_grad:
                _check_fresh(param, arrays)
            if on_kvstore:
                for array in arrays:
                    _set_fresh(array, False)
                continue
            for pending, array, grad in zip(updates, arrays, param.list_grad()):
                if not ignore_stale_grad or _is_fresh(array):
                    pending.append((index, grad, array))
                    _set_fresh(array, False)
        if on_kvstore:
            return
        for updater, pending in zip(self._updaters, updates):
            if pending:
                indices, grads, weights = zip(*pending)
                updater(list(indices), list(grads), list(weights))

    # -- saving the optimizer's state ---------------------------------------------------------
    def save_states(self, fname):
        """Write the optimizer and its states (momenta, ...) to ``fname`` (no pickle).

        The Parameters' own ``lr_mult`` / ``wd_mult`` are not saved.
        """
        self._prepare()
        if self._update_on_kvstore:
            if self._params_to_init:
                raise StateError("Cannot save trainer states when some parameters are not "
                                 "yet initialized in kvstore.")
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
            return
        with open(fname, "wb") as handle:
            handle.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Read what ``save_states`` wrote; the optimizer then uses this Trainer's Parameters."""
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, "rb") as handle:
                states = handle.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))


def _as_parameter_list(params):
    if isinstance(params, (dict, ParameterDict)):
        params = [params[key] for key in sorted(params.keys())]
    if not isinstance(params, (list, tuple)):
        raise InvalidParameterError(f"First argument must be a list or dict of Parameters, "
                                    f"got "
                         f"{type(params)}.")
    for param in params:
        if not isinstance(param, Parameter):
            raise InvalidParameterError(f"First argument must be a list or dict of "
                                        f"Parameters, got list "
                             f"of {type(param)}.")
    return list(params)


# -- gradient freshness (set by autograd.backward, cleared by each update) --------------------
def _is_fresh(array):
    entry = array._autograd
    return entry is not None and getattr(entry[0], "fresh_grad", False)


def _set_fresh(array, value):
    entry = array._autograd
    if entry is not None and hasattr(entry[0], "fresh_grad"):
        entry[0].fresh_grad = value


def _check_fresh(param, arrays):
    for array in arrays:
        if not _is_fresh(array):
            raise UserWarning(
                f"Gradient of Parameter `{param.name}` on context {array.context} has not been "
                f"updated by backward since last `step`. This could mean a bug in your model "
                f"that made it only use a subset of the Parameters (Blocks) for this "
                f"iteration. If you are intentionally only using a subset, call step with "
                f"ignore_stale_grad=True to suppress this warning and skip updating of "
                f"Parameters with stale gradient")


# -- talking to a KVStore -----------------------------------------------------------------------
def _create_kvstore(kvstore, num_contexts, params):
    """(KVStore or None, update_on_kvstore), following MXNet's ``model._create_kvstore``."""
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        return None, False
    if isinstance(kvstore, str):
        if num_contexts == 1 and "dist" not in kvstore:
            return None, False
        kv = kvstore_module.create(kvstore)
        if kvstore == "local":
            largest = max((int(np.prod(p.shape)) for p in params if p.shape), default=0)
            update_on_kvstore = update_on_kvstore and largest <= 1024 * 1024 * 16
    elif hasattr(kvstore, "push") or hasattr(kvstore, "pushpull"):
        kv = kvstore
    else:
        raise InvalidTypeError(f"kvstore must be KVStore, str or None, got {type(kvstore)}")
    return kv, update_on_kvstore and _is_capable(kv, "optimizer")


def _is_capable(kv, capability):
    check = getattr(kv, "is_capable", None)
    if check is not None:
        return bool(check(capability))
    return capability == "optimizer" and hasattr(kv, "set_optimizer")


def _kv_broadcast(kv, key, arrays):
    """Store ``arrays[0]`` under ``key`` and copy the stored value to every array."""
    if hasattr(kv, "broadcast"):
        kv.broadcast(key, arrays[0], out=arrays)
    else:
        kv.init(key, arrays[0])
        kv.pull(key, out=arrays)


def _kv_pushpull(kv, key, grads, out=None):
    """Sum ``grads`` under ``key``; the result goes to ``out`` (default: back to ``grads``)."""
    out = grads if out is None else out
    if hasattr(kv, "pushpull"):
        kv.pushpull(key, grads, out=out)
    else:
        kv.push(key, grads)
        kv.pull(key, out=out)
