"""``np.delete`` and ``np.insert``: remove or add entries along an axis.

Lesson: 03-two-frontends-one-engine.  Mirrors ``src/operator/numpy/np_delete_op.cc`` and
``np_insert_op_{scalar,slice,tensor}.cc`` under MXNet's names.  Which entries is known when
the call is made: an int (``int_ind``), a slice (``start``/``stop``/``step``) or, for an
index array, its values (``indices``: the frontend waits for the array, since the result's
shape depends on them -- where MXNet passes the array as an input; ``delete`` ignores those
outside [0, n), as MXNet's).  MXNet registers no
gradient for them (``has_gradient = False``).
"""
import numpy as np

from .params import Optional, Param, Shape
from .registry import OpDef, TestHints, register_op

_WHERE = {
    "start": Param(Optional(int), default=None, doc="slice start"),
    "stop": Param(Optional(int), default=None, doc="slice stop"),
    "step": Param(Optional(int), default=None, doc="slice step"),
    "int_ind": Param(Optional(int), default=None, doc="a single index"),
    "indices": Param(Optional(Shape), default=None, doc="index values (an index array's)"),
    "axis": Param(Optional(int), default=None, doc="the axis (None: the flattened array)"),
}


class AlongAxis(OpDef):
    """What ``delete`` and ``insert`` share: where (``obj``) along which axis."""

    differentiable = False
    has_gradient = False

    def obj(self, xp=np):
        if self.int_ind is not None:
            return self.int_ind
        if self.indices is not None:
            return xp.asarray(self.indices, dtype=np.int64)
        return slice(self.start, self.stop, self.step)

    def _checked(self, function, *args):
        """``function(*args)`` on host stand-ins, its errors named after this operator."""
        try:
            return function(*args)
        except (IndexError, ValueError) as error:
            raise self.shape_error(str(error)) from None


@register_op
class Delete(AlongAxis):
    """The array without the entries ``obj`` along ``axis`` (None: of the flattened array)."""

    name = "_npi_delete"
    inputs = ("arr",)
    params = dict(_WHERE)
    test = TestHints(shapes=((3, 4),), params={"int_ind": 1, "axis": 1}, grad=False,
                     cases=(({"start": 0, "step": 2, "axis": 0}, ((3, 4),)),
                            ({"indices": (0, 5, 5)}, ((2, 3),))),
                     reference=lambda np, x, **p: np.delete(x, Delete.create(**p).obj(),
                                                            p.get("axis")))

    def infer_shape(self, arr):
        stand_in = np.empty(tuple(arr), dtype=bool)
        return self._checked(np.delete, stand_in, self._obj_within(stand_in), self.axis).shape

    def forward(self, xp, arr):
        return xp.delete(arr, self._obj_within(arr, xp), self.axis)

    def _obj_within(self, arr, xp=np):
        """``obj``; of an index array only the indices in [0, n) count (MXNet ignores the
        others, negative ones too)."""
        obj = self.obj(xp)
        if self.indices is None:
            return obj
        n = arr.size if self.axis is None else arr.shape[self.axis]
        return obj[(obj >= 0) & (obj < n)]


class Insert(AlongAxis):
    """The array with ``values`` (an input, or the number ``val``) before ``obj`` along
    ``axis`` (None: the flattened array), cast to the array's dtype."""

    inputs = ("arr", "values")
    params = {**_WHERE, "val": Param(Optional(float), default=None, doc="a number to insert")}

    def list_inputs(self, num_args=None):
        return ("arr",) if self.val is not None else self.inputs

    def infer_shape(self, arr, values=()):
        stand_in = np.empty(tuple(arr), dtype=bool)
        inserted = np.zeros(tuple(values), dtype=bool) if self.val is None else False
        return self._checked(np.insert, stand_in, self.obj(), inserted, self.axis).shape

    def forward(self, xp, arr, values=None):
        values = self.val if self.val is not None else values
        return xp.insert(arr, self.obj(xp), values, self.axis)


def _insert_test(params, cases):
    return TestHints(shapes=((3, 4), (3,)), params=params, grad=False, cases=cases,
                     reference=lambda np, x, v=None, **p: np.insert(
                         x, Insert.create(**p).obj(), v if v is not None else p["val"],
                         p.get("axis")))


@register_op
class InsertScalar(Insert):
    """``insert`` before one index ``int_ind``."""
    name = "_npi_insert_scalar"
    test = _insert_test({"int_ind": 1, "axis": 1}, (({"int_ind": -1, "val": 2.5}, ((2, 3),)),))


@register_op
class InsertSlice(Insert):
    """``insert`` before the indices of a slice."""
    name = "_npi_insert_slice"
    test = _insert_test({"start": 0, "stop": 3, "axis": None},
                        (({"start": 1, "step": 2, "axis": 1, "val": 1.0}, ((3, 4),)),))


@register_op
class InsertTensor(Insert):
    """``insert`` before the values of an index array."""
    name = "_npi_insert_tensor"
    test = _insert_test({"indices": (0, 2, 4), "axis": None},
                        (({"indices": (1, 3), "axis": 1, "val": 5.0}, ((3, 4),)),))
