"""BatchProcessor: what ``Estimator`` does with one batch (override to customise).

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/contrib/estimator/batch_processor.py``.
"""
from .... import autograd

__all__ = ["BatchProcessor"]


class BatchProcessor:
    """``fit_batch`` (forward and backward on the training net) and ``evaluate_batch``
    (forward on the validation net); each returns ``(data, label, pred, loss)``, lists
    with one entry per device of ``estimator.context``."""

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        from ...utils import split_and_load
        return (split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis),
                split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis))

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for value in loss:
            value.backward()
        return data, label, pred, loss
