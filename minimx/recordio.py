"""RecordIO: MXNet's packed file of records (``.rec``), with an optional ``.idx`` index.

Lesson: 11-data. A record is ``magic, lrec, payload, zero padding to 4 bytes``; ``lrec``
holds a 3-bit continuation flag and a 29-bit length. A payload that contains the magic
number at a 4-byte boundary is split there into parts (flags 1, 2, 3) so that a reader
can always resynchronise on the magic. Image records start with an ``IRHeader``.
Mirrors python/mxnet/recordio.py and dmlc-core's src/recordio.cc (byte-compatible).
"""
import numbers
import os
import struct
import threading
from collections import namedtuple

import numpy as np

from .base import FileFormatError, MXNetError

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img",
           "unpack_img"]

MAGIC = 0xCED7230A
MAGIC_BYTES = struct.pack("<I", MAGIC)
MAX_RECORD = 1 << 29
WHOLE, FIRST, MIDDLE, LAST = 0, 1, 2, 3


def encode_lrec(cflag, length):
    return (cflag << 29) | length


def pad4(length):
    return (length + 3) // 4 * 4


def decode_header(head, uri, pos):
    """``(cflag, length)`` from the 8 header bytes ``head`` read at byte ``pos`` of ``uri``."""
    if len(head) < 8:
        raise FileFormatError(f"Invalid RecordIO file {uri!r}: truncated record header at "
                              f"byte {pos}")
    magic, lrec = struct.unpack("<II", head)
    if magic != MAGIC:
        raise FileFormatError(f"Invalid RecordIO file {uri!r}: expected magic "
                              f"0x{MAGIC:x} at byte {pos}, found 0x{magic:x}")
    return lrec >> 29, lrec & (MAX_RECORD - 1)


def record_bytes(buf):
    """The bytes that ``buf`` takes in a ``.rec`` file (split at aligned magic numbers)."""
    if len(buf) >= MAX_RECORD:
        raise MXNetError(f"RecordIO: a record must be under 2**29 bytes, got {len(buf)}")
    parts = []
    start = 0
    for i in range(0, len(buf) // 4 * 4, 4):
        if buf[i:i + 4] == MAGIC_BYTES:
            flag = FIRST if start == 0 else MIDDLE
            parts.append(struct.pack("<II", MAGIC, encode_lrec(flag, i - start)))
            parts.append(buf[start:i])
            start = i + 4
    parts.append(struct.pack("<II", MAGIC, encode_lrec(LAST if start else WHOLE,
                                                       len(buf) - start)))
    parts.append(buf[start:])
    parts.append(b"\0" * (pad4(len(buf)) - len(buf)))
    return b"".join(parts)


class MXRecordIO:
    """Read or write a ``.rec`` file one record after another.

    Parameters
    ----------
    uri : str
        Path of the record file.
    flag : {'r', 'w'}

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "x.rec")
    >>> with MXRecordIO(path, "w") as rec:
    ...     rec.write(b"hello")
    >>> MXRecordIO(path, "r").read()
    b'hello'
    """

    def __init__(self, uri, flag):
        self.uri = os.fspath(uri)
        self.flag = flag
        self.is_open = False
        self.handle = None
        self.pid = None
        self.lock = threading.RLock()
        self.open()

    def open(self):
        """Open the file (``'w'`` truncates it)."""
        if self.flag not in ("r", "w"):
            raise ValueError(f"Invalid flag {self.flag!r}: expected 'r' or 'w'")
        self.writable = self.flag == "w"
        try:
            self.handle = open(self.uri, "wb" if self.writable else "rb")
        except OSError as err:
            raise MXNetError(f"RecordIO: cannot open {self.uri!r}: {err.strerror}") from err
        self.pid = os.getpid()
        self.is_open = True

    def close(self):
        """Close the file."""
        if self.is_open:
            self.handle.close()
            self.is_open = False

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getstate__(self):
        state = dict(self.__dict__)
        state["handle"] = None
        state["lock"] = None
        if self.is_open and self.writable:
            self.handle.flush()
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.lock = threading.RLock()
        was_open = state["is_open"]
        self.is_open = False
        if was_open:
            self.open()

    def reset(self):
        """Go back to the first record (for ``'w'``: truncate the file)."""
        self.close()
        self.open()

    def _check_pid(self, allow_reset):
        """A forked process shares the parent's file offset: a reader reopens the file."""
        if self.pid == os.getpid():
            return
        if not allow_reset:
            raise MXNetError(f"RecordIO: {self.uri!r} was opened for writing in process "
                             f"{self.pid}; process {os.getpid()} may not write to it")
        self.lock = threading.RLock()     # a lock held by another thread at fork stays held
        self.reset()

    def _check_open(self, writable):
        if not self.is_open:
            raise MXNetError(f"RecordIO: {self.uri!r} is closed")
        if self.writable != writable:
            raise MXNetError(f"RecordIO: {self.uri!r} is opened with flag {self.flag!r}")

    def write(self, buf):
        """Append one record (bytes)."""
        self._check_open(writable=True)
        self._check_pid(allow_reset=False)
        self.handle.write(record_bytes(bytes(buf)))

    def read(self):
        """The next record as bytes, or None at the end of the file."""
        self._check_open(writable=False)
        self._check_pid(allow_reset=True)
        with self.lock:     # threads sharing a reader must not interleave their reads
            return self._read_parts()

    def _read_parts(self):
        parts = []
        while True:
            start = self.handle.tell()
            head = self.handle.read(8)
            if not head and not parts:
                return None
            cflag, length = decode_header(head, self.uri, start)
            body = self.handle.read(pad4(length))
            if len(body) < pad4(length):
                raise FileFormatError(f"Invalid RecordIO file {self.uri!r}: the record at byte "
                                      f"{start} needs {length} bytes, only {len(body)} remain")
            parts.append(body[:length])
            if cflag in (WHOLE, LAST):
                return MAGIC_BYTES.join(parts)

    def tell(self):
        """The current byte position in the file (where the next record starts)."""
        if not self.is_open:
            raise MXNetError(f"RecordIO: {self.uri!r} is closed")
        if self.writable:
            self.handle.flush()
        return self.handle.tell()


class MXIndexedRecordIO(MXRecordIO):
    """A ``.rec`` file with a ``.idx`` index (``key<TAB>byte offset`` lines): random access.

    Parameters
    ----------
    idx_path : str
        Path of the index file.
    uri : str
        Path of the record file.
    flag : {'r', 'w'}
    key_type : type
        Type of the keys (int by default).
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = os.fspath(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for number, line in enumerate(self.fidx, 1):
                if not line.strip():
                    continue
                fields = line.strip().split("\t")
                try:
                    key, pos = self.key_type(fields[0]), int(fields[1])
                except (ValueError, IndexError) as err:
                    raise FileFormatError(f"Invalid index file {self.idx_path!r}, line "
                                          f"{number}: expected 'key<TAB>offset', got "
                                          f"{line.strip()!r}") from err
                self.idx[key] = pos
                self.keys.append(key)

    def close(self):
        if self.is_open:
            super().close()
            self.fidx.close()

    def __getstate__(self):
        state = super().__getstate__()
        if self.is_open and self.writable:
            self.fidx.flush()
        state["fidx"] = None
        return state

    def seek(self, idx):
        """Move the read position to the record with key ``idx``."""
        self._check_open(writable=False)
        self._check_pid(allow_reset=True)
        if idx not in self.idx:
            raise KeyError(f"MXIndexedRecordIO: no record with key {idx!r} in "
                           f"{self.idx_path!r}")
        self.handle.seek(self.idx[idx])

    def read_idx(self, idx):
        """The record with key ``idx`` (safe to call from several threads)."""
        self._check_open(writable=False)
        self._check_pid(allow_reset=True)
        if idx not in self.idx:
            self.seek(idx)                # raises the KeyError
        with self.lock:     # no other thread may move the file position between seek and read
            self.handle.seek(self.idx[idx])
            return self._read_parts()

    def write_idx(self, idx, buf):
        """Append a record under key ``idx``."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """Header of an image record: ``flag`` (number of float labels that follow
the header, 0 when ``label`` is one float), ``label``, ``id`` and ``id2`` (high bits of the id)."""
IR_FORMAT = "<IfQQ"
IR_SIZE = struct.calcsize(IR_FORMAT)


def pack(header, s):
    """Bytes of a record: the header, then (for array labels) the labels, then ``s``.

    Examples
    --------
    >>> unpack(pack(IRHeader(0, [1.0, 2.0], 7, 0), b"x"))[0].flag
    2
    """
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32).ravel()
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + bytes(s)
    return struct.pack(IR_FORMAT, *header) + bytes(s)


def unpack(s):
    """Split a record into its IRHeader (label: float, or float32 array) and payload."""
    if len(s) < IR_SIZE:
        raise FileFormatError(f"Invalid image record: {len(s)} bytes is shorter than the "
                              f"{IR_SIZE}-byte IRHeader")
    header = IRHeader(*struct.unpack(IR_FORMAT, s[:IR_SIZE]))
    s = s[IR_SIZE:]
    if header.flag > 0:
        if len(s) < 4 * header.flag:
            raise FileFormatError(f"Invalid image record: header announces {header.flag} "
                                  f"labels, only {len(s)} bytes follow")
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def unpack_img(s, iscolor=-1):
    """The IRHeader and the decoded image (numpy uint8, HWC in BGR order as OpenCV gives)."""
    from .image_codec import decode_array
    header, s = unpack(s)
    return header, decode_array(s, flag=iscolor, to_rgb=False)


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """Encode ``img`` (numpy HWC, BGR order as OpenCV uses) and pack it with ``header``."""
    from .image_codec import encode_array
    return pack(header, encode_array(img, quality=quality, img_fmt=img_fmt, from_rgb=False))
