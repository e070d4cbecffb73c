"""LibSVMIter: batches of a LibSVM text file as CSR arrays.

Lesson: 11-data (and 13-optimizers, sparse gradients).  Mirrors ``src/io/iter_libsvm.cc``.

Each line of a LibSVM file is ``label index:value index:value ...`` with zero-based column
indices; the features of a batch become one ``CSRNDArray`` (``batch_size`` x
``data_shape[0]``), the labels a dense array -- or a CSR one read from ``label_libsvm``.  As
MXNet's (``round_batch``), the last batch of an epoch is completed with rows from the
start (``pad`` says how many), and the next epoch starts after the rows so borrowed.
Batches are on the CPU whatever the current context, as MXNet's iterators' are (and sparse
storage lives there: ``sparse_array.check_host_context``).
"""
import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..context import cpu
from ..op.sparse_kernels import csr_rows
from ..op.sparse_values import csr
from .io import DataBatch, DataDesc, DataIter

__all__ = ["LibSVMIter", "read_libsvm"]


def read_libsvm(path, width):
    """``(labels, CSR value)`` of a LibSVM file whose rows have ``width`` columns."""
    labels, data, indices, indptr = [], [], [], [0]
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            labels.append(float(fields[0]))
            for field in fields[1:]:
                column, _, value = field.partition(":")
                if not value or not 0 <= int(column) < width:
                    raise MXNetError(f"LibSVMIter: {path}, line {number}: expected "
                                     f"index:value with index in [0, {width}), got {field!r}")
                indices.append(int(column))
                data.append(float(value))
            indptr.append(len(indices))
    matrix = csr(np.asarray(data, np.float32), indices, indptr, (len(labels), width))
    return np.asarray(labels, np.float32), matrix


class LibSVMIter(DataIter):
    """Iterate over a LibSVM file in CSR batches (see the module docstring)."""

    def __init__(self, data_libsvm, data_shape, batch_size, label_libsvm=None,
                 label_shape=(1,), num_parts=1, part_index=0, round_batch=True,
                 data_name="data", label_name="softmax_label", **kwargs):
        super().__init__(batch_size)
        self._width = int(tuple(data_shape)[0])
        labels, self._data = read_libsvm(data_libsvm, self._width)
        self._labels = labels
        self._label_csr = None
        if label_libsvm not in (None, "NULL"):
            self._label_csr = read_libsvm(label_libsvm, int(tuple(label_shape)[0]))[1]
        rows = np.array_split(np.arange(self._data.shape[0]), num_parts)[part_index]
        self._rows = rows
        self._round_batch = round_batch
        label_shape = (batch_size,) + (tuple(label_shape) if self._label_csr is not None
                                       and tuple(label_shape) != (1,) else ())
        self.provide_data = [DataDesc(data_name, (batch_size, self._width), np.float32)]
        self.provide_label = [DataDesc(label_name, label_shape, np.float32)]
        self._start = 0
        self._cursor = 0
        self._batch = None

    def reset(self):
        self._cursor = self._start

    def iter_next(self):
        count = len(self._rows)
        if self._cursor >= count:
            return False
        take = self._rows[self._cursor:self._cursor + self.batch_size]
        pad = self.batch_size - len(take)
        if pad and not self._round_batch:
            return False
        if pad:                     # round_batch: borrow rows from the start
            take = np.concatenate([take, self._rows[:pad]])
            self._start = pad
        self._cursor += self.batch_size
        data = nd.sparse.csr_matrix(_gather_rows(self._data, take), ctx=cpu())
        if self._label_csr is not None:
            label = nd.sparse.csr_matrix(_gather_rows(self._label_csr, take), ctx=cpu())
        else:
            label = nd.array(self._labels[take], ctx=cpu())
        self._batch = (data, label, take, pad)
        return True

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data, label, take, pad = self._batch
        return DataBatch([data], [label], pad=pad, index=np.asarray(take),
                         provide_data=self.provide_data, provide_label=self.provide_label)

    def getdata(self):
        """The current batch's features (a CSRNDArray)."""
        return self._batch[0] if self._batch else None

    def getlabel(self):
        return self._batch[1] if self._batch else None

    def getindex(self):
        return np.asarray(self._batch[2]) if self._batch else None

    def getpad(self):
        return self._batch[3] if self._batch else 0


def _gather_rows(matrix, rows):
    """The CSR rows ``rows`` (in that order) of ``matrix``, as one scipy CSR matrix."""
    if len(rows) and np.all(np.diff(rows) == 1):
        return csr_rows(matrix, int(rows[0]), int(rows[-1]) + 1)
    return matrix[rows]
