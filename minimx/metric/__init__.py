"""``mx.metric``: evaluation metrics, updated batch by batch during training.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/metric.py``: ``EvalMetric`` (base.py),
the classification, regression and likelihood metrics, and ``create`` with
``CompositeEvalMetric`` and ``CustomMetric`` (composite.py).  Metrics register
by lower-case class name and aliases (``'acc'``, ``'ce'``, ``'top_k_accuracy'``)
through ``minimx.registry``; ``mx.metric.register`` adds your own.
"""
from .base import EvalMetric, alias, check_label_shapes, register
from .classification import F1, MCC, PCC, Accuracy, TopKAccuracy
from .regression import MAE, MSE, RMSE, PearsonCorrelation
from .loss import Caffe, CrossEntropy, Loss, NegativeLogLikelihood, Perplexity, Torch
from .composite import CompositeEvalMetric, CustomMetric, create, np

__all__ = ["EvalMetric", "register", "alias", "create", "check_label_shapes",
           "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "PCC",
           "MAE", "MSE", "RMSE", "PearsonCorrelation", "CrossEntropy",
           "NegativeLogLikelihood", "Perplexity", "Loss", "Torch", "Caffe",
           "CustomMetric", "np"]
