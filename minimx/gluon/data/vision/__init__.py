"""``gluon.data.vision``: image datasets and transforms.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/data/vision/``.
"""
from .datasets import (CIFAR10, CIFAR100, MNIST, FashionMNIST, ImageFolderDataset,
                       ImageRecordDataset)
from . import datasets, transforms

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
           "ImageFolderDataset", "datasets", "transforms"]
