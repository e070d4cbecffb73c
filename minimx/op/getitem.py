"""``_index``: numpy-style indexing of an array, as one differentiable operator.

Lesson: 02-ndarray-and-context.  Basic indexing on the first axis is a view (see
``ndarray/indexing.py``); every other key, slices with steps, several axes,
``None``, ``...`` and integer index arrays, goes through this operator.  The
key is a parameter in a small, hashable form; index arrays are extra inputs.
"""
import numpy as np

from ..util import is_np_shape
from .params import Param
from .registry import OpDef, TestHints, register_op

__all__ = ["IndexKey"]


def IndexKey(value):
    """A normalized key: a tuple of ('int', i) / ('slice', a, b, c) / ('none',) /
    ('ellipsis',) / ('array', k), where k numbers the index-array inputs."""
    if not isinstance(value, tuple) or not all(isinstance(item, tuple) for item in value):
        raise ValueError("expected a normalized index key")
    return value


IndexKey.type_name = "a normalized index key"


def build_key(xp, key, index_arrays):
    """Turn a normalized key and the index arrays back into a numpy/CuPy key."""
    parts = []
    for item in key:
        kind = item[0]
        if kind == "int":
            parts.append(item[1])
        elif kind == "slice":
            parts.append(slice(*item[1:]))
        elif kind == "none":
            parts.append(None)
        elif kind == "ellipsis":
            parts.append(Ellipsis)
        else:
            parts.append(index_arrays[item[1]].astype("int64"))
    return tuple(parts)


@register_op
class Index(OpDef):
    """``data[key]`` for any numpy-style key (index arrays come as extra inputs)."""

    name = "_index"
    variadic = True
    params = {"key": Param(IndexKey, doc="normalized key"),
              "num_args": Param(int, default=1)}
    saves = ("input_shapes", "index0", "index1", "index2", "index3")
    test = TestHints(shapes=((4, 3),), params={"key": (("slice", None, None, 2), ("int", 1))},
                     cases=(({"key": (("array", 0), ("none",), ("slice", 2, None, None))},
                             ((4, 3), (2, 2))),),
                     integer_inputs={"index0": 4})

    def list_inputs(self, num_args=None):
        count = num_args if num_args is not None else self.num_args
        return ("data",) + tuple(f"index{k}" for k in range(count - 1))

    @property
    def no_grad_inputs(self):
        return tuple(f"index{k}" for k in range(self.num_args - 1))

    def infer_shape(self, data, *index_shapes):
        probe = np.empty(data, dtype=np.int8)
        arrays = [np.zeros(shape, dtype=np.int64) for shape in index_shapes]
        try:
            result = probe[build_key(np, self.key, arrays)].shape
        except IndexError as error:
            raise self.shape_error(f"index out of range for shape {tuple(data)}: {error}")
        # MXNet's legacy shapes have no () (a scalar is (1,)); NumPy's shapes have
        return result if result or is_np_shape() else (1,)

    def infer_type(self, data, *index_types):
        return data

    def forward(self, xp, data, *index_arrays):
        return xp.asarray(data[build_key(xp, self.key, index_arrays)])

    def backward(self, xp, out_grad, input_shapes, **index_arrays):
        arrays = [index_arrays[f"index{k}"] for k in range(len(input_shapes) - 1)]
        grad = xp.zeros(input_shapes[0], dtype=out_grad.dtype)
        key = build_key(xp, self.key, arrays)
        target_shape = grad[key].shape
        xp.add.at(grad, key, out_grad.reshape(target_shape))
        return grad
