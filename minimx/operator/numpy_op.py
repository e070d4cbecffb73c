"""``mx.operator.NumpyOp``: MXNet's older Python operator, on numpy arrays.

Lesson: 08-executors.  Mirrors ``NumpyOp`` (and its base ``PythonOp``) of MXNet 1.9.1's
``python/mxnet/operator.py``, deprecated there in favour of ``CustomOp`` but still
working.  The user writes ``forward(in_data, out_data)`` and ``backward(out_grad,
in_data, out_data, in_grad)`` over numpy arrays, filling the output lists in place, and
``get_symbol(*inputs, name=...)`` puts the operator into a graph.  Here each instance is
registered as a ``CustomOp`` (``prop.py``) under a name of its own, so it runs wherever
``Custom`` does: it is the same idea with numpy arrays instead of NDArrays.
"""
import warnings

from .. import symbol
from .prop import CustomOp, CustomOpProp, register

__all__ = ["PythonOp", "NumpyOp"]


class PythonOp:
    """What ``NumpyOp`` subclasses share: names, shapes and ``need_top_grad``."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp")

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        raise NotImplementedError("PythonOp.get_symbol: use NumpyOp")

    def forward(self, in_data, out_data):
        """Fill ``out_data[i][:]`` from ``in_data``."""
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        """Fill ``in_grad[i][:]``."""
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """``(input shapes, output shapes)``; default: one output shaped as the first input."""
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        """Whether ``backward`` reads the gradient arriving at the outputs."""
        return self.need_top_grad_


class _NumpyKernel(CustomOp):
    """Runs a ``NumpyOp``'s methods on numpy copies of the arrays."""

    def __init__(self, numpy_op):
        super().__init__()
        self.numpy_op = numpy_op

    def forward(self, is_train, req, in_data, out_data, aux):
        outputs = [array.asnumpy() for array in out_data]
        self.numpy_op.forward([array.asnumpy() for array in in_data], outputs)
        for array, value, how in zip(out_data, outputs, req):
            self.assign(array, how, value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grads = [array.asnumpy() for array in in_grad]
        self.numpy_op.backward([array.asnumpy() for array in out_grad],
                               [array.asnumpy() for array in in_data],
                               [array.asnumpy() for array in out_data], grads)
        for array, value, how in zip(in_grad, grads, req):
            self.assign(array, how, value)


class NumpyOp(PythonOp):
    """Subclass with ``forward``/``backward`` over numpy arrays; ``get_symbol`` gives a
    graph node (``op.get_symbol(x, name='sq')``)."""

    _registered = 0

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp")

    def get_symbol(self, *args, **kwargs):
        numpy_op = self
        NumpyOp._registered += 1
        op_type = f"_numpy_op{NumpyOp._registered}"

        class Prop(CustomOpProp):
            def __init__(self):
                super().__init__(need_top_grad=numpy_op.need_top_grad())

            def list_arguments(self):
                return numpy_op.list_arguments()

            def list_outputs(self):
                return numpy_op.list_outputs()

            def infer_shape(self, in_shape):
                ins, outs = numpy_op.infer_shape(in_shape)
                return ins, outs, []

            def create_operator(self, ctx, in_shapes, in_dtypes):
                return _NumpyKernel(numpy_op)

        register(op_type)(Prop)
        return symbol.Custom(*args, op_type=op_type, **kwargs)
