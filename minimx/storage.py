"""Host memory pooling: freed array buffers stay with the process, to be reused.

Lesson: 05-lazy-evaluation.  Mirrors MXNet's pooled storage manager
(``src/storage/pooled_storage_manager.h``, ``MXNET_CPU_MEM_POOL_TYPE``).

numpy gets every array from the C library's ``malloc``.  glibc serves a large request
(above a threshold that adapts up to 32 MB) with fresh pages from the kernel (``mmap``)
and hands them back at ``free``; the kernel zero-fills each 4 kB page at its first
touch, a page fault each time.  A training step allocates the same large activations
step after step, so every step pays those faults again (7 % of a ResNet-18 step at
96x96, batch 64: bench/course_workloads.py).  MXNet keeps freed buffers in a pool for
the next request of the same size; minimx asks glibc to do the equivalent: serve every
size from its heap (``M_MMAP_MAX = 0``) and keep freed memory there (``M_TRIM_THRESHOLD``
very high).  The price is the same as MXNet's: the process keeps its peak memory.

Those two settings hold for glibc's main heap only.  A thread that allocates gets a heap
of its own ("arena"), capped at 64 MB, which maps large buffers and hands them back
regardless.  The engine's workers allocate every output, so a ResNet-18 training step
(96x96, batch 256, two cores) took 8x the page faults and 1.4x the time (8.6 s against
6.3 s) of the same step with every thread on the main heap.  So the pool also makes
every thread share the main heap (``M_ARENA_MAX = 1``), as MXNet's one pool serves all
its workers.

``MINIMX_CPU_MEM_POOL_TYPE=Unpooled`` (or MXNet's ``MXNET_CPU_MEM_POOL_TYPE``) leaves
malloc as it is; on systems without glibc nothing changes.  ``with unpooled():`` gives
the pool back and lets freed memory go for a while, so that the resident size shows
what is alive (lesson 05's memory-growth experiment).
"""
import contextlib
import ctypes
import os

__all__ = ["pool_host_memory", "host_pool_active", "unpooled"]

_M_TRIM_THRESHOLD = -1          # glibc's mallopt parameter numbers (malloc.h)
_M_MMAP_MAX = -4
_M_ARENA_MAX = -8
_KEEP_FREED_BYTES = 2**31 - 1   # "never give freed heap memory back" (mallopt takes an int)
_DEFAULT_MMAP_MAX = 65536       # glibc's defaults
_DEFAULT_TRIM_THRESHOLD = 128 * 1024
_VARIABLES = ("MINIMX_CPU_MEM_POOL_TYPE", "MXNET_CPU_MEM_POOL_TYPE")
_active = False
_libc = None


def _requested():
    for name in _VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value.lower() != "unpooled"
    return True


def _mallopt(parameter, value):
    return bool(_libc.mallopt(parameter, value))


def pool_host_memory():
    """Turn pooling on (once, at import) unless the environment asks for ``Unpooled``;
    returns whether it is on."""
    global _active, _libc
    if _active or not _requested():
        return _active
    try:
        # the process's own symbols: glibc's malloc when Python runs on glibc (no
        # ``ctypes.util.find_library``, which runs ``ldconfig`` in a subprocess)
        libc = ctypes.CDLL(None)
        libc.mallopt.argtypes, libc.mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = (ctypes.c_size_t,), ctypes.c_int
    except (OSError, AttributeError, TypeError):
        return False                     # not glibc: its malloc keeps its own policy
    _libc = libc
    _active = (_mallopt(_M_TRIM_THRESHOLD, _KEEP_FREED_BYTES) and _mallopt(_M_MMAP_MAX, 0)
               and _mallopt(_M_ARENA_MAX, 1))     # before any worker thread allocates
    return _active


def host_pool_active():
    return _active


@contextlib.contextmanager
def unpooled():
    """malloc's default policy inside the block (large buffers come and go as mapped pages),
    after handing what the pool keeps back to the system (``malloc_trim``)."""
    if not _active:
        yield
        return
    _mallopt(_M_MMAP_MAX, _DEFAULT_MMAP_MAX)
    _mallopt(_M_TRIM_THRESHOLD, _DEFAULT_TRIM_THRESHOLD)
    _libc.malloc_trim(0)
    try:
        yield
    finally:
        _mallopt(_M_TRIM_THRESHOLD, _KEEP_FREED_BYTES)
        _mallopt(_M_MMAP_MAX, 0)
