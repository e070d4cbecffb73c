"""Adam and its relatives: moving averages of the gradient and of its square.

Lesson: 13-optimizers.  Mirrors ``Adam``, ``Adamax``, ``Nadam`` and ``LAMB`` in
``python/mxnet/optimizer/optimizer.py`` and the ``adam_update`` /
``lamb_update_phase1/2`` kernels of ``src/operator/optimizer_op-inl.h`` (Adam
calls the fused ``nd.adam_update``; the others use ``nd`` operations).  Each
keeps ``mean`` (first moment) and ``var`` (second moment) per weight; ``t`` is
the number of updates of that weight so far, used to correct the bias of the
averages towards their zero start.
"""
import math

from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["Adam", "Adamax", "Nadam", "LAMB"]


class _TwoMoments(Optimizer):
    """Optimizers whose state is ``(mean, var)``, both shaped like the weight."""

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))

    def _step_count(self, index):
        return self._index_update_count[index]


@register
class Adam(_TwoMoments):
    """Adam (Kingma and Ba, 2014).

    With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)`` at step ``t``::

        mean = beta1 * mean + (1 - beta1) * g
        var = beta2 * var + (1 - beta2) * g * g
        weight = weight - lr * sqrt(1 - beta2**t) / (1 - beta1**t) * mean / (sqrt(var) + epsilon)

    Parameters
    ----------
    beta1, beta2 : float
        Decay of the first and second moment averages.
    epsilon : float
        Added to the denominator.
    lazy_update : bool
        With a row_sparse gradient (``Embedding(sparse_grad=True)``), update only the rows
        it holds, of the weight and of the state (``op/sparse_kernels.lazy_row_update``);
        False: every row, as with a dense gradient.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._step_count(index)
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        mean, var = state
        nd.adam_update(weight, grad, mean, var, out=weight, lr=lr, wd=wd, beta1=self.beta1,
                       beta2=self.beta2, epsilon=self.epsilon, lazy_update=self.lazy_update,
                       **self._fused_args())


@register
class Adamax(_TwoMoments):
    """AdaMax: Adam with the infinity norm in place of the second moment.

    With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)``::

        mean = beta1 * mean + (1 - beta1) * g
        u = maximum(beta2 * u, abs(g))
        weight = weight - lr / (1 - beta1**t) * mean / u
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        lr /= 1.0 - self.beta1 ** self._step_count(index)
        g = self._clip(grad * self.rescale_grad + wd * weight)
        mean, u = state
        mean[:] = self.beta1 * mean + (1 - self.beta1) * g
        u[:] = nd.maximum(self.beta2 * u, nd.abs(g))
        weight[:] = weight - lr * mean / u


@register
class Nadam(_TwoMoments):
    """Nadam (Dozat, 2016): Adam with Nesterov momentum and a warming momentum schedule.

    The momentum at step ``t`` is ``mu_t = beta1 * (1 - 0.5 * 0.96**(t * schedule_decay))``
    and ``m_schedule`` is the running product of the ``mu_t``.  As in MXNet, that
    product lives on the optimizer, shared by all weights.  With
    ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)``::

        mean = beta1 * mean + (1 - beta1) * g
        var = beta2 * var + (1 - beta2) * g * g
        m_bar = (1 - mu_t) * g / (1 - m_schedule) + mu_{t+1} * mean / (1 - m_schedule * mu_{t+1})
        weight = weight - lr * m_bar / (sqrt(var / (1 - beta2**t)) + epsilon)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.0

    def _momentum_at(self, t):
        return self.beta1 * (1.0 - 0.5 * pow(0.96, t * self.schedule_decay))

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._step_count(index)
        g = self._clip(grad * self.rescale_grad + wd * weight)
        momentum_t, momentum_next = self._momentum_at(t), self._momentum_at(t + 1)
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_next
        mean, var = state
        mean[:] = self.beta1 * mean + (1 - self.beta1) * g
        var[:] = self.beta2 * var + (1 - self.beta2) * g * g
        g_hat = g / (1.0 - self.m_schedule)
        mean_hat = mean / (1.0 - m_schedule_next)
        var_hat = var / (1.0 - pow(self.beta2, t))
        m_bar = (1.0 - momentum_t) * g_hat + momentum_next * mean_hat
        weight[:] = weight - lr * m_bar / (nd.sqrt(var_hat) + self.epsilon)


@register
class LAMB(_TwoMoments):
    """LAMB (You et al., 2019): Adam's direction, scaled per layer by a trust ratio.

    With ``g = clip(rescale_grad * grad, clip_gradient)``::

        mean = beta1 * mean + (1 - beta1) * g
        var = beta2 * var + (1 - beta2) * g * g
        direction = mean_hat / (sqrt(var_hat) + epsilon) + wd * weight
        r1 = norm(weight) (bounded by lower_bound, upper_bound), r2 = norm(direction)
        weight = weight - lr * (r1 / r2 if both are non-zero else 1) * direction

    where ``mean_hat, var_hat`` are ``mean / (1 - beta1**t), var / (1 - beta2**t)``
    when ``bias_correction`` is on, else ``mean, var``.  With ``multi_precision``
    the float32 master copy is updated at every step; MXNet 1.9.1 leaves it at its
    initial value (its ``mp_lamb_update_phase2`` writes only the float16 weight).
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._step_count(index)
        g = self._rescaled_grad(grad)
        mean, var = state
        mean[:] = self.beta1 * mean + (1 - self.beta1) * g
        var[:] = self.beta2 * var + (1 - self.beta2) * nd.square(g)
        mean_hat, var_hat = mean, var
        if self.bias_correction:
            mean_hat = mean / (1.0 - self.beta1 ** t)
            var_hat = var / (1.0 - self.beta2 ** t)
        direction = mean_hat / (nd.sqrt(var_hat) + self.epsilon) + wd * weight
        weight[:] = weight - lr * self._trust_ratio(weight, direction) * direction

    def _trust_ratio(self, weight, direction):
        """``norm(weight) / norm(direction)`` as a shape-(1,) array; 1 if either norm is 0."""
        r1, r2 = nd.norm(weight), nd.norm(direction)
        if self.lower_bound:
            r1 = nd.maximum(r1, self.lower_bound)
        if self.upper_bound:
            r1 = nd.minimum(r1, self.upper_bound)
        ratio = r1 / (r2 + (r2 == 0))     # the added 1 only avoids dividing by zero
        return nd.where(r1 * r2 > 0, ratio, nd.ones_like(ratio))
