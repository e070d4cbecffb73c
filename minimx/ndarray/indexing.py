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
from .ndarray import NDArray
from . import dispatch
from .register import call

__all__ = ["getitem", "setitem"]


def getitem(array, key):
    view = _first_axis_view(array, key)
    if view is not None:
        return view
    normalized, index_arrays = normalize_key(array, key)
    return call("_index", array, *index_arrays, key=normalized)


def _first_axis_view(array, key):
    if recording.is_recording() and array._autograd is not None:
        return None
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if not array._shape:
        return None
    length = array._shape[0]
    if isinstance(key, (numbers.Integral, np.integer)) and not isinstance(key, bool):
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
    return NDArray(array._chunk, shape, array._dtype, (array._view or ()) + (step,))


def normalize_key(array, key):
    """A hashable description of ``key`` and the index arrays it uses (as NDArrays)."""
    from .creation import array as make_array
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
        elif isinstance(item, (numbers.Integral, np.integer)) and not isinstance(item, bool):
            normalized.append(("int", int(item)))
        elif isinstance(item, (NDArray, np.ndarray, list, tuple)):
            if not isinstance(item, NDArray):
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
    try:
        fits = np.broadcast_shapes(reshaped if reshaped is not None else value_shape,
                                   target_shape) == target_shape
    except ValueError:
        fits = False
    if not fits:
        raise InvalidShapeError(f"operator _set_value: cannot assign a value of shape "
                                f"{value_shape} to a region of shape {target_shape}")
    return reshaped
