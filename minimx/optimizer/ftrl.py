"""Follow-the-leader optimizers: Ftrl (with L1, for sparse models) and FTML.

Lesson: 13-optimizers.  Mirrors ``Ftrl`` and ``FTML`` in
``python/mxnet/optimizer/optimizer.py`` and the ``ftrl_update`` /
``ftml_update`` kernels of ``src/operator/optimizer_op-inl.h`` (Ftrl calls the
fused ``nd.ftrl_update``).  Both keep a running sum ``z`` of (corrected)
gradients and compute the weight from it afresh at every step, rather than
adding a step to the old weight.
"""
from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["Ftrl", "FTML"]


@register
class Ftrl(Optimizer):
    """FTRL-Proximal (McMahan et al., 2013): weights that are exactly 0 under L1.

    With ``g = clip(rescale_grad * grad, clip_gradient)``::

        z = z + g - (sqrt(n + g * g) - sqrt(n)) * weight / lr
        n = n + g * g
        weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (abs(z) > lamda1)

    Parameters
    ----------
    lamda1 : float
        The L1 regularisation coefficient.
    learning_rate : float
        The learning rate (0.1 by default here).
    beta : float
        Added to ``sqrt(n)`` in the per-coordinate rate.
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight))    # z, n

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        z, n = state
        nd.ftrl_update(weight, grad, z, n, out=weight, lr=lr, wd=wd, lamda1=self.lamda1,
                       beta=self.beta, **self._fused_args())


@register
class FTML(Optimizer):
    """FTML, follow the moving leader (Zheng and Kwok, 2017).

    With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)`` at step ``t``::

        v = beta2 * v + (1 - beta2) * g * g
        d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
        d = d_t
        weight = -z / d_t
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (self._zeros_like(weight), self._zeros_like(weight),
                self._zeros_like(weight))                                   # d, v, z

    def update(self, index, weight, grad, state):
        # one fused ``ftml_update``, as MXNet's: its kernel's arithmetic, to the bit
        lr, wd = self._begin_update(index)
        kwargs = dict(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                      rescale_grad=self.rescale_grad, t=self._index_update_count[index])
        if self.clip_gradient:
            kwargs["clip_grad"] = self.clip_gradient
        d, v, z = state
        nd.ftml_update(weight, grad, d, v, z, out=weight, lr=lr, wd=wd, **kwargs)
