"""The array library behind each device: numpy for cpu, CuPy for gpu.

Lesson: 15-gpus-with-cupy.  Every operator receives the module returned by ``get_xp(ctx)``
and calls it as ``xp``; this is the only file that imports CuPy.  Tests stand a
numpy-backed module in for CuPy (``use_stand_in_gpu``, strict by default:
``backend_standin``) so the device-handling path runs on machines without a GPU.
"""
import contextlib

import numpy

from .backend_standin import STAND_IN, use_device
from .base import DeviceUnavailableError

__all__ = ["get_xp", "num_gpus", "to_numpy", "from_numpy", "device_scope", "make_rng",
           "empty_cache", "use_stand_in_gpu", "stand_in_gpus"]

_gpu_module = None        # cupy, or a stand-in, once loaded
_gpu_count = None
_gpu_is_stand_in = False


def _load_cupy():
    global _gpu_module, _gpu_count
    if _gpu_count is not None:
        return
    try:
        import cupy
        _gpu_count = cupy.cuda.runtime.getDeviceCount()
        _gpu_module = cupy
    except Exception:            # no CuPy, no driver or no device: all mean "no GPU"
        _gpu_count = 0


def num_gpus():
    """Number of usable GPUs: 0 when CuPy or a GPU is missing."""
    _load_cupy()
    return _gpu_count


def get_xp(ctx):
    """The array module for ``ctx``: numpy for cpu, CuPy for gpu."""
    if ctx.device_type != "gpu":
        return numpy
    _check_gpu(ctx)
    return _gpu_module


def _check_gpu(ctx):
    count = num_gpus()
    if count == 0:
        raise DeviceUnavailableError(
            f"cannot use context {ctx}: no GPU is available (CuPy is not installed or finds "
            f"no device); install minimx[gpu] on a machine with an NVIDIA GPU, or use mx.cpu()")
    if ctx.device_id >= count:
        raise DeviceUnavailableError(
            f"cannot use context {ctx}: only {count} GPU(s) present (gpu(0)..gpu({count - 1}))")


@contextlib.contextmanager
def device_scope(ctx):
    """Make ``ctx``'s device current while arrays are allocated and computed."""
    if ctx.device_type != "gpu" or (_gpu_is_stand_in and _gpu_module is numpy):
        yield
        return
    if _gpu_is_stand_in:
        _check_gpu(ctx)
        with use_device(ctx.device_id):
            yield
        return
    _check_gpu(ctx)
    with _gpu_module.cuda.Device(ctx.device_id):
        yield


def to_numpy(array):
    """Copy a backend array to a new numpy array on the host."""
    if isinstance(array, numpy.ndarray):
        return array.copy()
    if isinstance(array, numpy.generic):
        return numpy.array(array)
    return array.get()


def from_numpy(array, ctx):
    """Copy a host (or other-device) array onto ``ctx``."""
    if ctx.device_type != "gpu":
        if not isinstance(array, numpy.ndarray):
            array = to_numpy(array)
        return numpy.array(array, copy=True, order="C")
    with device_scope(ctx):
        return get_xp(ctx).array(array, copy=True, order="C")


def make_rng(ctx, seed):
    """A random generator on ``ctx``'s device, seeded with ``seed``."""
    xp = get_xp(ctx)
    with device_scope(ctx):
        return xp.random.default_rng(seed)


def empty_cache(ctx):
    if ctx.device_type == "gpu" and not _gpu_is_stand_in and num_gpus():
        _gpu_module.get_default_memory_pool().free_all_blocks()


def use_stand_in_gpu(num_devices, strict=True):
    """Make ``mx.gpu(i)`` for ``i < num_devices`` run on numpy (for tests).

    ``strict`` (the default) gives the device arrays a type of their own that refuses what
    CuPy refuses (``backend_standin``); ``strict=False`` gives plain numpy arrays.  Pass 0
    to undo it.  Returns nothing; affects the whole process.
    """
    global _gpu_module, _gpu_count, _gpu_is_stand_in
    if num_devices:
        module = STAND_IN if strict else numpy
        _gpu_module, _gpu_count, _gpu_is_stand_in = module, num_devices, True
    else:
        _gpu_module, _gpu_count, _gpu_is_stand_in = None, None, False


@contextlib.contextmanager
def stand_in_gpus(num_devices, strict=True):
    """``use_stand_in_gpu`` for the ``with`` block; the devices before it come back after."""
    global _gpu_module, _gpu_count, _gpu_is_stand_in
    saved = _gpu_module, _gpu_count, _gpu_is_stand_in
    use_stand_in_gpu(num_devices, strict)
    try:
        yield
    finally:
        _gpu_module, _gpu_count, _gpu_is_stand_in = saved
