"""Where the records of a ``.rec`` file start, and which of them a worker reads.

Lesson: 11-data. A record iterator first lists the byte offset of every record (from the
``.idx`` file, or by hopping from header to header), then keeps its own part: with
``num_parts`` workers, part ``i`` holds the records that start in the i-th equal slice of
the file's bytes, as dmlc's InputSplit cuts files. Threads read records by offset, each
through its own file handle.
Mirrors dmlc-core's src/io/input_split_base.cc (partitioning) and recordio_split.cc.
"""
import os
import threading

from ..base import FileFormatError, MXNetError
from ..recordio import MXRecordIO, decode_header, pad4

__all__ = ["RecordSource"]


def scan_offsets(path):
    """Byte offsets of the records of ``path`` (multi-part records count once)."""
    offsets = []
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        pos = 0
        continuing = False
        while pos < size:
            cflag, length = decode_header(handle.read(8), path, pos)
            if not continuing:
                offsets.append(pos)
            continuing = cflag in (1, 2)
            pos += 8 + pad4(length)
            handle.seek(pos)
    return offsets


def read_index(path):
    """Offsets listed in a ``.idx`` file, in file order."""
    offsets = []
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    offsets.append(int(line.split("\t")[1]))
                except (IndexError, ValueError) as err:
                    raise FileFormatError(f"Invalid index file {path!r}, line {number}: "
                                          f"{line.strip()!r}") from err
    return sorted(offsets)


def shard(offsets, total_size, num_parts, part_index):
    """The offsets in part ``part_index`` of ``num_parts`` equal, 4-byte aligned byte slices."""
    if not 0 <= part_index < num_parts:
        raise MXNetError(f"part_index must be in [0, num_parts={num_parts}), got {part_index}")
    step = (total_size + num_parts - 1) // num_parts
    step = (step + 3) // 4 * 4
    begin, end = step * part_index, step * (part_index + 1)
    return [offset for offset in offsets if begin <= offset < end]


class RecordSource:
    """The records of one ``.rec`` file (one shard of it), readable from many threads."""

    def __init__(self, path_imgrec, path_imgidx="", num_parts=1, part_index=0):
        if not path_imgrec:
            raise MXNetError("ImageRecordIter: path_imgrec must name a .rec file")
        if not os.path.exists(path_imgrec):
            raise MXNetError(f"ImageRecordIter: no such file {path_imgrec!r}")
        self.path = path_imgrec
        offsets = read_index(path_imgidx) if path_imgidx else scan_offsets(path_imgrec)
        self.offsets = shard(offsets, os.path.getsize(path_imgrec), num_parts, part_index)
        if not self.offsets:
            raise MXNetError(f"ImageRecordIter: part {part_index} of {num_parts} of "
                             f"{path_imgrec!r} holds no record")
        self.local = threading.local()

    def __len__(self):
        return len(self.offsets)

    def read(self, i):
        """The bytes of record number ``i`` of this shard."""
        reader = getattr(self.local, "reader", None)
        if reader is None:
            reader = self.local.reader = MXRecordIO(self.path, "r")
        reader.handle.seek(self.offsets[i])
        return reader.read()
