"""Activation layers: Activation, LeakyReLU, PReLU, ELU, SELU, Swish, GELU.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/nn/activations.py``.  Each
layer is a thin HybridBlock around one operator (``Activation`` or
``LeakyReLU``), so hybridizing a network turns each into one graph node;
only PReLU owns a Parameter (its learned negative slope ``alpha``).
"""
from ... import initializer
from ..hybrid_block import HybridBlock

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU"]


class Activation(HybridBlock):
    """An element-wise activation: ``'relu'``, ``'sigmoid'``, ``'tanh'``, ``'softrelu'``
    or ``'softsign'``.

    Its prefix is the activation's name (``relu0_``), as in MXNet.

    Examples
    --------
    >>> nn.Activation('relu')(nd.array([-1.0, 2.0])).asnumpy()
    array([0., 2.], dtype=float32)
    """

    def __init__(self, activation, **kwargs):
        self._act_type = activation      # read by _alias() during Block.__init__
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self):
        return f"{type(self).__name__}({self._act_type})"


class LeakyReLU(HybridBlock):
    """``x`` where positive, ``alpha * x`` elsewhere.

    Parameters
    ----------
    alpha : float
        The slope for negative inputs (at least 0).
    """

    def __init__(self, alpha, **kwargs):
        if alpha < 0:
            raise ValueError(f"LeakyReLU: the slope alpha must be no less than 0, got {alpha}")
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")

    def __repr__(self):
        return f"{type(self).__name__}({self._alpha})"


class PReLU(HybridBlock):
    """LeakyReLU whose negative slope ``alpha`` is learned, one per channel (axis 1).

    Parameters
    ----------
    alpha_initializer : Initializer, default Constant(0.25)
    in_channels : int, default 1
        1 shares one slope over all channels.
    """

    def __init__(self, alpha_initializer=initializer.Constant(0.25), in_channels=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, alpha, act_type="prelu", name="fwd")


class ELU(HybridBlock):
    """Exponential linear unit: ``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        # MXNet gives this node no name, so it traces as ``elu0_leakyrelu0``.
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)


class SELU(HybridBlock):
    """Scaled ELU with the fixed constants of Klambauer et al. (2017)."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class GELU(HybridBlock):
    """Gaussian error linear unit, ``x * Phi(x)`` (exact, with erf)."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="gelu", name="fwd")


class Swish(HybridBlock):
    """``x * sigmoid(beta * x)`` (Ramachandran et al., 2017)."""

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")
