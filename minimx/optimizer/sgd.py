"""Stochastic gradient descent and its momentum variants: SGD, NAG, Signum, DCASGD, SGLD.

Lesson: 12-optimizers.  Mirrors the SGD-family classes of
``python/mxnet/optimizer/optimizer.py`` and the kernels they call in
``src/operator/optimizer_op-inl.h`` (``sgd_update``, ``sgd_mom_update``,
``nag_mom_update``, ``signum_update``), written here as ``nd`` operations.
Throughout, ``g = clip(rescale_grad * grad, clip_gradient)``.  As in MXNet,
the momentum of SGD and Signum accumulates the *negative* step, and SGD/NAG
order their multi-precision state as ``(momentum, float32 master copy)``.
"""
import math

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "DCASGD", "SGLD", "Test"]


class _MasterCopyLast(Optimizer):
    """Optimizers whose multi-precision state is ``(state, master_copy)``, as MXNet's SGD/NAG."""

    def create_state_multi_precision(self, index, weight):
        if self._uses_master_copy(weight):
            master_copy = weight.astype(np.float32)
            return (self.create_state(index, master_copy), master_copy)
        self._warn_float16(weight)
        return self.create_state(index, weight)

    def update_multi_precision(self, index, weight, grad, state):
        if not isinstance(index, (list, tuple)) and self._uses_master_copy(weight):
            inner_state, master_copy = state
            state = (master_copy, inner_state)
        super().update_multi_precision(index, weight, grad, state)


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
        Accepted for compatibility; minimx's arrays are dense, so it changes nothing.
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return self._zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        g = self._rescaled_grad(grad)
        if state is None:
            weight[:] = (1 - lr * wd) * weight - lr * g
        else:
            state[:] = self.momentum * state - lr * wd * weight - lr * g
            weight[:] = weight + state


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

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        g = self._rescaled_grad(grad)
        step = lr * (g + wd * weight)
        if state is None:
            weight[:] = weight - step
            return
        state[:] = self.momentum * state
        weight[:] = weight + self.momentum * (state - step) - step
        state[:] = state - lr * (g + wd * weight)       # the updated weight, as in MXNet


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
        if state is None:
            weight[:] = (1 - lr * wd) * weight - lr * nd.sign(grad)
            return
        g = self._rescaled_grad(grad)
        state[:] = self.momentum * state - (1 - self.momentum) * (wd * weight + g)
        weight[:] = (1 - lr * self.wd_lh) * weight + lr * nd.sign(state)


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
