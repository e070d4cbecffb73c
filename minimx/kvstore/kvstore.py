"""KVStore: the parameter store between devices (``'local'``, ``'device'``).

Lesson: 14-kvstore-and-distributed.  Mirrors ``python/mxnet/kvstore/kvstore.py`` and
``src/kvstore/kvstore_local.h``.  ``init`` stores a copy of a value under a key;
``push`` sums the values pushed to a key (one per device) and either replaces
the stored value with the sum or, once an optimizer is set, hands
``updater(key, summed, stored)`` the sum to apply; ``pull`` copies the stored
value out to every device that asks.  Every copy and sum is an NDArray
operation, so the engine orders them with the computation around them.
``'local'`` keeps values and sums on ``cpu(0)``; ``'device'`` sums on the
device of the first value pushed and keeps the value there.
"""
import os

from .. import optimizer as opt
from ..base import MXNetError
from ..context import cpu
from .. import ndarray as nd
from ..ndarray import add_n
from . import keys as kv_keys
from .compression import GradientCompression, parse_compression_params

__all__ = ["KVStore", "KVStoreBase"]


class KVStore:
    """A key-value store of NDArrays, shared by the devices of one process.

    Create it with ``mx.kv.create('local' | 'device' | 'dist_sync' | ...)``.

    Examples
    --------
    >>> kv = mx.kv.create('local')
    >>> kv.init(3, nd.ones((2,)))
    >>> kv.push(3, [nd.ones((2,)) * 2, nd.ones((2,)) * 3])   # summed: 5
    >>> out = nd.zeros((2,))
    >>> kv.pull(3, out=out)
    >>> out.asnumpy()
    array([5., 5.], dtype=float32)
    """

    OPTIMIZER = "optimizer"

    def __init__(self, kvstore_type="local", on_device=False):
        self._type = kvstore_type
        self._on_device = on_device     # sum on the pushing device, not on cpu(0)
        self._store = {}                # key -> the stored NDArray
        self._key_kind = None           # int or str, fixed by the first key used
        self._updater = None
        self._compression = None

    def __repr__(self):
        return f"<KVStore {self._type!r}: {len(self._store)} keys, rank {self.rank} " \
               f"of {self.num_workers}>"

    # -- description ---------------------------------------------------------------------------
    @property
    def type(self):
        """The type name given to ``mx.kv.create``."""
        return self._type

    @property
    def rank(self):
        """This worker's index among ``num_workers`` (0 outside distributed training)."""
        return 0

    @property
    def num_workers(self):
        """The number of worker processes (1 outside distributed training)."""
        return 1

    def is_capable(self, capability):
        """Whether this store can do ``capability`` (only ``'optimizer'`` is known)."""
        if capability.lower() == KVStore.OPTIMIZER:
            return True
        raise ValueError(f"Unknown capability: {capability}")

    # -- init / push / pull --------------------------------------------------------------------
    def init(self, key, value):
        """Store a copy of ``value`` under ``key`` (or of each value under each key).

        Initialising a key twice is an error, as in MXNet.
        """
        for one_key, arrays in kv_keys.pairs(key, value, "init"):
            self._check_key(one_key)
            for array in arrays:
                if one_key in self._store:
                    raise MXNetError(
                        f"duplicate init of key {one_key!r}. Please double check if you called "
                        f"kv.init or kv.broadcast with this key multiple times")
                self._store[one_key] = self._initial_copy(one_key, array)

    def push(self, key, value, priority=0):
        """Sum the values pushed to each key and store the sum or apply the updater to it.

        ``priority`` is accepted for MXNet compatibility; the engine orders work by
        its data dependencies alone.
        """
        for one_key, arrays in kv_keys.grouped_pairs(key, value, "push"):
            stored = self._stored(one_key, "push")
            for array in arrays:
                _check_shape(one_key, "push", array.shape, stored.shape)
            merged = self._merge(one_key, arrays)
            merged = self._reduce_across_workers(one_key, merged, arrays)
            self._apply(one_key, merged)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the value stored under each key into ``out`` (one array or a list)."""
        if out is None:
            raise MXNetError("KVStore.pull needs `out`: the NDArray(s) to copy the value into")
        for one_key, arrays in kv_keys.pairs(key, out, "pull"):
            stored = self._stored_for_pull(one_key)
            for array in arrays:
                if ignore_sparse and array.stype == "row_sparse":
                    continue                # as MXNet's: row_sparse_pull fills those
                _check_shape(one_key, "pull", array.shape, stored.shape)
                stored.copyto(array)

    def pushpull(self, key, value, out=None, priority=0):
        """``push`` then ``pull``; without ``out`` the result goes back into ``value``."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """``init`` each key with ``value``, then ``pull`` it into ``out``."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Copy only the rows ``row_ids`` of the value under each key into ``out``
        (RowSparseNDArrays): a worker of a sparse model fetches just the rows its batch
        touches.  ``row_ids``: per key, one NDArray per ``out`` array (or one for all)."""
        if out is None or row_ids is None:
            raise MXNetError("KVStore.row_sparse_pull needs `out` (RowSparseNDArrays) and "
                             "`row_ids`")
        per_key = row_ids if isinstance(key, (list, tuple)) else [row_ids]
        for (one_key, arrays), ids in zip(kv_keys.pairs(key, out, "row_sparse_pull"), per_key):
            stored = self._stored_for_pull(one_key)
            if stored.stype != "row_sparse":
                raise MXNetError(f"KVStore.row_sparse_pull: the value under key {one_key!r} "
                                 f"must be row_sparse (init it with one), got storage type "
                                 f"{stored.stype!r}; use pull")
            ids = ids if isinstance(ids, (list, tuple)) else [ids] * len(arrays)
            if len(ids) != len(arrays):
                raise MXNetError(f"KVStore.row_sparse_pull: {len(arrays)} out arrays but "
                                 f"{len(ids)} row_ids")
            for array, rows in zip(arrays, ids):
                if array.stype != "row_sparse":
                    raise MXNetError(f"KVStore.row_sparse_pull: out must be row_sparse, got "
                                     f"storage type {array.stype!r} (use pull)")
                _check_shape(one_key, "row_sparse_pull", array.shape, stored.shape)
                nd.sparse.rows_of(stored, rows).copyto(array)

    # -- optimizer ----------------------------------------------------------------------------
    def set_optimizer(self, optimizer):
        """Apply ``optimizer`` to every later push: ``stored`` becomes the updated weight."""
        if not isinstance(optimizer, opt.Optimizer):
            raise TypeError(f"set_optimizer expects an mx.optimizer.Optimizer, got "
                            f"{type(optimizer).__name__}")
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        """Call ``updater(key, summed, stored)`` on every push (str keys arrive as bytes)."""
        self._updater = updater

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the optimizer's states (and the optimizer itself if ``dump_optimizer``)."""
        updater = self._require_updater("save_optimizer_states")
        data = updater.get_states(dump_optimizer)
        temporary = f"{fname}.tmp{os.getpid()}"
        with open(temporary, "wb") as file:     # a crash never leaves half a file at fname
            file.write(data)
        os.replace(temporary, fname)

    def load_optimizer_states(self, fname):
        """Read states written by ``save_optimizer_states`` into the updater."""
        updater = self._require_updater("load_optimizer_states")
        with open(fname, "rb") as file:
            updater.set_states(file.read())

    def set_gradient_compression(self, compression_params):
        """Compress pushed values (``{'type': '2bit', 'threshold': t}``); device/dist only."""
        if "device" not in self._type and "dist" not in self._type:
            raise MXNetError("Gradient compression is not supported for this type of kvstore")
        kind, threshold = parse_compression_params(compression_params)
        self._compression = GradientCompression(threshold) if kind == "2bit" else None

    # -- synchronisation ------------------------------------------------------------------
    def barrier(self):
        """Wait until every worker reaches this point (nothing to wait for in one process)."""

    def _barrier(self):
        self.barrier()

    # -- the steps, which the distributed stores extend --------------------------------------
    def _initial_copy(self, key, array):
        """The stored copy of ``array``: on cpu(0), or on the array's device for 'device'."""
        return array.copyto(array.context if self._on_device else cpu(0))

    def _merge(self, key, arrays):
        """The sum of the arrays pushed to ``key``, on the device where it is stored."""
        if self._compression is not None:
            arrays = self._compression.compress_all(key, arrays)
        context = self._merge_context(key, arrays)
        arrays = [array.as_in_context(context) for array in arrays]
        return arrays[0] if len(arrays) == 1 else add_n(*arrays)

    def _merge_context(self, key, arrays):
        """cpu(0); for 'device', the first pushed array's device (the value moves there)."""
        stored = self._store[key]
        if self._on_device and stored.context != arrays[0].context:
            stored = self._store[key] = stored.as_in_context(arrays[0].context)
        return stored.context

    def _reduce_across_workers(self, key, merged, pushed):
        """Sum ``merged`` over the worker processes (one process: nothing to do)."""
        return merged

    def _apply(self, key, merged):
        """Replace the stored value by ``merged``, or let the updater use it."""
        stored = self._store[key]
        if self._updater is None:
            merged.copyto(stored)
        else:
            self._updater(_updater_key(key), merged, stored)

    def _stored_for_pull(self, key):
        return self._stored(key, "pull")

    # -- checks ----------------------------------------------------------------------------
    def _check_key(self, key):
        kind = kv_keys.key_kind(key)
        if self._key_kind is None:
            self._key_kind = kind
        elif kind is not self._key_kind:
            raise MXNetError(f"Mixed key types are not allowed: key {key!r} is {kind.__name__} "
                             f"but this KVStore uses {self._key_kind.__name__} keys")

    def _stored(self, key, what):
        self._check_key(key)
        stored = self._store.get(key)
        if stored is None:
            raise MXNetError(f"KVStore.{what}: key {key!r} has not been inited; call "
                             f"kv.init({key!r}, value) first")
        return stored

    def _require_updater(self, what):
        if self._updater is None:
            raise MXNetError(f"{what}: this KVStore has no optimizer; call set_optimizer first")
        return self._updater


KVStoreBase = KVStore       # MXNet 1.9 names the common base of its stores KVStoreBase


def _check_shape(key, what, shape, stored_shape):
    if tuple(shape) != tuple(stored_shape):
        raise MXNetError(f"KVStore.{what}: key {key!r} holds shape {tuple(stored_shape)}, "
                         f"got an array of shape {tuple(shape)}")


def _updater_key(key):
    """MXNet hands str keys to the updater as bytes (``Updater`` decodes them)."""
    return key.encode("utf-8") if isinstance(key, str) else key
