"""How a Module turns gradients on several devices into one parameter update.

Lesson: 12-training-with-module.  Mirrors ``_create_kvstore``, ``_initialize_kvstore``,
``_update_params_on_kvstore`` and ``_update_params`` of ``python/mxnet/model.py``.
Two ways, as in MXNet:

- *update on the KVStore* (the default with a KVStore): every device pushes its
  gradient, the store adds them up, runs the optimizer on its own copy of the
  weight and every device pulls the new weight back;
- *update on the devices*: the summed gradient is pulled back instead and each
  device runs the optimizer (an ``Updater``) on its own copy of the weight.

One device and no ``dist`` store need no KVStore at all.  When ``mx.kv`` cannot
create a store, the gradients are summed here directly and each device updates.
"""
import os

import numpy as np

from .. import kvstore as kvs
from .. import ndarray as nd
from ..base import MXNetError

__all__ = ["create_kvstore", "initialize_kvstore", "update_params_on_kvstore",
           "update_params"]

# a 'local' store keeps weights bigger than this on the devices (MXNet's threshold)
_BIG_PARAM = 1024 * 1024 * 16


def create_kvstore(kvstore, num_device, arg_params):
    """``(store or None, update_on_kvstore, sum_locally)`` for ``Module.init_optimizer``.

    ``kvstore`` is a name (``'local'``, ``'device'``, ``'dist_sync'``, ...), a KVStore,
    or None.  ``sum_locally`` is True when a store was asked for but ``mx.kv``
    cannot make one: the Module then adds the gradients up itself.
    """
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        return None, False, False
    if not isinstance(kvstore, str):
        return kvstore, update_on_kvstore and _can_update(kvstore), False
    if num_device == 1 and "dist" not in kvstore:
        return None, False, False
    store = _new_store(kvstore)
    if store is None:
        return None, False, True
    if kvstore == "local" and arg_params:
        largest = max(int(np.prod(value.shape)) for value in arg_params.values())
        update_on_kvstore = update_on_kvstore and largest <= _BIG_PARAM
    return store, update_on_kvstore and _can_update(store), False


def _new_store(name):
    """``mx.kv.create(name)``, or None when minimx has no KVStore (only for local types)."""
    create = getattr(kvs, "create", None)
    if create is not None:
        return create(name)
    if "dist" in name:
        raise MXNetError(f"kvstore {name!r}: distributed training needs mx.kv, which is not "
                         "available in this minimx")
    return None


def _can_update(store):
    """Whether the store can run the optimizer itself (MXNet 1.9's ``is_capable``)."""
    is_capable = getattr(store, "is_capable", None)
    if is_capable is None:
        return True
    return bool(is_capable(getattr(store, "OPTIMIZER", "optimizer")))


def initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    """Put every parameter into the store; devices pull it back when the store updates."""
    for index, param_on_devs in enumerate(param_arrays):
        name = param_names[index]
        kvstore.init(name, arg_params[name])
        if update_on_kvstore:
            kvstore.pull(name, param_on_devs, priority=-index)


def update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    """Push every gradient list to the store (it updates) and pull the new weights."""
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        name = param_names[index]
        kvstore.push(name, grad_list, priority=-index)
        kvstore.pull(name, arg_list, priority=-index)


def update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None,
                  param_names=None, sum_locally=False):
    """Update every device's weights with its ``updater``; the gradients are summed over
    the devices first, by the store when there is one (else here, with ``sum_locally``).

    The optimizer index of parameter ``i`` on device ``k`` is ``i * num_device + k``.
    """
    per_device = [[] for _ in range(num_device)]
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        if kvstore is not None:
            name = param_names[index]
            kvstore.push(name, grad_list, priority=-index)
            kvstore.pull(name, grad_list, priority=-index)
        elif sum_locally and len(grad_list) > 1:
            sum_gradients(grad_list)
        for device, (weight, grad) in enumerate(zip(arg_list, grad_list)):
            per_device[device].append((index * num_device + device, grad, weight))
    for updates in per_device:
        if updates:
            indices, grads, weights = zip(*updates)
            updater(list(indices), list(grads), list(weights))


def sum_gradients(grad_list):
    """Replace each device's gradient by the sum over all devices (a local all-reduce)."""
    first = grad_list[0].context
    total = nd.add_n(*[grad.as_in_context(first) for grad in grad_list])
    for grad in grad_list:
        total.copyto(grad)
