"""The Updater: an optimizer plus the state of every weight it has updated.

Lesson: 13-optimizers.  Mirrors ``Updater`` and ``get_updater`` in
``python/mxnet/optimizer/optimizer.py``.  The KVStore, Module and Gluon's
Trainer call ``updater(index, grad, weight)``; the updater creates each
weight's state on its first update and hands both to the optimizer.  An
optimizer with ``aggregate_num > 0`` (SGD) gets lists of up to that many
weights of one dtype per call, as MXNet's Updater gives them.
``get_states``/``set_states`` save and restore the states (and optionally the
optimizer) as bytes in the pickle-free format of ``state_format.py``.
"""
from ..ndarray import NDArray
from ..numpy import ndarray as np_ndarray
from ..util import is_np_array
from . import state_format
from .optimizer import Optimizer

__all__ = ["Updater", "get_updater"]


class Updater:
    """Apply ``optimizer`` to weights by index, keeping their states in ``self.states``.

    Examples
    --------
    >>> updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.5, momentum=0.9))
    >>> weight = nd.ones((2,))
    >>> updater(0, nd.ones((2,)), weight)
    >>> weight.asnumpy()
    array([0.5, 0.5], dtype=float32)
    >>> sorted(updater.states)
    [0]
    """

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}     # False: a loaded state may sit on another device
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        """Update ``weight`` (or each of a list of weights) from ``grad`` in place."""
        if isinstance(index, (list, tuple)):
            indices, grads, weights = list(index), list(grad), list(weight)
        else:
            indices, grads, weights = [index], [grad], [weight]
        allow_np = getattr(self.optimizer, "allow_np_array", None)
        allow_np = is_np_array() if allow_np is None else allow_np
        grads = [_as_classic(item, allow_np) for item in grads]
        weights = [_as_classic(item, allow_np) for item in weights]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        indices = [idx.decode("utf-8") if isinstance(idx, bytes) else idx for idx in indices]
        for idx, one_weight in zip(indices, weights):
            self._prepare_state(idx, one_weight)
        # (a loaded optimizer may be another kind than the one this Updater was made for)
        if not (self.aggregate_updates and self.optimizer.aggregate_num > 0):
            for idx, one_grad, one_weight in zip(indices, grads, weights):
                self.optimizer.update_multi_precision(idx, one_weight, one_grad,
                                                      self.states[idx])
            return
        for group in _aggregated(indices, weights, grads, self.optimizer.aggregate_num):
            ids, some_weights, some_grads = map(list, zip(*group))
            self.optimizer.update_multi_precision(ids, some_weights, some_grads,
                                                  [self.states[idx] for idx in ids])

    def _prepare_state(self, index, weight):
        """Create the state of a new weight; move a loaded one to the weight's device."""
        if index not in self.states:
            self.states[index] = self.optimizer.create_state_multi_precision(index, weight)
            self.states_synced[index] = True
        elif not self.states_synced[index]:
            self.states[index] = self.sync_state_context(self.states[index], weight.context)
            self.states_synced[index] = True

    def sync_state_context(self, state, context):
        """``state`` (an NDArray, or nested tuples/lists of them) on ``context``."""
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(item, context) for item in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def get_states(self, dump_optimizer=False):
        """The states as bytes (an ``nd.save`` file; see ``state_format``), with the
        optimizer itself when ``dump_optimizer`` (its learning rate, update counts, ...)."""
        value = (self.states, self.optimizer) if dump_optimizer else self.states
        return state_format.dumps(value)

    def set_states(self, states):
        """Restore the states (and the optimizer, if it was saved) from ``get_states`` bytes."""
        value = state_format.loads(states)
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], Optimizer):
            self.states, self.optimizer = value
        else:
            self.states = value
        self.states_synced = dict.fromkeys(self.states, False)


def _aggregated(indices, weights, grads, size):
    """``(index, weight, grad)`` triples in groups of one dtype and at most ``size`` each,
    the dtypes in order of first appearance (MXNet's Updater groups them so)."""
    by_dtype = {}
    for triple in zip(indices, weights, grads):
        by_dtype.setdefault(triple[1].dtype, []).append(triple)
    for triples in by_dtype.values():
        for start in range(0, len(triples), size):
            yield triples[start:start + size]


def get_updater(optimizer):
    """An ``Updater`` applying ``optimizer`` (what ``KVStore.set_optimizer`` installs)."""
    return Updater(optimizer)


def _as_classic(array, allow_np):
    """An ``mx.np`` array as the ``nd.NDArray`` over its buffer, which the optimizers update
    in place; refused unless the optimizer was made in NumPy mode (``allow_np_array``), as
    in MXNet (an optimizer without the attribute, pickled before it existed, asks the mode)."""
    if not isinstance(array, np_ndarray):
        return array
    if not allow_np:
        raise ValueError("Updater: converting an mx.np.ndarray to mx.nd.NDArray is not "
                         "allowed (the optimizer was made outside NumPy mode: "
                         "allow_np_array is False)")
    return array.as_nd_ndarray()
