"""BaseModule: the training loop (fit), evaluation (score) and inference (predict).

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/module/base_module.py``.  A module
goes through four states: created, bound (``bind``: shapes known, executors
and memory ready), parameters initialised (``init_params``), optimizer
installed (``init_optimizer``).  Subclasses (Module, BucketingModule,
SequentialModule) implement those steps and ``forward``/``backward``/
``update``; everything here is written only in terms of them.
"""
import logging
import time
import warnings

import numpy as np

from .. import metric
from .. import ndarray as nd
from ..base import MXNetError
from ..context import cpu
from ..initializer import Uniform
from ..io import DataBatch, DataDesc, DataIter
from ..model import BatchEndParam
from .progress import EpochProgress, wants_progress

__all__ = ["BaseModule"]


def _as_list(obj):
    """``obj`` as a list: lists and tuples as they are, anything else wrapped."""
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def check_input_names(symbol, names, typename, throw):
    """Every name in ``names`` must be an argument of ``symbol`` (else error or warning)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [arg for arg in args
                      if not arg.endswith(("_weight", "_bias", "_gamma", "_beta"))]
        message = (f"You created Module with Module(..., {typename}_names={list(names)}) but "
                   f"input with name '{name}' is not found in symbol.list_arguments(). "
                   f"Did you mean one of:\n\t" + "\n\t".join(candidates))
        if throw:
            raise ValueError(message)
        warnings.warn(message, stacklevel=3)


def _check_names_match(names, shapes, kind, throw):
    given = [desc[0] for desc in shapes]
    if sorted(names) != sorted(given):
        message = (f"Data provided by {kind}_shapes don't match names specified by "
                   f"{kind}_names ({shapes} vs. {list(names)})")
        if throw:
            raise ValueError(message)
        warnings.warn(message, stacklevel=4)


def parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """``(data_shapes, label_shapes)`` as DataDesc lists, checked against the names."""
    data_shapes = [d if isinstance(d, DataDesc) else DataDesc(*d) for d in data_shapes]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [d if isinstance(d, DataDesc) else DataDesc(*d) for d in label_shapes]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes


class BaseModule:
    """Base class of the modules; ``fit``, ``score`` and ``predict`` work on any of them.

    Parameters
    ----------
    logger : logging.Logger or the logging module
        Where ``fit`` writes its ``Epoch[%d] ...`` lines.
    """

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # -- high-level API --------------------------------------------------------------------
    def forward_backward(self, data_batch):
        """``forward(data_batch, is_train=True)`` then ``backward()``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run ``eval_data`` through the module and return ``eval_metric``'s name-value pairs.

        Examples
        --------
        >>> mod.score(val_iter, ['mse', 'acc'])           # doctest: +SKIP
        [('mse', 0.4), ('accuracy', 0.9)]
        """
        self._check_ready("score")
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            self._update_metric_from(eval_metric, eval_batch)
            _call_batch_callbacks(batch_end_callback, epoch, nbatch, eval_metric, locals())
            actual_num_batch += 1
        if score_end_callback:
            params = BatchEndParam(epoch, actual_num_batch, eval_metric, locals())
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_name_value()

    def _update_metric_from(self, eval_metric, batch):
        if isinstance(batch, list):
            self.update_metric(eval_metric, [b.label for b in batch], pre_sliced=True)
        else:
            self.update_metric(eval_metric, batch.label)

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield ``(outputs, nbatch, batch)`` per batch, the padding removed from outputs."""
        self._check_ready("iter_predict")
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield (outputs, nbatch, eval_batch)

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """The outputs over ``eval_data`` (a DataIter, or one NDArray / numpy batch).

        With ``merge_batches`` the batches are concatenated (padding removed); one
        output comes back as an NDArray unless ``always_output_list``.
        """
        self._check_ready("predict")
        if isinstance(eval_data, (nd.NDArray, np.ndarray)):
            self.forward(DataBatch([nd.array(eval_data) if isinstance(eval_data, np.ndarray)
                                    else eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise ValueError("eval_data must be of type NDArray or DataIter")
        output_list = [[out.copy() for out in outputs] for outputs, _, _ in
                       self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not output_list:
            return output_list
        if not merge_batches:
            return output_list
        num_outputs = len(output_list[0])
        if any(len(outputs) != num_outputs for outputs in output_list):
            raise MXNetError("Cannot merge batches, as num of outputs is not the same in "
                             "mini-batches. Maybe bucketing is used?")
        merged = [nd.concat(*[outputs[i] for outputs in output_list], dim=0)
                  for i in range(num_outputs)]
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None, progress="auto"):
        """Train on ``train_data`` for epochs ``begin_epoch`` to ``num_epoch - 1``.

        Binds, initialises parameters and the optimizer (each only if not done yet),
        then per batch: forward, backward, update, metric update and the
        ``batch_end_callback`` s with a ``BatchEndParam``.  After each epoch it logs
        ``Epoch[%d] Train-<metric>=%f`` and ``Epoch[%d] Time cost=%.3f``, calls each
        ``epoch_end_callback(epoch, symbol, arg_params, aux_params)``, and scores
        ``eval_data`` (``Epoch[%d] Validation-<metric>=%f``).  ``progress`` (a minimx
        addition): ``'auto'``, True or False, see ``minimx.module.progress``.
        """
        if num_epoch is None:
            raise ValueError("please specify number of epochs")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        show_progress, batches_per_epoch = wants_progress(progress), None
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            bar = EpochProgress(epoch, batches_per_epoch, self.logger) if show_progress \
                else None
            batches_per_epoch = self._fit_epoch(train_data, epoch, eval_metric,
                                                batch_end_callback, monitor, sparse_row_id_fn,
                                                bar)
            self._end_epoch(epoch, tic, eval_metric, epoch_end_callback)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    def _fit_epoch(self, train_data, epoch, eval_metric, batch_end_callback, monitor,
                   sparse_row_id_fn, bar):
        """One pass over ``train_data``; returns the number of batches.

        The next batch is fetched (and ``prepare``-d) before the callbacks run, so
        the callbacks of the last batch see the epoch's final metric.
        """
        data_iter = iter(train_data)
        next_data_batch = next(data_iter)
        nbatch, end_of_batch = 0, False
        while not end_of_batch:
            data_batch = next_data_batch
            if monitor is not None:
                monitor.tic()
            self.forward_backward(data_batch)
            self.update()
            self._update_metric_from(eval_metric, data_batch)
            try:
                next_data_batch = next(data_iter)
                self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
            except StopIteration:
                end_of_batch = True
            if monitor is not None:
                monitor.toc_print()
            if end_of_batch:
                self._epoch_name_vals = eval_metric.get_global_name_value()
            _call_batch_callbacks(batch_end_callback, epoch, nbatch, eval_metric, locals())
            if bar is not None:
                bar.update(eval_metric)
            nbatch += 1
        if bar is not None:
            bar.close()
        return nbatch

    def _end_epoch(self, epoch, tic, eval_metric, epoch_end_callback):
        for name, val in self._epoch_name_vals:
            self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
        self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
        # synchronise the devices' parameters (and the CPU copy the callbacks receive)
        arg_params, aux_params = self.get_params()
        self.set_params(arg_params, aux_params)
        if epoch_end_callback is not None:
            for callback in _as_list(epoch_end_callback):
                callback(epoch, self.symbol, arg_params, aux_params)

    def _check_ready(self, what):
        if not (self.binded and self.params_initialized):
            raise MXNetError(f"{what}: call bind() and init_params() first (bound: "
                             f"{self.binded}, parameters initialised: "
                             f"{self.params_initialized})")

    # -- symbol and shapes -----------------------------------------------------------------
    @property
    def symbol(self):
        """The Symbol of the module (for BucketingModule: the current bucket's)."""
        return self._symbol

    @property
    def data_names(self):
        raise NotImplementedError()

    @property
    def output_names(self):
        raise NotImplementedError()

    @property
    def data_shapes(self):
        raise NotImplementedError()

    @property
    def label_shapes(self):
        raise NotImplementedError()

    @property
    def output_shapes(self):
        raise NotImplementedError()

    # -- parameters --------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)``: dicts of name -> NDArray on the CPU."""
        raise NotImplementedError()

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        raise NotImplementedError()

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Assign parameter values (``init_params`` with these values and no initializer)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def _set_params_or_assign(self, assign, arg_params, aux_params, allow_missing,
                              force_init, allow_extra):
        """``set_params`` of Module and BucketingModule: without ``allow_missing`` it is
        ``init_params`` with no initializer; with it, ``assign()`` writes only what is
        given (skipped, with a warning, when already initialised and not ``force_init``)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "set_params call ignored.", stacklevel=3)
            return
        assign()
        self._params_dirty = True
        self.params_initialized = True

    def save_params(self, fname):
        """Write the parameters to ``fname`` as ``arg:name`` / ``aux:name`` (atomically)."""
        from ..model import _write_atomically
        from ..ndarray import utils as nd_utils
        arg_params, aux_params = self.get_params()
        named = [(f"arg:{k}", v) for k, v in arg_params.items()]
        named += [(f"aux:{k}", v) for k, v in aux_params.items()]
        payload = nd_utils.encode([v.as_in_context(cpu()) for _, v in named],
                                  [k for k, _ in named])
        _write_atomically(fname, payload)

    def load_params(self, fname):
        """Read parameters written by ``save_params`` (or MXNet) and assign them."""
        saved = nd.load(fname)
        arg_params, aux_params = {}, {}
        for key, value in (saved.items() if isinstance(saved, dict) else []):
            kind, _, name = key.partition(":")
            if kind == "arg":
                arg_params[name] = value
            elif kind == "aux":
                aux_params[name] = value
            else:
                raise ValueError(f"Invalid param file {fname}: entry {key!r} has no arg:/aux:")
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        """The state inputs' values (none in a module without ``state_names``)."""
        self._check_ready("get_states")
        return []

    def set_states(self, states=None, value=None):
        self._check_ready("set_states")

    def install_monitor(self, mon):
        raise NotImplementedError()

    # -- computation -------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Get ready for ``data_batch`` (BucketingModule switches bucket here)."""
        if sparse_row_id_fn is not None:
            warnings.warn("sparse_row_id_fn is not invoked for BaseModule.", stacklevel=2)

    def forward(self, data_batch, is_train=None):
        raise NotImplementedError()

    def backward(self, out_grads=None):
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context=True):
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context=True):
        raise NotImplementedError()

    def update(self):
        raise NotImplementedError()

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        raise NotImplementedError()

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        raise NotImplementedError()


def _call_batch_callbacks(callbacks, epoch, nbatch, eval_metric, local_vars):
    if callbacks is None:
        return
    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                           locals=local_vars)
    for callback in _as_list(callbacks):
        callback(params)
