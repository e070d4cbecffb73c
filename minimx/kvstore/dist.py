"""The distributed KVStores: one store shared by the worker processes of an MPI job.

Lesson: 14-kvstore-and-distributed.  Mirrors ``src/kvstore/kvstore_dist.h`` (workers) and
``kvstore_dist_server.h`` (servers), with MPI in place of ps-lite.

``dist_sync``: there is no separate server.  ``init`` takes rank 0's value on
every worker (a broadcast); ``push`` sums the pushed arrays on this worker,
then over all workers (an allreduce), and every worker applies the same
update to its own copy.  Workers hold identical values at every step, which
is what MXNet's servers guarantee, without a process in between.
``dist_device_sync`` sums on the pushing device before the allreduce.
``dist_async``: see ``server.py``.
"""
from .kvstore import KVStore
from .network import Network

__all__ = ["WorkerKVStore", "DistSyncKVStore", "create"]


class WorkerKVStore(KVStore):
    """A KVStore in one worker process of an MPI job: what every distributed store shares."""

    def __init__(self, kvstore_type, on_device=False):
        super().__init__(kvstore_type, on_device)
        self._network = Network()

    @property
    def rank(self):
        return self._network.rank

    @property
    def num_workers(self):
        return self._network.size

    def barrier(self):
        """Block until every worker reaches its ``barrier`` call."""
        self._network.barrier()


class DistSyncKVStore(WorkerKVStore):
    """``dist_sync`` / ``dist_device_sync``: synchronous data-parallel training over MPI.

    Every worker must call ``init``, ``push`` and ``barrier`` for the same keys in the
    same order (as data-parallel training does); ``pull`` is local.
    """

    def __init__(self, kvstore_type="dist_sync", on_device=False):
        super().__init__(kvstore_type, on_device)

    def _initial_copy(self, key, array):
        stored = super()._initial_copy(key, array)
        self._network.broadcast(stored, root=0)     # every worker starts from rank 0's value
        return stored

    def _reduce_across_workers(self, key, merged, pushed):
        if any(merged is array for array in pushed):
            merged = merged.copy()              # the sum is written in place: not into a grad
        self._network.allreduce_sum(merged)
        return merged


def create(name):
    """The distributed store for a type name containing ``'dist'``."""
    on_device = "device" in name
    if "async" in name:
        from .server import DistAsyncKVStore
        return DistAsyncKVStore(name, on_device)
    return DistSyncKVStore(name, on_device)
