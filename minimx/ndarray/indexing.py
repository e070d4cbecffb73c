"""``x[key]`` and ``x[key] = value`` on NDArrays.

Lesson: 02-ndarray-and-context.  Mirrors ``NDArray.__getitem__``/``__setitem__`` in MXNet
1.x: an int or a unit-step slice on the first axis gives a *view* sharing the
buffer (writing to it writes the original); any other key copies, through the
``_index`` operator so that autograd sees it.  MXNet returns shape ``(1,)``
where numpy would return a 0-d array.
"""
import numbers

import numpy as np

from .. import backend, engine
from ..tape import recording
from ..base import InvalidShapeError, InvalidTypeError, MXNetError
from ..op.getitem import build_key
from ..util import is_np_shape
from .ndarray import NDArray
from . import dispatch
from .register import call

__all__ = ["getitem", "setitem"]


def getitem(array, key):
    view = _first_axis_view(array, key)
    if view is not None:
        return view
    view = basic_view(array, key)
    if view is not None:
        # MXNet's legacy shapes have no (): one element picked by ints is (1,)
        return view if view._shape or is_np_shape() else _view(view, (1,), (1,))
    normalized, index_arrays = normalize_key(array, key)
    return call("_index", array, *index_arrays, key=normalized)


def basic_view(array, key):
    """``array[key]`` as a view on the same buffer, for a basic key of several ints and
    slices (``x[i, j]``, ``x[0, 0, 2:5]``) whose part is contiguous: MXNet 1.9.1's rule
    (``np.shares_memory`` says so; MXNet copies a strided part, ``x[2:5, 0]``).  A new
    axis (``None``) anywhere in the key is a view too (``x[None]``, ``x[:, None]``, as
    MXNet's).  The view has NumPy's shape (``()`` for one element).  None where a copy is
    made instead (a strided part, another kind of key, the first axis alone, a recorded
    array)."""
    if key is None:
        key = (None,)
    if not isinstance(key, tuple) or (len(key) < 2 and not any(item is None for item in key)) \
            or (recording.is_recording() and array._autograd is not None):
        return None
    for item in key:
        if item is not None and not isinstance(item, slice) and not _is_int(item):
            return None
    indices = [item for item in key if item is not None]    # the key without new axes
    shape, parts = array._shape, []         # parts: (size, stride in elements) of the view
    if len(indices) > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {len(indices)} were indexed")
    stride = 1
    for axis in range(len(shape) - 1, len(indices) - 1, -1):  # the axes the key leaves whole
        parts.append((shape[axis], stride))
        stride *= shape[axis]
    sizes = {}                              # a slice's axis -> its size in the view
    for axis in range(len(indices) - 1, -1, -1):
        item, length = indices[axis], shape[axis]
        if isinstance(item, slice):
            start, stop, step = item.indices(length)
            sizes[axis] = len(range(start, stop, step))
            parts.append((sizes[axis], stride * step))
        elif not -length <= item < length:
            raise IndexError(f"index {int(item)} is out of bounds for axis {axis} with "
                             f"size {length}")
        stride *= length
    if not _contiguous(parts):
        return None
    view_shape, axis = [], 0
    for item in key:
        if item is None:
            view_shape.append(1)
            continue
        if isinstance(item, slice):
            view_shape.append(sizes[axis])
        axis += 1
    view_shape = tuple(view_shape) + tuple(shape[len(indices):])
    return type(array)(array._chunk, view_shape, array._dtype,
                       (array._view or ()) + (key + (Ellipsis,),))


def _is_int(item):
    return isinstance(item, (numbers.Integral, np.integer)) and not isinstance(item, bool)


def _contiguous(parts):
    """Whether axes of (size, stride), innermost first, lie in one C-ordered block (NumPy's
    rule: axes of size 1 do not count, an empty part is contiguous)."""
    if any(size == 0 for size, _ in parts):
        return True
    expected = 1
    for size, stride in parts:
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _first_axis_view(array, key):
    if recording.is_recording() and array._autograd is not None:
        return None
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if not array._shape:
        return None
    length = array._shape[0]
    if _is_int(key):
        index = int(key)
        if not -length <= index < length:
            raise IndexError(f"index {index} is out of bounds for axis 0 with size {length}")
        index %= length
        if len(array._shape) == 1:
            return _view(array, slice(index, index + 1), (1,))
        return _view(array, index, array._shape[1:])
    if isinstance(key, slice) and key.step in (None, 1):
        start, stop, _ = key.indices(length)
        stop = max(start, stop)
        return _view(array, slice(start, stop), (stop - start,) + array._shape[1:])
    return None


def _view(array, step, shape):
    return type(array)(array._chunk, shape, array._dtype, (array._view or ()) + (step,))


def normalize_key(array, key):
    """A hashable description of ``key`` and the index arrays it uses (as NDArrays)."""
    items = key if isinstance(key, tuple) else (key,)
    normalized, index_arrays = [], []
    for item in items:
        if item is None:
            normalized.append(("none",))
        elif item is Ellipsis:
            normalized.append(("ellipsis",))
        elif isinstance(item, slice):
            normalized.append(("slice", _int_or_none(item.start), _int_or_none(item.stop),
                               _int_or_none(item.step)))
        elif _is_int(item):
            normalized.append(("int", int(item)))
        elif isinstance(item, (NDArray, np.ndarray, list, tuple)):
            if not isinstance(item, NDArray):
                from .creation import array as make_array
                item = make_array(np.asarray(item), ctx=array.context, dtype="int64")
            normalized.append(("array", len(index_arrays)))
            index_arrays.append(item)
        else:
            raise InvalidTypeError(f"NDArray index of type {type(item).__name__} is not "
                                   f"supported: {item!r}")
    return tuple(normalized), index_arrays


def _int_or_none(value):
    return None if value is None else int(value)


def setitem(array, key, value):
    """Write ``value`` (number, NDArray, numpy array or list) into ``array[key]``."""
    array._check_grad_free_write()
    normalized, index_arrays = normalize_key(array, key)
    if isinstance(value, NDArray) and recording.is_recording() and value._in_live_graph():
        # as MXNet: a whole-array assignment is a recorded copy; a part cannot be recorded
        if _selects_all(array, normalized, index_arrays):
            dispatch.recorded_copy(_fitted(array, normalized, index_arrays, value), array)
            return
        array._check_grad_free_write("the value assigned to a part of it comes from the "
                                     "recorded graph (only x[:] = y is recorded, as a copy)")
    reads = [index._chunk.var for index in index_arrays]
    if isinstance(value, NDArray):
        value = value.as_in_context(array.context)     # ``x[:] = y`` copies across devices
        reads.append(value._chunk.var)
    elif not isinstance(value, numbers.Number):
        value = np.asarray(value, dtype=array._dtype)
    xp = backend.get_xp(array.context)
    value_shape = _assignable_shape(array, normalized, index_arrays, value)

    def assign():
        target = array._read()
        raw_value = value._read() if isinstance(value, NDArray) else value
        if isinstance(raw_value, np.ndarray) and xp is not np:
            raw_value = xp.asarray(raw_value)
        if value_shape is not None:
            raw_value = raw_value.reshape(value_shape)
        target[build_key(xp, normalized, [index._read() for index in index_arrays])] = raw_value

    engine.push(assign, reads, [array._chunk.var], array.context, "_set_value",
                small=engine.is_small([array.shape]))


def _basic_shape(shape, normalized):
    """The shape of the region a normalized key of ints and slices selects in an array of
    ``shape``; None for any other key (numpy's indexing of a stand-in then decides, and
    words the error of an index out of range)."""
    if len(normalized) > len(shape):
        return None
    sizes = []
    for item, length in zip(normalized, shape):
        if item[0] == "slice":
            sizes.append(len(range(*slice(*item[1:]).indices(length))))
        elif item[0] != "int" or not -length <= item[1] < length:
            return None
    return tuple(sizes) + shape[len(normalized):]


def _selects_all(array, normalized, index_arrays):
    """Does the key select every element, in order (``x[:]``, ``x[...]``, ``x[0:n]``)?"""
    if index_arrays:
        return False
    size = int(np.prod(array._shape, dtype=np.int64))
    order = np.arange(size).reshape(array._shape)
    region = order[build_key(np, normalized, [])]
    return region.size == size and bool((region.reshape(-1) == order.reshape(-1)).all())


def _fitted(array, normalized, index_arrays, value):
    """``value`` with the leading axes of size 1 dropped that ``_assignable_shape`` drops."""
    shape = _assignable_shape(array, normalized, index_arrays, value)
    return value if shape is None else value.reshape(shape)


def _assignable_shape(array, normalized, index_arrays, value):
    """Check that ``value`` fits the region ``array[key]``; returns the shape to give the
    value first (None: as it is).  As in MXNet, leading axes of size 1 beyond the region's
    are dropped, so a one-element array fills a single element (``y[i, j] = x.sum()``)."""
    target_shape = None if index_arrays else _basic_shape(array._shape, normalized)
    if target_shape is None:
        probe = np.empty(array._shape, dtype=np.int8)
        arrays = [np.zeros(index.shape, dtype=np.int64) for index in index_arrays]
        try:
            target_shape = probe[build_key(np, normalized, arrays)].shape
        except IndexError as error:
            raise IndexError(f"NDArray of shape {array._shape}: {error}") from None
    value_shape = tuple(value.shape) if hasattr(value, "shape") else ()
    extra = len(value_shape) - len(target_shape)
    reshaped = None
    if extra > 0 and all(size == 1 for size in value_shape[:extra]):
        reshaped = value_shape[extra:]
    fitted = reshaped if reshaped is not None else value_shape
    try:
        fits = fitted == target_shape or np.broadcast_shapes(fitted, target_shape) == \
            target_shape
    except ValueError:
        fits = False
    if not fits:
        raise InvalidShapeError(f"operator _set_value: cannot assign a value of shape "
                                f"{value_shape} to a region of shape {target_shape}")
    return reshaped
