"""Per-coordinate adaptive rates from squared-gradient history: AdaGrad, RMSProp, AdaDelta.

Lesson: 13-optimizers.  Mirrors the classes of the same names in
``python/mxnet/optimizer/optimizer.py`` and the ``rmsprop_update`` /
``rmspropalex_update`` kernels of ``src/operator/optimizer_op-inl.h`` (RMSProp
calls them, fused).  Each keeps a running sum or average of ``g * g`` per
coordinate and divides the step by its square root, so coordinates with large
gradients take smaller steps.
"""
from .. import ndarray as nd
from ..base import MXNetError
from .optimizer import Optimizer, register

__all__ = ["AdaGrad", "RMSProp", "AdaDelta"]


@register
class AdaGrad(Optimizer):
    """AdaGrad (Duchi et al., 2011): divide by the root of all past squared gradients.

    With ``g = clip(rescale_grad * grad, clip_gradient)``::

        history = history + g * g
        weight = weight - lr * (g / sqrt(history + eps) + wd * weight)

    Parameters
    ----------
    eps : float
        Added under the square root, so the first steps do not divide by zero.
    """

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return self._zeros_like(weight)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        if grad.stype == "row_sparse" and wd != 0:
            raise MXNetError(f"adagrad_update: a row_sparse gradient needs wd=0 (MXNet's "
                             f"sparse AdaGrad has no weight decay), got wd={wd}")
        # (with wd=0 a row whose gradient is zero does not move: the dense steps below are
        # the lazy update)
        g = self._rescaled_grad(grad)
        history = state
        history[:] = history + nd.square(g)
        scaled = g / nd.sqrt(history + self.float_stable_eps)
        weight[:] = weight - lr * (scaled + wd * weight)


@register
class RMSProp(Optimizer):
    """RMSProp: divide by the root of a moving average of squared gradients.

    With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)``, the plain
    version (Tieleman and Hinton, 2012)::

        n = gamma1 * n + (1 - gamma1) * g * g
        weight = weight - lr * g / sqrt(n + epsilon)

    and the centered one (Graves, 2013), which also averages ``g`` and keeps a momentum::

        n = gamma1 * n + (1 - gamma1) * g * g
        mean = gamma1 * mean + (1 - gamma1) * g
        delta = gamma2 * delta - lr * g / sqrt(n - mean * mean + epsilon)
        weight = weight + delta

    Parameters
    ----------
    gamma1 : float
        Decay of the moving averages.
    gamma2 : float
        Momentum of the centered version.
    epsilon : float
        Added under the square root.
    centered : bool
        Use Graves's centered version.
    clip_weights : float, optional
        Clip the updated weight into ``[-clip_weights, clip_weights]``.
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (self._zeros_like(weight), self._zeros_like(weight), self._zeros_like(weight))
        return (self._zeros_like(weight),)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        args = dict(lr=lr, wd=wd, gamma1=self.gamma1, epsilon=self.epsilon,
                    clip_weights=self.clip_weights if self.clip_weights else -1.0,
                    **self._fused_args())
        if not self.centered:
            nd.rmsprop_update(weight, grad, state[0], out=weight, **args)
        else:
            n, mean, delta = state
            nd.rmspropalex_update(weight, grad, n, mean, delta, out=weight, gamma2=self.gamma2,
                                  **args)


@register
class AdaDelta(Optimizer):
    """AdaDelta (Zeiler, 2012): no learning rate; steps scaled by past step sizes.

    With ``g = clip(rescale_grad * grad, clip_gradient)``::

        acc_g = rho * acc_g + (1 - rho) * g * g
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta * delta
        weight = weight - (delta + wd * weight)

    Unlike MXNet, the caller's ``grad`` is left unchanged (MXNet rescales it in place).

    Parameters
    ----------
    rho : float
        Decay of both moving averages.
    epsilon : float
        Added under the square roots.
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))

    def update(self, index, weight, grad, state):
        _, wd = self._begin_update(index)
        g = self._rescaled_grad(grad)
        acc_g, acc_delta = state
        acc_g[:] = self.rho * acc_g + (1 - self.rho) * g * g
        delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * g
        acc_delta[:] = self.rho * acc_delta + (1 - self.rho) * delta * delta
        weight[:] = weight - (delta + wd * weight)
