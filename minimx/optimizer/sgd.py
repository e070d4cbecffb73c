"""Stochastic gradient descent and its momentum variants: SGD, NAG, Signum, DCASGD, SGLD.

Lesson: 13-optimizers.  Mirrors the SGD-family classes of
``python/mxnet/optimizer/optimizer.py`` and the kernels they call in
``src/operator/optimizer_op-inl.h`` (``sgd_update``, ``sgd_mom_update``,
``nag_mom_update``, ``signum_update``), which the updates here call: one
engine push per weight.  SGD is also given lists of weights (an ``Updater``
hands it ``MXNET_OPTIMIZER_AGGREGATION_SIZE`` of them at a time, 4 unless set,
as MXNet's does): then one ``multi_sgd_update`` (``multi_sgd_mom_update``,
``multi_mp_...``) push updates them all, each exactly as its own push would.
Throughout, ``g = clip(rescale_grad * grad,
clip_gradient)``.  As in MXNet, the momentum of SGD and Signum accumulates the
*negative* step, and SGD/NAG order their multi-precision state as
``(momentum, float32 master copy)``.
"""
import math
import os

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "DCASGD", "SGLD", "Test"]


class _MasterCopyLast(Optimizer):
    """Optimizers whose multi-precision state is ``(state, master_copy)``, as MXNet's SGD/NAG.

    A float16 weight is updated by one ``mp_`` operator, which steps the float32
    master copy and writes it back in float16; a list of weights by one ``multi_``
    operator when the optimizer has them (``multi_ops``).
    """

    mp_momentum_op = None       # the mp_ operator with momentum (mp_sgd_update without)
    # the multi_ operators of an aggregated update, by (with momentum, with master copy);
    # None: a list of weights is updated one weight at a time
    multi_ops = None

    def create_state_multi_precision(self, index, weight):
        if self._uses_master_copy(weight):
            master_copy = weight.astype(np.float32)
            return (self.create_state(index, master_copy), master_copy)
        self._warn_float16(weight)
        return self.create_state(index, weight)

    def update_multi_precision(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)) and not all(
                array.stype == "default" for array in [*weight, *grad]):
            # as MXNet's: only dense weights are aggregated; with a sparse one each weight
            # takes its own step (a row_sparse gradient's lazy update)
            for one in zip(index, weight, grad, state):
                self.update_multi_precision(*one)
            return
        if isinstance(index, (list, tuple)) and self.multi_ops is not None:
            self._update_many(index, weight, grad, state, self._uses_master_copy(weight[0]))
            return
        if isinstance(index, (list, tuple)) or not self._uses_master_copy(weight):
            super().update_multi_precision(index, weight, grad, state)
            return
        if self.multi_ops is not None and weight.stype == "default" and grad.stype == "default":
            self._update_many([index], [weight], [grad], [state], multi_precision=True)
            return
        lr, wd = self._begin_update(index)
        mom, master_copy = state
        args = dict(lr=lr, wd=wd, **self._fused_args())
        if mom is None:
            nd.mp_sgd_update(weight, grad, master_copy, out=weight, **args)
        else:
            self.mp_momentum_op(weight, grad, mom, master_copy, out=weight,
                                momentum=self.momentum, **args)

    def _update_many(self, indices, weights, grads, states, multi_precision):
        """One ``multi_`` push for these weights (as MXNet's aggregated ``_update_impl``)."""
        if not weights:
            return
        self._update_count(list(indices))
        momentum = (states[0][0] if multi_precision else states[0]) is not None
        groups = zip(weights, grads, *(zip(*states) if multi_precision else (states,)))
        inputs = [array for group in groups for array in group if array is not None]
        # (tuples: hashable parameters let every step reuse one operator instance)
        args = dict(num_weights=len(weights), lrs=tuple(self._get_lrs(indices)),
                    wds=tuple(self._get_wds(indices)), **self._fused_args())
        if momentum:
            args["momentum"] = self.momentum
        self.multi_ops[momentum, multi_precision](*inputs, out=list(weights), **args)


def _aggregation_size():
    """How many weights an Updater hands to one update call: MXNET_OPTIMIZER_AGGREGATION_SIZE,
    4 unless set (MXNet's default); 0 turns aggregation off."""
    return int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4"))


@register
class SGD(_MasterCopyLast):
    """SGD with optional momentum and weight decay.

    Without momentum: ``weight = (1 - lr * wd) * weight - lr * g``.  With momentum::

        mom = momentum * mom - lr * wd * weight - lr * g
        weight = weight + mom

    Parameters
    ----------
    momentum : float
        The momentum (0: plain SGD, no state).
    lazy_update : bool
        With a row_sparse gradient (``Embedding(sparse_grad=True)``), update only the rows
        it holds, of the weight and of the state (``op/sparse_kernels.lazy_row_update``);
        False: every row, as with a dense gradient.
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = _aggregation_size()

    def create_state(self, index, weight):
        return self._zeros_like(weight) if self.momentum != 0.0 else None

    mp_momentum_op = staticmethod(nd.mp_sgd_mom_update)
    multi_ops = {(False, False): nd.multi_sgd_update, (True, False): nd.multi_sgd_mom_update,
                 (False, True): nd.multi_mp_sgd_update, (True, True): nd.multi_mp_sgd_mom_update}

    def update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            self._update_many(index, weight, grad, state, multi_precision=False)
            return
        if weight.stype == "default" and grad.stype == "default":
            # as MXNet's SGD: a dense weight goes through the multi_ kernel even alone
            # (``multi_sgd_update`` rounds differently from ``sgd_update`` where wd != 0)
            self._update_many([index], [weight], [grad], [state], multi_precision=False)
            return
        lr, wd = self._begin_update(index)
        args = dict(lr=lr, wd=wd, lazy_update=self.lazy_update, **self._fused_args())
        if state is None:
            nd.sgd_update(weight, grad, out=weight, **args)
        else:
            nd.sgd_mom_update(weight, grad, state, out=weight, momentum=self.momentum, **args)


@register
class ccSGD(SGD):  # noqa: N801  (MXNet's name)
    """Deprecated name of ``SGD``, kept for old scripts."""


@register
class NAG(_MasterCopyLast):
    """Nesterov accelerated gradient: step along the momentum looked one step ahead.

    With ``step = lr * (g + wd * weight)``::

        mom = momentum * mom - step
        weight = weight + momentum * mom - step

    except that, as in MXNet 1.9.1, the ``wd * weight`` term added to ``mom`` uses
    the weight already updated (MXNet's kernel writes the weight in place first).
    Without momentum it is plain SGD.
    """

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        return self._zeros_like(weight) if self.momentum != 0.0 else None

    mp_momentum_op = staticmethod(nd.mp_nag_mom_update)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        args = dict(lr=lr, wd=wd, **self._fused_args())
        if state is None:
            nd.sgd_update(weight, grad, out=weight, **args)
        else:
            nd.nag_mom_update(weight, grad, state, out=weight, momentum=self.momentum, **args)


@register
class Signum(Optimizer):
    """Signum: step by the sign of the momentum (signSGD when ``momentum`` is 0).

    With momentum::

        mom = momentum * mom - (1 - momentum) * (wd * weight + g)
        weight = (1 - lr * wd_lh) * weight + lr * sign(mom)

    Without: ``weight = (1 - lr * wd) * weight - lr * sign(grad)``.

    Parameters
    ----------
    momentum : float
        The momentum.
    wd_lh : float
        Decoupled weight decay (Loshchilov and Hutter), applied to the weight directly.
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        return self._zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        args = dict(lr=lr, wd=wd, **self._fused_args())
        if state is None:
            nd.signsgd_update(weight, grad, out=weight, **args)
        else:
            nd.signum_update(weight, grad, state, out=weight, momentum=self.momentum,
                             wd_lh=self.wd_lh, **args)


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD (Zheng et al., 2016).

    The gradient is corrected for the weight having moved since it was computed::

        step = -lr * (g + wd * weight + lamda * g * g * (weight - previous_weight))
        mom = momentum * mom + step        (when momentum is not 0; then step = mom)
        previous_weight = weight
        weight = weight + step
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        momentum = self._zeros_like(weight) if self.momentum != 0.0 else None
        return (momentum, weight.copy())

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        g = self._rescaled_grad(grad)
        mom, previous_weight = state
        delay_correction = self.lamda * g * g * (weight - previous_weight)
        step = -lr * (g + wd * weight + delay_correction)
        if mom is not None:
            mom[:] = self.momentum * mom + step
            step = mom
        previous_weight[:] = weight
        weight[:] = weight + step


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: half an SGD step plus Gaussian noise.

    ``weight = weight - lr / 2 * (g + wd * weight) + normal(0, sqrt(lr))``.
    """

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        g = self._rescaled_grad(grad)
        noise = nd.random.normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype,
                                 ctx=weight.context)
        weight[:] = weight - lr / 2 * (g + wd * weight) + noise


@register
class Test(Optimizer):
    """MXNet's test optimizer: ``weight += rescale_grad * grad``; the state copies the weight."""

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context)

    def update(self, index, weight, grad, state):
        weight[:] = weight + grad * self.rescale_grad
        state[:] = weight
