"""``gluon.data``: datasets, samplers, the DataLoader, and vision datasets/transforms.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/data/``.
"""
from .dataset import ArrayDataset, Dataset, RecordFileDataset, SimpleDataset
from .sampler import BatchSampler, FilterSampler, RandomSampler, Sampler, SequentialSampler
from .dataloader import DataLoader, default_batchify_fn, default_mp_batchify_fn
from . import dataloader, dataset, sampler, vision  # noqa: F401  (MXNet's module paths)

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset", "Sampler",
           "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler", "DataLoader",
           "default_batchify_fn", "default_mp_batchify_fn", "vision"]
