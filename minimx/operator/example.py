"""A small custom operator written with the public API: ``op_type='_example_square'``.

Lesson: 04-autograd.  The ``Custom`` declaration's TestHints name it, so the
tests generated from the registry (reference values, numeric gradients, both
engines) run the whole custom-operator path through it.  Its ``forward`` and
``backward`` call nd operators, as user code usually does.
"""
from .prop import CustomOp, CustomOpProp, register

__all__ = ["Square", "SquareProp"]


class Square(CustomOp):
    """``x * x``, element-wise."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])


@register("_example_square")
class SquareProp(CustomOpProp):
    """One input ``data``, one output of the same shape and dtype (the defaults)."""

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Square()
