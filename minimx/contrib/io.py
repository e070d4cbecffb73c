"""``mx.contrib.io.DataLoaderIter``: a Gluon DataLoader as a DataIter for Module.

Lesson: 11-data.  Mirrors ``python/mxnet/contrib/io.py``.  Each batch of the loader is a
``(data, label)`` pair; the iterator hands them out as ``DataBatch``es named
``data_name``/``label_name``, cast to ``dtype``, and learns the shapes it provides from
the first batch.
"""
from .. import ndarray as nd
from ..io import DataBatch, DataDesc, DataIter

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """Iterate ``loader`` (a ``gluon.data.DataLoader``) as a DataIter.

    Parameters
    ----------
    loader : DataLoader
    data_name, label_name : str, default 'data', 'softmax_label'
    dtype : str, default 'float32'
    """

    def __init__(self, loader, data_name="data", label_name="softmax_label",
                 dtype="float32"):
        super().__init__()
        self._loader = loader
        self._iter = iter(loader)
        data, label = next(self._iter)
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current = None
        self.reset()

    def reset(self):
        self._iter = iter(self._loader)

    def iter_next(self):
        try:
            self._current = next(self._iter)
        except StopIteration:
            self._current = None
        return self._current is not None

    def next(self):
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad())
        raise StopIteration

    def _padded(self, array):
        """``array`` cast to ``dtype``; a short last batch ('keep') is filled up to the batch
        size with zeros, which ``getpad`` counts, as DataIters do."""
        array = nd.array(array).astype(self.dtype)
        if not self.getpad():
            return array
        full = nd.zeros((self.batch_size,) + array.shape[1:], dtype=self.dtype)
        full[:array.shape[0]] = array
        return full

    def getdata(self):
        return [self._padded(self._current[0])]

    def getlabel(self):
        return [self._padded(self._current[1])]

    def getpad(self):
        return self.batch_size - self._current[0].shape[0]

    def getindex(self):
        return None
