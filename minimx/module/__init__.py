"""``mx.mod``: the Module API, training a Symbol with ``fit``/``score``/``predict``.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/module/``: ``BaseModule`` (the
training loop), ``Module`` (one Symbol on one or several devices, through a
``DataParallelExecutorGroup``), ``BucketingModule`` (one Symbol per sequence
length, parameters shared) and ``SequentialModule`` (modules chained).
"""
from .base_module import BaseModule
from .executor_group import DataParallelExecutorGroup
from .module import Module
from .bucketing_module import BucketingModule
from .sequential_module import SequentialModule

__all__ = ["BaseModule", "Module", "BucketingModule", "SequentialModule",
           "DataParallelExecutorGroup"]
