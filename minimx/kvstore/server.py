"""``dist_async``: a server thread on rank 0 applies each push as it arrives.

Lesson: 14-kvstore-and-distributed.  Mirrors the asynchronous mode of
``src/kvstore/kvstore_dist_server.h``.  Rank 0 runs the server in a thread
beside its own training; it holds the one true copy of every value.  A worker's
``push`` sends its locally summed array and the server applies it at once
(``updater(key, pushed, stored)``, or replaces the value when no optimizer is
set), without waiting for the other workers.  ``pull`` asks the server for
the latest value, so workers see each other's updates as soon as they are
applied and may compute on values a few updates old: that is the asynchrony.
Requests travel as small Python tuples (mpi4py pickles them) between the
processes of one MPI job; each gets a reply, so a worker's own pushes are
always visible to its next pull and a server error reaches the worker.
"""
import atexit
import threading

from .. import backend, engine
from ..base import MXNetError
from ..context import cpu
from ..ndarray import array as nd_array
from .dist import WorkerKVStore
from .kvstore import _updater_key

__all__ = ["DistAsyncKVStore", "Server"]

REQUEST, REPLY = 11, 12


class Server:
    """Rank 0's store: serves ``init``/``push``/``pull`` requests until every worker is done."""

    def __init__(self, comm, num_workers, MPI):
        self.comm = comm
        self.num_workers = num_workers
        self.MPI = MPI
        self.store = {}
        self.updater = None
        self.lock = threading.Lock()        # the updater's states are read by the main thread
        self.thread = threading.Thread(target=self._serve, name="kvstore-server", daemon=True)
        self.thread.start()

    def _serve(self):
        done = 0
        status = self.MPI.Status()
        while done < self.num_workers:
            command, key, value = self.comm.recv(source=self.MPI.ANY_SOURCE, tag=REQUEST,
                                                 status=status)
            if command == "done":
                done += 1
                continue
            try:
                with self.lock:
                    reply = self._handle(command, key, value)
            except Exception as error:          # reported to the worker that asked
                reply = ("error", f"{type(error).__name__}: {error}")
            self.comm.send(reply, dest=status.Get_source(), tag=REPLY)

    def _handle(self, command, key, value):
        if command == "init":
            if key not in self.store:
                self.store[key] = nd_array(value, ctx=cpu(0), dtype=value.dtype)
            return None
        stored = self.store[key]
        if command == "pull":
            return stored.asnumpy()
        pushed = nd_array(value, ctx=cpu(0), dtype=value.dtype)
        if self.updater is None:
            pushed.copyto(stored)
        else:
            self.updater(_updater_key(key), pushed, stored)
        stored.wait_to_read()
        return None


class DistAsyncKVStore(WorkerKVStore):
    """``dist_async``: workers push to and pull from the server on rank 0, never waiting
    for each other.  ``init`` takes rank 0's value; ``set_optimizer`` installs rank 0's
    optimizer on the server (the others are ignored, as one optimizer serves all)."""

    def __init__(self, kvstore_type="dist_async", on_device=False):
        super().__init__(kvstore_type, on_device)
        MPI = self._network.MPI
        self._requests = MPI.COMM_WORLD.Dup()
        self._server = None
        if self.rank == 0:
            self._server = Server(self._requests, self.num_workers, MPI)
        self._closed = False
        atexit.register(self.close)

    # -- talking to the server, inside engine operations ordered by the network var -------
    def _request(self, command, key, value=None):
        self._requests.send((command, key, value), dest=0, tag=REQUEST)
        reply = self._requests.recv(source=0, tag=REPLY)
        if isinstance(reply, tuple) and reply[:1] == ("error",):
            raise MXNetError(f"kvstore server, {command} of key {key!r}: {reply[1]}")
        return reply

    def _send(self, command, key, array):
        def send():
            self._request(command, key, backend.to_numpy(array._read()))

        engine.push(send, [array._chunk.var], [self._network.var], array.context,
                    f"kvstore_{command}")

    # -- the KVStore steps ---------------------------------------------------------------------
    def init(self, key, value):
        super().init(key, value)
        self.barrier()                  # the server holds every key before anyone pushes

    def _initial_copy(self, key, array):
        stored = super()._initial_copy(key, array)
        if self.rank == 0:
            self._send("init", key, stored)
        return stored

    def _apply(self, key, merged):
        self._send("push", key, merged)

    def _stored_for_pull(self, key):
        stored = self._stored(key, "pull")

        def fetch():
            value = self._request("pull", key)
            stored._write(backend.from_numpy(value, stored.context))

        engine.push(fetch, [], [stored._chunk.var, self._network.var], stored.context,
                    "kvstore_pull")
        return stored

    def _set_updater(self, updater):
        if self._server is not None:
            engine.wait_for_var(self._network.var)     # this worker's pushes are applied
            with self._server.lock:
                self._server.updater = updater
            self._updater = updater
        self.barrier()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Rank 0 only: the optimizer states live on its server."""
        if self._server is None:
            raise MXNetError("dist_async: the optimizer states live on rank 0's server; "
                             "call save_optimizer_states on rank 0")
        with self._server.lock:
            super().save_optimizer_states(fname, dump_optimizer)

    def close(self):
        """Tell the server this worker is done; rank 0 waits for its server to finish.

        Runs at exit by itself; later calls do nothing.
        """
        if self._closed:
            return
        self._closed = True
        engine.wait_for_var(self._network.var)
        self._requests.send(("done", None, None), dest=0, tag=REQUEST)
        if self._server is not None:
            self._server.thread.join()
