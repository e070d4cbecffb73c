"""``mx.gluon.contrib.estimator``: ``Estimator.fit`` and the event handlers that drive it.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/contrib/estimator/``.  The training loop
of every Gluon program (forward under ``autograd.record``, backward, ``trainer.step``,
metrics, logging, validation, checkpoints, stopping) written once: the loop only raises
six events (train/epoch/batch begin and end) and *handlers* do the rest.  A handler is
any object of the mixin classes whose events it wants; they run in ``priority`` order
(lowest first), and a ``batch_end``/``epoch_end`` that returns True stops the loop.
"""
from . import event_handler
from .batch_processor import BatchProcessor
from .estimator import Estimator
from .event_handler import (BatchBegin, BatchEnd, CheckpointHandler, EarlyStoppingHandler,
                            EpochBegin, EpochEnd, EventHandler, GradientUpdateHandler,
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin,
                            TrainEnd, ValidationHandler)

__all__ = ["Estimator", "BatchProcessor", "event_handler"] + event_handler.__all__
