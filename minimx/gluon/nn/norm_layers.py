"""Normalisation layers: BatchNorm, LayerNorm, InstanceNorm, GroupNorm.

Lesson: 09-gluon.  Mirrors the normalisation classes of
``python/mxnet/gluon/nn/basic_layers.py``.  BatchNorm is the layer with
state that is not learned: ``running_mean``/``running_var`` are Parameters with
``grad_req='null'`` that the operator updates in place while training
(auxiliary states in the traced graph) and reads in prediction mode.
"""
import numpy as np

from ..hybrid_block import HybridBlock

__all__ = ["BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm"]


def _format_kwargs(kwargs):
    return ", ".join(f"{key}={value!r}" for key, value in kwargs.items())


class BatchNorm(HybridBlock):
    """Normalise each channel by the batch statistics (training) or running ones (prediction).

    Parameters
    ----------
    axis : int, default 1
        The channel axis (1 for NCHW, -1 for NHWC).
    momentum : float, default 0.9
        ``running = running * momentum + batch * (1 - momentum)``.
    epsilon : float, default 1e-5
    center, scale : bool, default True
        Learn beta / gamma (otherwise they stay 0 / 1 and get no gradient).
    use_global_stats : bool, default False
        Always use the running statistics, also while training.
    beta_initializer, gamma_initializer, running_mean_initializer,
    running_variance_initializer : Initializer or str
    in_channels : int, default 0
        Number of channels; 0 learns it at the first call.

    Examples
    --------
    >>> bn = nn.BatchNorm()
    >>> bn.initialize()
    >>> bn(nd.ones((2, 3, 4))).shape
    (2, 3, 4)
    """

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        if in_channels != 0:
            self.in_channels = in_channels
        shape = (in_channels,)
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=shape, init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=shape, init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null", shape=shape,
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null", shape=shape,
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def cast(self, dtype):
        # float16 statistics lose too much precision: they stay float32, as in MXNet.
        super().cast("float32" if np.dtype(dtype).name == "float16" else dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd",
                           **self._kwargs)

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        return (f"{type(self).__name__}({_format_kwargs(self._kwargs)}, "
                f"in_channels={in_channels or None})")


class _AffineNorm(HybridBlock):
    """What LayerNorm, InstanceNorm and GroupNorm share: gamma and beta of one shape."""

    def _declare(self, size, center, scale, beta_initializer, gamma_initializer):
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(size,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(size,), init=beta_initializer,
                                    allow_deferred_init=True)

    def __repr__(self):
        return (f"{type(self).__name__}({_format_kwargs(self._kwargs)}, "
                f"in_channels={self.gamma.shape[0]})")


class LayerNorm(_AffineNorm):
    """Normalise each sample along ``axis`` (Ba et al., 2016), then scale and shift.

    Parameters
    ----------
    axis : int, default -1
    epsilon : float, default 1e-5
    center, scale : bool, default True
    beta_initializer, gamma_initializer : Initializer or str
    in_channels : int, default 0
        Size of ``axis``; 0 learns it at the first call.
    """

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self._declare(in_channels, center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        # MXNet names no node here: it traces as ``layernorm0_layernorm0``.
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)


class InstanceNorm(_AffineNorm):
    """Normalise each sample and channel over the remaining (spatial) axes.

    Parameters
    ----------
    axis : int, default 1
        The channel axis.
    epsilon : float, default 1e-5
    center : bool, default True
    scale : bool, default False
    beta_initializer, gamma_initializer : Initializer or str
    in_channels : int, default 0
    """

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self._declare(in_channels, center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = F.swapaxes(x, 1, self._axis)   # the operator wants channels on axis 1
        out = F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        return F.swapaxes(out, 1, self._axis)


class GroupNorm(_AffineNorm):
    """Split the channels (axis 1) into ``num_groups`` groups and normalise each group of
    each sample; gamma and beta hold one value per group, as in MXNet 1.9.1 (the
    ``GroupNorm`` operator)."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center,
                        "scale": scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        self._declare(num_groups, center, scale, beta_initializer, gamma_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups,
                           eps=self._epsilon)

    def __repr__(self):
        return f"{type(self).__name__}({_format_kwargs(self._kwargs)})"
