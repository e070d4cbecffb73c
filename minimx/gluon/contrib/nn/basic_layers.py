"""Pixel shuffles, SyncBatchNorm and SparseEmbedding (``gluon.contrib.nn``).

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/contrib/nn/basic_layers.py``.
``Concurrent``, ``HybridConcurrent`` and ``Identity`` are the very classes of
``gluon.nn`` (one class, two names).  A pixel shuffle trades channels for resolution:
``(N, C * f1 * f2, H, W)`` becomes ``(N, C, H * f1, W * f2)``, each group of ``f1 * f2``
channels filling the ``f1 x f2`` block of output pixels above one input pixel (the
upsampling of sub-pixel convolution networks).
"""
import math
import warnings

from .... import context
from ...nn import BatchNorm, Concurrent, Embedding, HybridConcurrent, Identity
from ...hybrid_block import HybridBlock

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]


class SparseEmbedding(Embedding):
    """Embedding whose weight gradient MXNet keeps row-sparse (``sparse_grad=True``).

    The looked-up rows and the gradient's values are those of ``Embedding``; minimx holds
    the gradient as a dense array whose untouched rows are zero (MXNet's is a
    ``RowSparseNDArray`` naming only the touched rows).  Unlike ``Embedding`` it is a
    plain Block in MXNet, which cannot be hybridized; here too.
    """

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 **kwargs):
        super().__init__(input_dim, output_dim, dtype=dtype,
                         weight_initializer=weight_initializer, sparse_grad=True, **kwargs)

    def hybridize(self, active=True, **kwargs):
        if active:
            raise NotImplementedError("SparseEmbedding is a Block in MXNet and cannot be "
                                      "hybridized; use nn.Embedding(sparse_grad=True)")


class SyncBatchNorm(BatchNorm):
    """BatchNorm whose statistics are those of the whole batch over ``num_devices`` devices.

    Called once per device (a loop over the devices' slices of a batch, under
    ``autograd.record``), the calls meet (``op/meeting.py``, keyed by the layer's prefix) and
    each normalises its slice with the whole batch's mean and variance; the backward passes
    meet again.  Neither blocks the Python thread: a device's call waits in an engine
    worker for the others.  On one device it is BatchNorm.  ``num_devices`` must be the
    number of devices that call it (default: the number of GPUs, or 1 without one); reading
    an output before every device's call was made fails after ``op.meeting.TIMEOUT``
    seconds, and under NaiveEngine, which runs each call to its end, the first call fails
    at once (MXNet hangs in both cases).

    Parameters
    ----------
    in_channels : int, default 0
    num_devices : int, optional
    momentum, epsilon, center, scale, use_global_stats : as BatchNorm's
    beta_initializer, gamma_initializer, running_mean_initializer,
    running_variance_initializer : Initializer or str
    """

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
                 center=True, scale=True, use_global_stats=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, use_global_stats=use_global_stats,
                         beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        if num_devices is None:
            warnings.warn("Caution using SyncBatchNorm: if not using all the GPUs, please "
                          "mention num_devices")
            num_devices = max(context.num_gpus(), 1)
        del self._kwargs["axis"]
        self._kwargs.update(ndev=num_devices, key=self.prefix)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.SyncBatchNorm(x, gamma, beta, running_mean, running_var, name="fwd",
                                       **self._kwargs)


def _factors(factor, dims, layer):
    factors = (factor,) * dims if isinstance(factor, int) else tuple(factor)
    if len(factors) != dims or not all(isinstance(f, int) and f > 0 for f in factors):
        raise ValueError(f"{layer}: factor must be a positive int or {dims} of them, "
                         f"got {factor!r}")
    return factors


class _PixelShuffle(HybridBlock):
    """``(N, C * prod(f), *spatial)`` -> ``(N, C, *(s * f for s, f in zip(spatial, f)))``."""

    _dims = 0

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, self._dims, type(self).__name__)

    def hybrid_forward(self, F, x):
        dims, factors = self._dims, self._factors
        spatial = (0,) * dims
        # 1. channels -> (C, f1, ..., fd); reshape's -4 splits one axis in two
        x = F.reshape(x, shape=(0, -4, -1, math.prod(factors)) + spatial)
        for done in range(1, dims):
            x = F.reshape(x, shape=(0,) * (1 + done) + (-4, factors[done - 1], -1) + spatial)
        # 2. (N, C, f1..fd, s1..sd) -> (N, C, s1, f1, ..., sd, fd)
        x = F.transpose(x, axes=(0, 1) + sum(((2 + dims + i, 2 + i) for i in range(dims)), ()))
        # 3. merge each (s, f) pair; reshape's -3 joins two axes
        return F.reshape(x, shape=(0, 0) + (-3,) * dims)

    def __repr__(self):
        factors = self._factors[0] if self._dims == 1 else self._factors
        return f"{type(self).__name__}({factors})"


class PixelShuffle1D(_PixelShuffle):
    """``(N, C * f, W)`` -> ``(N, C, W * f)``.

    Examples
    --------
    >>> PixelShuffle1D(2)(nd.arange(6).reshape((1, 2, 3)))[0, 0].asnumpy()
    array([0., 3., 1., 4., 2., 5.], dtype=float32)
    """
    _dims = 1


class PixelShuffle2D(_PixelShuffle):
    """``(N, C * f1 * f2, H, W)`` -> ``(N, C, H * f1, W * f2)``; ``factor`` is an int or a
    pair."""
    _dims = 2


class PixelShuffle3D(_PixelShuffle):
    """``(N, C * f1 * f2 * f3, D, H, W)`` -> ``(N, C, D * f1, H * f2, W * f3)``."""
    _dims = 3
