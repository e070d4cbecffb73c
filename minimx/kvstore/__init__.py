"""``mx.kv``: the key-value store that sums gradients and shares weights.

Lesson: 14-kvstore-and-distributed.  Mirrors ``python/mxnet/kvstore/``.  ``kvstore.py`` holds
``KVStore`` (``'local'`` and ``'device'``: the devices of one process);
``dist.py`` the stores between processes over MPI (``'dist_sync'``,
``'dist_device_sync'``, ``'dist_async'``), launched with ``mpirun -n N python
train.py`` or ``python -m minimx.tools.launch -n N python train.py``.
"""
from ..base import MXNetError
from .compression import GradientCompression
from .kvstore import KVStore, KVStoreBase

__all__ = ["KVStore", "KVStoreBase", "GradientCompression", "create"]

LOCAL_TYPES = {
    "local": False, "local_update_cpu": False, "local_allreduce_cpu": False,
    "device": True, "local_allreduce_device": True,
    "nccl": True,           # no NCCL here: sums on the device as 'device' does
}


def create(name="local"):
    """A new KVStore of type ``name``.

    ``'local'`` sums on cpu(0), ``'device'`` on the pushing device; names
    containing ``'dist'`` make a store shared by the processes of an MPI job
    (``'_async'`` in the name: asynchronous, ``'device'``: summed on devices).

    Examples
    --------
    >>> kv = mx.kv.create('device')
    >>> kv.type, kv.rank, kv.num_workers
    ('device', 0, 1)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if name in LOCAL_TYPES:
        return KVStore(name, on_device=LOCAL_TYPES[name])
    if "dist" in name:
        from . import dist
        return dist.create(name)
    raise MXNetError(f"unknown KVStore type {name!r}; expected one of {sorted(LOCAL_TYPES)} "
                     f"or 'dist_sync', 'dist_device_sync', 'dist_async'")
