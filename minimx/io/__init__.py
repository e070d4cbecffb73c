"""mx.io: data iterators (DataIter, NDArrayIter, PrefetchingIter, record and image iterators).

Lesson: 11-data. Mirrors python/mxnet/io/.
"""
from .io import DataBatch, DataDesc, DataIter, ResizeIter
from .ndarray_iter import NDArrayIter
from .prefetch import PrefetchingIter
from .csv_iter import CSVIter, MNISTIter
from .image_record_iter import ImageRecordIter, ImageRecordUInt8Iter
from .image_det_record_iter import ImageDetRecordIter
from .libsvm import LibSVMIter

__all__ = ["DataBatch", "DataDesc", "DataIter", "ResizeIter", "NDArrayIter", "PrefetchingIter",
           "CSVIter", "MNISTIter", "ImageRecordIter", "ImageRecordUInt8Iter",
           "ImageDetRecordIter", "LibSVMIter"]
