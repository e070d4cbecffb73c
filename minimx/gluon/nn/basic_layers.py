"""Basic layers: Dense, Dropout, Embedding, Flatten, Lambda, HybridLambda, Identity, Concurrent.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/nn/basic_layers.py`` (and
``Identity``/``Concurrent``/``HybridConcurrent`` from ``gluon/contrib/nn``).
A layer declares its Parameters in ``__init__`` (0 marks a size learned at the
first call) and computes in ``hybrid_forward`` with one operator named
``'fwd'``, so a traced network's nodes read ``dense0_fwd``, ``dense1_fwd``, ...
"""
from ... import ndarray as nd
from ..block import Block
from ..hybrid_block import HybridBlock
from ..parameter import shown_shape
from .activations import Activation
from .sequential import HybridSequential, Sequential

__all__ = ["Dense", "Dropout", "Embedding", "Flatten", "Lambda", "HybridLambda", "Identity",
           "Concurrent", "HybridConcurrent"]


class Dense(HybridBlock):
    """Fully connected layer: ``activation(dot(x, weight.T) + bias)``.

    Parameters
    ----------
    units : int
        Output size.
    activation : str, optional
        An ``Activation`` name applied to the output (``'relu'``...).
    use_bias : bool, default True
    flatten : bool, default True
        Collapse all input axes but the first; False applies the layer to the last axis.
    dtype : str, default 'float32'
    weight_initializer, bias_initializer : Initializer or str
    in_units : int, default 0
        Input size; 0 learns it at the first call (deferred initialisation).

    Examples
    --------
    >>> layer = nn.Dense(3)
    >>> layer.initialize()
    >>> layer(nd.ones((2, 5))).shape
    (2, 3)
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32",
                 weight_initializer=None, bias_initializer="zeros", in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        self._units = units
        self._in_units = in_units
        with self.name_scope():
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            self.bias = None
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            self.act = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")

    def hybrid_forward(self, F, x, weight, bias=None):
        inputs = (x, weight) if bias is None else (x, weight, bias)
        out = F.FullyConnected(*inputs, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name="fwd")
        return out if self.act is None else self.act(out)

    def __repr__(self):
        out_units, in_units = shown_shape(self.weight.shape)
        return (f"{type(self).__name__}({in_units or None} -> {out_units}, "
                f"{self.act if self.act else 'linear'})")


class Dropout(HybridBlock):
    """Zero each element with probability ``rate`` while training, scaling the rest by
    ``1 / (1 - rate)``; the identity in prediction mode (outside ``autograd.record()``
    or under ``autograd.predict_mode()``).

    Parameters
    ----------
    rate : float
        Probability of dropping an element.
    axes : tuple of int, default ()
        Axes along which one mask value is shared (variational dropout).
    """

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return f"{type(self).__name__}(p = {self._rate}, axes={self._axes})"


class Embedding(HybridBlock):
    """Map integer indices to rows of a learned ``(input_dim, output_dim)`` table.

    Parameters
    ----------
    input_dim : int
        Number of distinct indices.
    output_dim : int
        Size of each embedding vector.
    dtype : str, default 'float32'
    weight_initializer : Initializer, optional
    sparse_grad : bool, default False
        Accepted for MXNet compatibility; minimx always computes a dense gradient.
    """

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": sparse_grad}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True,
                                      grad_stype="row_sparse" if sparse_grad else "default")

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        kwargs = self._kwargs
        return (f"{type(self).__name__}({kwargs['input_dim']} -> {kwargs['output_dim']}, "
                f"{kwargs['dtype']})")


class Flatten(HybridBlock):
    """Reshape ``(N, d1, d2, ...)`` to ``(N, d1 * d2 * ...)``."""

    def hybrid_forward(self, F, x):
        return F.flatten(x)

    def __repr__(self):
        return type(self).__name__


class Lambda(Block):
    """Wrap a function (or the name of an ``nd`` function) as a Block.

    Examples
    --------
    >>> nn.Lambda('tanh')(nd.zeros((2,))).asnumpy()
    array([0., 0.], dtype=float32)
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise ValueError(f"Lambda: function name {function!r} is not found in ndarray")
            function = getattr(nd, function)
        elif not callable(function):
            raise ValueError(f"Unrecognized function in lambda: {function} of type "
                             f"{type(function)}")
        self._func_impl = function

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return f"{type(self).__name__}({self._func_impl.__name__})"


class HybridLambda(HybridBlock):
    """Wrap ``function(F, x, *args)`` (or the name of a function in both ``nd`` and ``sym``)
    as a HybridBlock.

    Examples
    --------
    >>> nn.HybridLambda(lambda F, x: F.relu(x))(nd.array([-1.0, 1.0])).asnumpy()
    array([0., 1.], dtype=float32)
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        from ... import symbol as sym
        if isinstance(function, str):
            if not (hasattr(nd, function) and hasattr(sym, function)):
                raise ValueError(f"HybridLambda: function name {function!r} is not found in "
                                 f"symbol/ndarray")
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError(f"Unrecognized function in lambda: {function} of type "
                             f"{type(function)}")

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return f"{type(self).__name__}({self._func_name})"


class Identity(HybridBlock):
    """Return the input unchanged (a placeholder branch in Concurrent blocks)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x


class Concurrent(Sequential):
    """Run every child on the same input and concatenate their outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    """Concurrent for HybridBlocks: hybridizing it compiles every branch and the concat."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)
