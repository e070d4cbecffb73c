"""Large-batch SGD: LARS and LBSGD scale each layer's learning rate.

Lesson: 13-optimizers.  Mirrors the ``LARS`` and ``LBSGD`` classes of
``python/mxnet/optimizer/optimizer.py`` (MXNet 1.9.1).  Both are SGD with
momentum (they call ``sgd_update`` / ``sgd_mom_update`` and the ``mp_`` variants
for float16 weights with a master copy); what they add is the learning rate.

* LARS (You et al., 2017) gives each layer ``lr * eta * |w| / (rescale_grad * |grad|
  + wd * |w| + eps)``: the step is a fixed fraction of the weight's norm.  Names
  ending in ``gamma``, ``beta`` or ``bias`` keep the plain rate, and only names
  ending in ``_weight`` are decayed.  With an LR scheduler the momentum is scaled
  by ``lr_now / lr_before`` (``momentum_correction``, Goyal et al., 2017).
* LBSGD emulates a batch ``batch_scale`` times larger: it sums that many
  gradients and steps once with their mean (the updates in between leave the
  weight as it is), multiplying the rate by a warm-up factor that grows from 1 to
  ``batch_scale`` over ``warmup_epochs * updates_per_epoch`` updates, or (strategy
  ``'lars'``) by ``sqrt(|w|^2 / (|g|^2 + wd * |w|^2))`` clipped to [0.01, 100].
"""
import logging
import math

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, register
from .sgd import _MasterCopyLast

__all__ = ["LARS", "LBSGD"]

_NOT_SCALED = ("gamma", "beta", "bias")     # LARS leaves these names at the plain rate


def _sgd_step(weight, grad, momentum_state, master_copy, **args):
    """One MXNet SGD step: the fused operator that fits the state (momentum or not, with a
    float32 master copy or not)."""
    if master_copy is not None:
        if momentum_state is not None:
            nd.mp_sgd_mom_update(weight, grad, momentum_state, master_copy, out=weight, **args)
        else:
            args.pop("momentum", None)
            nd.mp_sgd_update(weight, grad, master_copy, out=weight, **args)
    elif momentum_state is not None:
        nd.sgd_mom_update(weight, grad, momentum_state, out=weight, **args)
    else:
        args.pop("momentum", None)
        nd.sgd_update(weight, grad, out=weight, **args)


def _sum_of_squares(array):
    """``sum(array ** 2)`` accumulated in float32, as MXNet's ``multi_sum_sq``."""
    values = array.asnumpy().astype(np.float32)
    return np.float32(np.sum(values * values, dtype=np.float32))


@register
class LARS(_MasterCopyLast):
    """Layer-wise adaptive rate scaling on top of SGD with momentum.

    A float16 weight with ``multi_precision`` keeps ``(momentum, float32 master copy)``,
    as SGD.

    Parameters
    ----------
    momentum : float
        The momentum (0: no state).
    lazy_update : bool
        With a row_sparse gradient, update only the rows it holds (as SGD's); False: every
        row, as with a dense gradient.
    eta : float
        The LARS coefficient: the step's size relative to the weight's norm.
    eps : float
        Added to the denominator of the layer's rate.
    momentum_correction : bool
        Scale the momentum by ``lr_now / lr_before`` when the rate changes.
    """

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        """The base rates, remembering the previous call's rate for the momentum correction."""
        lrs = super()._get_lrs(indices)
        self.last_lr = self.cur_lr
        self.cur_lr = self.lr_scheduler(self.num_update) if self.lr_scheduler else self.lr
        if self.last_lr is None:
            self.last_lr = self.cur_lr
        return lrs

    def set_wd_mult(self, args_wd_mult):
        """As the base class, except that only names ending in ``_weight`` are decayed."""
        self.wd_mult = {name: 0.0 for name in self.idx2name.values()
                        if not name.endswith("_weight")}
        self.wd_mult.update(self._multipliers_from_sym("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def create_state(self, index, weight):
        return self._zeros_like(weight) if self.momentum != 0.0 else None

    def _layer_lr(self, index, weight, grad, lr, wd):
        name = self.idx2name.get(index, str(index))
        if name.endswith(_NOT_SCALED):
            return lr
        w_norm = np.sqrt(_sum_of_squares(weight))
        g_sum_sq = _sum_of_squares(grad)
        if not (w_norm > 0 and g_sum_sq > 0):
            return lr
        f32 = np.float32
        denominator = np.sqrt(g_sum_sq) * f32(self.rescale_grad) + f32(wd) * w_norm + f32(self.eps)
        return float(f32(lr) * f32(self.eta) * w_norm / denominator)

    def _update_impl(self, indices, weights, grads, states, multi_precision):
        if not isinstance(indices, (list, tuple)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        self._update_count(indices)
        lrs, wds = self._get_lrs(indices), self._get_wds(indices)
        args = dict(self._fused_args(), lazy_update=self.lazy_update)
        if self.momentum > 0:
            correct = self.momentum_correction and self.last_lr != 0
            args["momentum"] = (self.momentum * (self.cur_lr / self.last_lr) if correct
                                else self.momentum)
        for index, weight, grad, state, lr, wd in zip(indices, weights, grads, states, lrs, wds):
            momentum_state, master_copy = state if multi_precision else (state, None)
            _sgd_step(weight, grad, momentum_state, master_copy,
                      lr=self._layer_lr(index, weight, grad, lr, wd), wd=wd, **args)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (list, tuple)) else weight
        self._update_impl(index, weight, grad, state,
                          multi_precision=self._uses_master_copy(first))


@register
class LBSGD(Optimizer):
    """Large-batch SGD: accumulate ``batch_scale`` gradients, then step with a warmed-up rate.

    Parameters
    ----------
    momentum : float
        The momentum (0: no state).
    multi_precision : bool
        Update float16 weights through a float32 master copy.
    warmup_strategy : str
        How the rate multiplier grows: ``'linear'``, ``'power2'``, ``'sqrt'``, or
        ``'lars'`` (the layer-wise ratio of norms instead of a schedule); any other
        value keeps it at 1 during the warm-up.
    warmup_epochs, updates_per_epoch : int
        The warm-up lasts ``warmup_epochs * updates_per_epoch`` updates.
    batch_scale : int
        How many gradients make one large batch, and the multiplier after warm-up.
    begin_epoch : int
        The epoch to start counting from.
    num_epochs : int
        Accepted and stored, as in MXNet (unused there too).
    """

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy="linear",
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0,
                 num_epochs=60, **kwargs):
        super().__init__(multi_precision=multi_precision, **kwargs)
        logging.info("Running Large-Batch SGD Algorithm")
        logging.info("(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, "
                     "updates_per_epoch=%d)", batch_scale, warmup_epochs, warmup_strategy,
                     updates_per_epoch)
        self.momentum = momentum
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}      # index -> {'cum_grad': summed gradient, 'num_cums': count}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        """The momentum; ``(momentum, master copy)`` when given a float16 weight directly
        with ``multi_precision`` on (``create_state_multi_precision`` passes the copy)."""
        momentum = None
        if self._uses_master_copy(weight):
            master_copy = weight.astype(np.float32)
            if self.momentum != 0.0:
                momentum = self._zeros_like(weight, dtype=np.float32)
            return (momentum, master_copy)
        self._warn_float16(weight)
        if self.momentum != 0.0:
            momentum = self._zeros_like(weight)
        return momentum

    def _get_lbmult(self, nup):
        """The warm-up multiplier after ``nup`` gradients: 1 rising to ``batch_scale``."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        progress = nup / nwup
        rise = {"linear": progress, "power2": progress * progress,
                "sqrt": math.sqrt(progress)}.get(self.warmup_strategy)
        return 1.0 if rise is None else 1.0 + (maxmult - 1) * rise

    def _get_lars(self, weight, g, wd):
        """``sqrt(|w|^2 / (|g|^2 + wd * |w|^2))`` clipped into [0.01, 100]."""
        weight2, grad2 = self._l2norm(weight), self._l2norm(g)
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def _l2norm(self, v):
        """The squared L2 norm (MXNet's name for it)."""
        return (v * v).asnumpy().sum()

    def _cumulate_gradient(self, grad, index):
        """Add ``grad`` to the index's sum; the count starts at ``begin_epoch``'s updates."""
        cgrad = self.cumgrads.get(index, {})
        if cgrad and cgrad["num_cums"] > 0:
            cgrad = {"cum_grad": cgrad["cum_grad"] + grad, "num_cums": cgrad["num_cums"] + 1}
        else:
            cgrad = {"cum_grad": grad, "num_cums": self.init_updates + 1}
        self.cumgrads[index] = cgrad
        return cgrad

    def update(self, index, weight, grad, state):
        lr, wd = self._get_lr(index), self._get_wd(index)      # read before counting, as MXNet
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad["num_cums"] % self.batch_scale != 0:
            # inside a large batch: MXNet runs an SGD step with rate 0 (the weight stays)
            nd.sgd_update(weight, grad, out=weight, lr=0.0, wd=wd)
            return
        grad = cgrad["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            lr *= self._get_lars(weight, grad, wd)
        else:
            lr *= self._get_lbmult(cgrad["num_cums"])
        args = dict(self._fused_args(), lr=lr, wd=wd)
        if self.momentum > 0:
            args["momentum"] = self.momentum
        momentum_state, master_copy = state if isinstance(state, (list, tuple)) else (state, None)
        _sgd_step(weight, grad, momentum_state, master_copy, **args)
        self.cumgrads[index]["cum_grad"] = 0
