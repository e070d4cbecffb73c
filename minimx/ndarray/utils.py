"""``nd.save`` / ``nd.load``: MXNet 1.x's binary NDArray list format, read and written.

Lesson: 02-ndarray-and-context.  Mirrors ``python/mxnet/ndarray/utils.py`` and the file
layout of ``NDArray::Save``/``Load`` in ``src/ndarray/ndarray.cc``, so files
move both ways between MXNet 1.x and minimx.  All numbers are little-endian::

    file   := uint64 0x112, uint64 0 (reserved),
              uint64 n, n x array, uint64 m (0 or n), m x (uint64 length, utf-8 name)
    array  := uint32 magic 0xF993FAC9 (V2) or 0xF993FACA (V3, numpy shape semantics),
              int32 storage type (0: dense), shape, int32 dev_type, int32 dev_id,
              int32 dtype flag, the elements in C order
    shape  := int32 ndim, ndim x int64

Older files are read too: V1 (magic 0xF993FAC8, no storage type) and V0 (no
magic: the first uint32 is ndim, then uint32 dims).  Parsing uses ``struct``
and ``numpy.frombuffer`` only, and every size is checked against the bytes left
before anything is allocated: nothing read from a file is unpickled or evaluated.
"""
import os
import struct

import numpy as np

from ..base import DTYPE_TO_FLAG, FLAG_TO_DTYPE, FileFormatError, MXNetError, ShapeSemanticsError
from ..context import Context, cpu
from ..util import is_np_shape, np_shape
from .. import backend
from .creation import array
from .ndarray import NDArray

__all__ = ["save", "load", "load_frombuffer"]

LIST_MAGIC = 0x112
V0_MAX_NDIM = 32                 # a first word up to this is an old-style ndim, not a magic
V1_MAGIC, V2_MAGIC, V3_MAGIC = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
STORAGE_NAMES = {0: "default", 1: "row_sparse", 2: "csr"}


# -- writing ----------------------------------------------------------------------------------
def save(fname, data):
    """Save an NDArray, a list of NDArrays or a dict str -> NDArray to ``fname``.

    MXNet 1.x reads the file with ``mx.nd.load``.  A dict keeps its names; a
    list (or one array) is saved without names.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.nd")
    >>> nd.save(path, {"w": nd.ones((2,))})
    >>> nd.load(path)["w"].asnumpy()
    array([1., 1.], dtype=float32)
    """
    arrays, names = _arrays_and_names(data)
    payload = encode(arrays, names)
    fname = os.fspath(fname)
    folder = os.path.dirname(os.path.abspath(fname))
    if not os.path.isdir(folder):
        raise MXNetError(f"cannot save to {fname!r}: the directory {folder!r} does not exist")
    try:
        with open(fname, "wb") as stream:
            stream.write(payload)
    except OSError as error:
        raise MXNetError(f"cannot save to {fname!r}: {error.strerror or error}") from error


def _arrays_and_names(data):
    if isinstance(data, NDArray):
        return [data], []
    if isinstance(data, dict):
        if not all(isinstance(k, str) and isinstance(v, NDArray) for k, v in data.items()):
            raise TypeError("save only accept dict str->NDArray or list of NDArray")
        return list(data.values()), list(data.keys())
    if isinstance(data, (list, tuple)):
        if not all(isinstance(item, NDArray) for item in data):
            raise TypeError("save only accept dict str->NDArray or list of NDArray")
        return list(data), []
    raise ValueError("data needs to either be a NDArray, dict of str, NDArray pairs or a list "
                     f"of NDArrays, got {type(data).__name__}")


def encode(arrays, names=()):
    """The bytes of a file holding ``arrays`` (NDArrays) and their ``names``.

    Arrays are written as V2, as MXNet 1.x does by default, or as V3 under
    ``mx.np_shape()``: the file says in which shape semantics it was saved, and
    ``load`` (MXNet's too) reads it only in the same ones.
    """
    values = [(x.asnumpy(), x.context) for x in arrays]
    magic = V3_MAGIC if is_np_shape() else V2_MAGIC
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(values))]
    for value, ctx in values:
        parts.append(_encode_array(value, ctx, magic))
    parts.append(struct.pack("<Q", len(names)))
    for name in names:
        encoded = name.encode("utf-8")
        parts.append(struct.pack("<Q", len(encoded)) + encoded)
    return b"".join(parts)


def encode_one(data):
    """The bytes of one NDArray as MXNet's ``MXNDArraySaveRawBytes`` writes them (its
    pickled state): the record of one array in a saved file, without the file's header."""
    return _encode_array(data.asnumpy(), data.context, V3_MAGIC if is_np_shape() else V2_MAGIC)


def decode_one(content):
    """The NDArray of ``encode_one``'s bytes (MXNet's ``MXNDArrayLoadFromRawBytes``), read
    under the shape semantics it was written with: minimx's NumPy mode is per thread, and a
    pickle crosses threads (a Pool's task thread writes what a worker's main thread reads),
    where MXNet's ``npx.set_np()`` holds for every thread."""
    content = bytes(content)
    written_np = content[:4] == struct.pack("<I", V3_MAGIC)
    reader = _Reader(content, "<pickled NDArray>")
    with np_shape(written_np):
        value = _read_array(reader, 0)
    if reader.offset != len(reader.content):
        raise reader.error(f"{len(reader.content) - reader.offset} bytes left after the array")
    return value


def _encode_array(value, ctx, magic):
    header = struct.pack("<IiI", magic, 0, value.ndim)
    shape = struct.pack(f"<{value.ndim}q", *value.shape)
    place = struct.pack("<iii", ctx.device_typeid, ctx.device_id, DTYPE_TO_FLAG[value.dtype])
    data = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<")).tobytes()
    return header + shape + place + data


# -- reading --------------------------------------------------------------------------------------
def load(fname):
    """Load the arrays saved in ``fname`` by ``nd.save`` or MXNet 1.x's ``mx.nd.save``.

    Returns a dict when the file holds names, otherwise a list (so an empty
    dict comes back as ``[]``, as in MXNet).  Arrays saved on a GPU come back
    on that GPU when it is present, else on ``cpu(0)``; others on ``cpu(0)``.
    """
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError(f"fname required to be a string or path, got {type(fname).__name__}")
    fname = os.fspath(fname)
    try:
        with open(fname, "rb") as stream:
            content = stream.read()
    except OSError as error:
        raise MXNetError(f"cannot load {fname!r}: {error.strerror or error}") from error
    return decode(content, fname)


def load_frombuffer(buf):
    """Load arrays from the bytes of a saved file (``bytes``, ``bytearray``, ``memoryview``)."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError(f"buf must be bytes, got {type(buf).__name__}")
    return decode(bytes(buf), "<buffer>")


def decode(content, source="<buffer>"):
    """Parse the bytes of a saved file; ``source`` names it in error messages."""
    reader = _Reader(content, source)
    magic = reader.scalar("<Q", "the file magic")
    if magic != LIST_MAGIC:
        raise reader.error(f"expected the NDArray file magic 0x{LIST_MAGIC:x}, "
                           f"found 0x{magic:x} (not an MXNet NDArray file)", at=0)
    reader.scalar("<Q", "the reserved field")
    count = reader.count(minimum_bytes=4, what="arrays")
    arrays = [_read_array(reader, index) for index in range(count)]
    name_count = reader.count(minimum_bytes=8, what="names")
    if name_count not in (0, count):
        raise reader.error(f"expected 0 or {count} names (one per array), found {name_count}")
    names = [reader.text(f"name {index}") for index in range(name_count)]
    if not names:
        return arrays
    return dict(zip(names, arrays))


def _read_array(reader, index):
    what = f"array {index}"
    start = reader.offset
    magic = reader.scalar("<I", f"the magic of {what}")
    if magic in (V2_MAGIC, V3_MAGIC):
        _check_semantics(reader, what, magic == V3_MAGIC, start)
        storage = reader.scalar("<i", f"the storage type of {what}")
        if storage != 0:
            kind = STORAGE_NAMES.get(storage, "unknown")
            raise reader.error(f"{what}: expected dense storage (0), found storage type "
                               f"{storage} ({kind}); minimx stores arrays densely, so convert "
                               f"with .tostype('default') in MXNet before saving", at=start)
        shape = _read_shape(reader, what)
    elif magic == V1_MAGIC:
        shape = _read_shape(reader, what)
    elif 0 < magic <= V0_MAX_NDIM:
        shape = reader.read(f"<{magic}I", f"the shape of {what}")
    else:
        raise reader.error(f"{what}: expected an NDArray magic (0x{V2_MAGIC:X} or "
                           f"0x{V3_MAGIC:X}), found 0x{magic:X}", at=start)
    dev_type, dev_id, flag = reader.read("<iii", f"the context and dtype of {what}")
    if dev_type not in Context.devtype2str:
        raise reader.error(f"{what}: expected a device type in "
                           f"{sorted(Context.devtype2str)}, found {dev_type}")
    if flag not in FLAG_TO_DTYPE:
        raise reader.error(f"{what}: expected a dtype flag in {sorted(FLAG_TO_DTYPE)}, "
                           f"found {flag}")
    dtype = FLAG_TO_DTYPE[flag]
    size = 1
    for dim in shape:
        size *= dim
    raw = reader.take(size * dtype.itemsize, f"the {size} {dtype.name} elements of {what}")
    value = np.frombuffer(raw, dtype=dtype.newbyteorder("<"), count=size).reshape(shape)
    return array(value.astype(dtype), ctx=_load_context(dev_type, dev_id), dtype=dtype)


def _check_semantics(reader, what, saved_np_shape, start):
    """A V3 array loads only under ``mx.np_shape()``, a V2 array only outside it (MXNet's
    rule: a 0 in a V2 shape meant "unknown", in V3 it is an empty axis)."""
    if saved_np_shape and not is_np_shape():
        raise reader.error(f"{what} was saved under numpy shape semantics (V3); load it "
                           f"inside `with mx.np_shape(True):`", at=start, kind=ShapeSemanticsError)
    if not saved_np_shape and is_np_shape():
        raise reader.error(f"{what} was saved under MXNet's legacy shape semantics (V2); "
                           f"load it outside mx.np_shape()", at=start, kind=ShapeSemanticsError)


def _read_shape(reader, what):
    # ndim 0 is a 0-d array holding one element: MXNet 1.9.1 writes 0-d arrays this way
    ndim = reader.scalar("<i", f"the ndim of {what}")
    if not 0 <= ndim <= V0_MAX_NDIM:
        raise reader.error(f"{what}: expected ndim between 0 and {V0_MAX_NDIM}, found {ndim}")
    shape = reader.read(f"<{ndim}q", f"the shape of {what}")
    if any(dim < 0 for dim in shape):
        raise reader.error(f"{what}: expected non-negative dimensions, found shape {shape}")
    return shape


def _load_context(dev_type, dev_id):
    """Where a loaded array lives: its GPU if that GPU is here, else cpu(0) (as MXNet)."""
    if Context.devtype2str[dev_type] == "gpu" and dev_id < backend.num_gpus():
        return Context("gpu", dev_id)
    return cpu(0)


class _Reader:
    """Reads little-endian values from ``content``; every short read is a FileFormatError."""

    def __init__(self, content, source):
        self.content = memoryview(content)
        self.source = source
        self.offset = 0

    def error(self, message, at=None, kind=FileFormatError):
        where = self.offset if at is None else at
        return kind(f"{self.source}: not a valid NDArray file (at byte {where}): "
                               f"{message}")

    def take(self, count, what):
        left = len(self.content) - self.offset
        if count > left:
            raise self.error(f"expected {count} bytes for {what}, found only {left} "
                             f"(the file is truncated or corrupt)")
        chunk = self.content[self.offset:self.offset + count]
        self.offset += count
        return chunk

    def read(self, layout, what):
        """A tuple of the values in ``layout`` (a ``struct`` format)."""
        return struct.unpack(layout, self.take(struct.calcsize(layout), what))

    def scalar(self, layout, what):
        return self.read(layout, what)[0]

    def count(self, minimum_bytes, what):
        """A uint64 count of items that each need at least ``minimum_bytes``."""
        value = self.scalar("<Q", f"the number of {what}")
        left = len(self.content) - self.offset
        if value * minimum_bytes > left:
            raise self.error(f"expected at most {left // minimum_bytes} {what} in the "
                             f"{left} bytes left, found a count of {value}")
        return value

    def text(self, what):
        length = self.count(minimum_bytes=1, what=f"bytes in {what}")
        raw = self.take(length, what)
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError as error:
            raise self.error(f"{what}: expected UTF-8 text ({error})") from None
