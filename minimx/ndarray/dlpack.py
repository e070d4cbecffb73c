"""DLPack: handing an NDArray's buffer to another library without a copy, and back.

Lesson: 02-ndarray-and-context.  Mirrors ``to_dlpack_for_read``, ``to_dlpack_for_write``
and ``from_dlpack`` of ``python/mxnet/ndarray/ndarray.py``.  DLPack is a small C struct
(pointer, shape, strides, dtype, device) that numpy, CuPy, PyTorch and MXNet all read and
write; it travels in a ``PyCapsule`` named ``"dltensor"``, which the consumer renames
``"used_dltensor"`` so it can be consumed only once.  The buffers here are numpy (or CuPy)
arrays, which speak DLPack themselves (``__dlpack__`` / ``from_dlpack``); ``from_dlpack``
reads host (CPU) tensors.

The engine does not see the other library's reads and writes: ``for_read`` waits for the
pending writes of the array (its value is then final), ``for_write`` for every pending
read and write (as ``WaitToWrite``); after that, ordering is the caller's business, as in
MXNet.  An NDArray made by ``from_dlpack`` shares the memory but has its own engine var.
"""
import ctypes

import numpy as np

from .. import engine
from ..context import cpu
from .ndarray import Chunk, NDArray

__all__ = ["to_dlpack_for_read", "to_dlpack_for_write", "from_dlpack"]

_CAPSULE_IS_VALID = ctypes.pythonapi.PyCapsule_IsValid
_CAPSULE_IS_VALID.argtypes = (ctypes.py_object, ctypes.c_char_p)
_CAPSULE_IS_VALID.restype = ctypes.c_int
_DEVICE_CPU = 1                           # DLPack's device type code of the host


def _capsule(data):
    data._chunk.pinned = True             # shared from now on: writes go into this memory
    buffer = data._read()
    if not buffer.flags.c_contiguous:     # a view: DLPack needs the memory as it is laid out
        raise ValueError("to_dlpack: the array must be contiguous (got a strided view)")
    return buffer.__dlpack__()


def to_dlpack_for_read(data):
    """A ``"dltensor"`` capsule over ``data``'s buffer, once its pending writes are done."""
    data.wait_to_read()
    engine.raise_if_no_value(data._chunk.var)
    return _capsule(data)


def to_dlpack_for_write(data):
    """A ``"dltensor"`` capsule over ``data``'s buffer, once every pending read and write of
    it is done (the other library may then write into it)."""
    # an empty operation that writes the var runs after everything queued on it
    engine.push(lambda: None, [], [data._chunk.var], data.context, name="wait_to_write")
    data.wait_to_read()
    engine.raise_if_no_value(data._chunk.var)
    return _capsule(data)


class _Producer:
    """A capsule dressed as a DLPack producer, for the ``from_dlpack`` of numpy/CuPy."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


class _WritableView:
    """numpy marks an array read from a foreign capsule read-only (DLPack carries no such
    flag); MXNet's shares the memory both ways.  This holder presents the same memory as
    writable through ``__array_interface__`` and keeps the imported array alive."""

    def __init__(self, imported):
        self.imported = imported
        interface = dict(imported.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface


def from_dlpack(dlpack):
    """An NDArray over the memory of a ``"dltensor"`` capsule (consumed: a capsule can be
    read once, as MXNet's)."""
    if type(dlpack).__name__ != "PyCapsule" or not _CAPSULE_IS_VALID(dlpack, b"dltensor"):
        raise AssertionError("from_dlpack: invalid DLPack tensor (expected an unused "
                             "'dltensor' capsule; a capsule can be consumed only once), got "
                             f"{type(dlpack).__name__}")
    try:
        imported = np.from_dlpack(_Producer(dlpack, (_DEVICE_CPU, 0)))
    except BufferError as error:
        raise ValueError(f"from_dlpack: only CPU tensors are read ({error})") from None
    buffer = np.asarray(_WritableView(imported)) if not imported.flags.writeable else imported
    return NDArray(Chunk(cpu(), buffer, pinned=True), buffer.shape, buffer.dtype)
