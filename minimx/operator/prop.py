"""What a user writes for a custom operator: ``CustomOp``, ``CustomOpProp`` and ``register``.

Lesson: 04-autograd, 08-executors.  Mirrors the public classes of
``python/mxnet/operator.py``.  A ``CustomOpProp`` describes the operator (its
inputs, outputs, auxiliary states, shapes, dtypes and what backward needs);
its ``create_operator`` returns the ``CustomOp`` whose ``forward`` and
``backward`` compute on NDArrays.  ``register(name)`` files the Prop class under
``name``, which ``nd.Custom(..., op_type=name)`` and ``sym.Custom`` look up.
"""
from ..registry import Registry

__all__ = ["CustomOp", "CustomOpProp", "register", "PROPS"]


class CustomOp:
    """The computation of a custom operator: override ``forward`` and ``backward``.

    Both receive lists of NDArrays and write their results with ``assign``,
    which honours the request ``req`` of each output.

    Examples
    --------
    >>> class Double(mx.operator.CustomOp):
    ...     def forward(self, is_train, req, in_data, out_data, aux):
    ...         self.assign(out_data[0], req[0], in_data[0] * 2)
    ...     def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
    ...         self.assign(in_grad[0], req[0], out_grad[0] * 2)
    """

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute ``out_data`` from ``in_data`` (and update ``aux`` in place if needed).

        Parameters
        ----------
        is_train : int
            1 when running for training (``autograd.record()``, ``forward(is_train=True)``).
        req : list of str
            How to store each output: 'null', 'write', 'inplace' or 'add'.
        in_data, out_data, aux : list of NDArray
            The inputs (in ``list_arguments`` order), the outputs, the auxiliary states.
        """

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute ``in_grad`` (one NDArray per argument) from ``out_grad``."""

    def assign(self, dst, req, src):
        """Store ``src`` into ``dst`` as ``req`` asks: skip, overwrite or accumulate."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src
        else:
            raise ValueError(f"CustomOp.assign: req must be 'null', 'write', 'inplace' or "
                             f"'add', got {req!r}")


class CustomOpProp:
    """The description of a custom operator; override what differs from the defaults.

    The defaults describe one input ``data``, one output ``output`` of the same
    shape and dtype, and no auxiliary state.  Keyword arguments given to
    ``nd.Custom``/``sym.Custom`` reach ``__init__`` as strings, as in MXNet.

    Parameters
    ----------
    need_top_grad : bool
        False for a loss-like operator whose backward ignores ``out_grad``.
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def list_arguments(self):
        """Names of the inputs, in order."""
        return ["data"]

    def list_outputs(self):
        """Names of the outputs, in order."""
        return ["output"]

    def list_auxiliary_states(self):
        """Names of the states ``forward`` updates in place (they get no gradient)."""
        return []

    def infer_shape(self, in_shape):
        """``(argument shapes, output shapes, aux shapes)`` from the argument shapes.

        An unknown argument shape arrives as ``[]``; return it completed if you can.
        The aux shapes may be left out when there is no auxiliary state.
        """
        return in_shape, [in_shape[0]] * len(self.list_outputs()), []

    def infer_type(self, in_type):
        """``(argument dtypes, output dtypes, aux dtypes)``: by default all the first one's."""
        first = in_type[0]
        return (in_type, [first] * len(self.list_outputs()),
                [first] * len(self.list_auxiliary_states()))

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """The ids (among those given) of the arrays ``backward`` reads.

        What is not declared need not be kept after ``forward``.
        """
        needed = list(out_grad) if self.need_top_grad_ else []
        return needed + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The ``CustomOp`` that computes, for inputs of these shapes and dtypes on ``ctx``."""
        return CustomOp()


PROPS = Registry(CustomOpProp, "custom operator")


def register(reg_name):
    """Class decorator: make a ``CustomOpProp`` subclass available as ``op_type=reg_name``.

    Examples
    --------
    >>> class Double(mx.operator.CustomOp):
    ...     def forward(self, is_train, req, in_data, out_data, aux):
    ...         self.assign(out_data[0], req[0], in_data[0] * 2)
    >>> @mx.operator.register('double')
    ... class DoubleProp(mx.operator.CustomOpProp):
    ...     def create_operator(self, ctx, shapes, dtypes):
    ...         return Double()
    >>> nd.Custom(nd.array([1, 2]), op_type='double').asnumpy()
    array([2., 4.], dtype=float32)
    """
    def decorate(prop_cls):
        return PROPS.register(prop_cls, reg_name)

    return decorate
