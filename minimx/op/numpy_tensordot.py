"""NumPy's ``tensordot``: the sum of products over paired axes of two arrays, one operator.

Lesson: 03-two-frontends-one-engine.  Mirrors ``src/operator/numpy/np_tensordot_op.cc``
(MXNet's names ``_npi_tensordot``, with the paired axes, and ``_npi_tensordot_int_axes``,
with a count: the last ``axes`` of ``a`` meet the first of ``b``).  The axes are resolved
against the inputs' shapes when the shapes are known, so ``mx.sym.np.tensordot`` of Symbols
that know no shape yet is one graph node, as ``np.inner`` (``a_axes_summed=(-1,)``,
``b_axes_summed=(-1,)``) is.
"""
from .params import Param, Shape
from .registry import OpDef, TestHints, register_op


class _Tensordot(OpDef):
    """The shared rule; a subclass says which axes are summed (``summed_axes``)."""

    inputs = ("a", "b")
    saves = ("a", "b")

    def summed_axes(self, a_ndim, b_ndim):
        """The summed axes of ``a`` and of ``b``, in their pairing order."""
        raise NotImplementedError

    def _axes(self, a, b):
        """(a's summed, b's summed, a's free, b's free) axes, checked against the shapes."""
        a_axes, b_axes = self.summed_axes(len(a), len(b))
        if len(a_axes) != len(b_axes):
            raise self.shape_error(f"a sums {len(a_axes)} axes and b {len(b_axes)}: the "
                                   f"axes must pair up")
        a_axes = tuple(self._resolve(axis, len(a), "a") for axis in a_axes)
        b_axes = tuple(self._resolve(axis, len(b), "b") for axis in b_axes)
        for i, j in zip(a_axes, b_axes):
            if a[i] != b[j]:
                raise self.shape_error(f"shapes {tuple(a)} and {tuple(b)} do not align: axis "
                                       f"{i} of a has {a[i]} and axis {j} of b has {b[j]}")
        return (a_axes, b_axes, [i for i in range(len(a)) if i not in a_axes],
                [j for j in range(len(b)) if j not in b_axes])

    def _resolve(self, axis, ndim, name):
        if not -ndim <= axis < ndim:
            raise self.shape_error(f"axis {axis} is out of range for {name}, which has "
                                   f"{ndim} dims")
        return axis % ndim

    def infer_shape(self, a, b):
        _, _, a_free, b_free = self._axes(a, b)
        return tuple(a[i] for i in a_free) + tuple(b[j] for j in b_free)

    def infer_type(self, a, b):
        if a != b:
            raise self.type_error(f"a and b dtypes differ: {a} vs {b}")
        return a

    def forward(self, xp, a, b):
        a_axes, b_axes, _, _ = self._axes(a.shape, b.shape)
        return xp.asarray(xp.tensordot(a, b, axes=(list(a_axes), list(b_axes))))

    def backward(self, xp, out_grad, a, b):
        # out_grad's axes are a's free axes, then b's.  Contracting it with b over b's free
        # axes leaves a's free axes and b's summed ones (in b's order, each standing for
        # its partner in a); moving every axis back to its place in a gives a's gradient.
        a_axes, b_axes, a_free, b_free = self._axes(a.shape, b.shape)
        kept = len(a_free)
        grad_a = xp.tensordot(out_grad, b, axes=(list(range(kept, out_grad.ndim)), b_free))
        partner_of_b = dict(zip(b_axes, a_axes))
        grad_a = xp.transpose(grad_a, _inverse(a_free + [partner_of_b[j]
                                                        for j in sorted(b_axes)]))
        grad_b = xp.tensordot(a, out_grad, axes=(a_free, list(range(kept))))
        partner_of_a = dict(zip(a_axes, b_axes))
        grad_b = xp.transpose(grad_b, _inverse([partner_of_a[i] for i in sorted(a_axes)]
                                               + b_free))
        return grad_a.astype(a.dtype, copy=False), grad_b.astype(b.dtype, copy=False)


def _inverse(permutation):
    """The transpose that undoes ``permutation``: axis ``m`` is taken from where
    ``permutation`` holds ``m``."""
    inverse = [0] * len(permutation)
    for position, axis in enumerate(permutation):
        inverse[axis] = position
    return inverse


@register_op
class Tensordot(_Tensordot):
    """Sums over ``a_axes_summed`` of ``a`` paired with ``b_axes_summed`` of ``b``."""

    name = "_npi_tensordot"
    params = {"a_axes_summed": Param(Shape, doc="the summed axes of a (negative: from the "
                                                "end)"),
              "b_axes_summed": Param(Shape, doc="the axes of b paired with them")}
    test = TestHints(shapes=((3, 4, 5), (5, 3, 2)),
                     params={"a_axes_summed": (0, 2), "b_axes_summed": (1, 0)},
                     cases=(({"a_axes_summed": (-1,), "b_axes_summed": (-1,)},
                             ((2, 3), (4, 3))),
                            ({"a_axes_summed": (), "b_axes_summed": ()}, ((2,), (3,)))),
                     reference=lambda np, a, b, a_axes_summed, b_axes_summed: np.tensordot(
                         a, b, axes=(list(a_axes_summed), list(b_axes_summed))))

    def summed_axes(self, a_ndim, b_ndim):
        return self.a_axes_summed, self.b_axes_summed


@register_op
class TensordotIntAxes(_Tensordot):
    """Sums over the last ``axes`` axes of ``a`` and the first ``axes`` of ``b``."""

    name = "_npi_tensordot_int_axes"
    params = {"axes": Param(int, doc="how many axes are summed")}
    test = TestHints(shapes=((3, 4, 5), (4, 5, 2)), params={"axes": 2},
                     cases=(({"axes": 0}, ((2,), (3,))), ({"axes": 1}, ((2, 3), (3,)))),
                     reference=lambda np, a, b, axes: np.tensordot(a, b, axes=axes))

    def summed_axes(self, a_ndim, b_ndim):
        if not 0 <= self.axes <= min(a_ndim, b_ndim):
            raise self.shape_error(f"axes={self.axes} must be between 0 and the inputs' "
                                   f"smaller number of dims, {min(a_ndim, b_ndim)}")
        return tuple(range(a_ndim - self.axes, a_ndim)), tuple(range(self.axes))
