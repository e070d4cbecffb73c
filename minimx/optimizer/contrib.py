"""``mx.optimizer.contrib``: the optimizers MXNet keeps apart as contributions.

Lesson: 13-optimizers.  Mirrors ``python/mxnet/optimizer/contrib.py`` (``GroupAdaGrad``).
"""
from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning rate per *row* of a 2-D weight (an embedding's rows).

    With ``g = clip(rescale_grad * grad, clip_gradient)``::

        history = history + mean(g * g, axis=1, keepdims=True)     # one value per row
        weight = weight - lr * g / sqrt(history + eps)

    The state is a ``(rows, 1)`` column, not a copy of the weight: a fraction of AdaGrad's
    memory.  Weight decay is not supported (``wd`` must be 0).  As in MXNet's dense path, a
    ``clip_gradient`` that is not None clips, whatever its sign.
    """

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise ValueError(f"GroupAdaGrad: the weight must be 2-D (rows x columns), got "
                             f"shape {weight.shape}")
        return nd.zeros((weight.shape[0], 1), weight.context, dtype=weight.dtype)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        if wd != 0:
            raise ValueError(f"GroupAdaGrad: weight decay is not supported, got wd={wd}")
        g = grad * self.rescale_grad
        if self.clip_gradient is not None:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        state[:] += nd.mean(nd.square(g), axis=1, keepdims=True)
        weight[:] -= lr * g / nd.sqrt(state + self.float_stable_eps)
