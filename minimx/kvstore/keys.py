"""Keys and values as KVStore calls accept them, turned into (key, [arrays]) pairs.

Lesson: 14-kvstore-and-distributed.
Mirrors ``_ctype_key_value`` in ``python/mxnet/kvstore/kvstore.py``
and the grouping of ``KVStoreLocal::GroupKVPairs`` in ``src/kvstore/kvstore_local.h``.
A call names one key or a list of keys; each key gets one NDArray or a list of
them (one per device).  Keys are all ``int`` or all ``str`` within one store.
"""
from numbers import Integral

from ..base import MXNetError
from ..ndarray import NDArray

__all__ = ["pairs", "grouped_pairs", "key_kind"]


def key_kind(key):
    """``int`` or ``str``: the kind of ``key``; anything else is a TypeError."""
    if isinstance(key, str):
        return str
    if isinstance(key, Integral) and not isinstance(key, bool):
        return int
    raise TypeError(f"KVStore keys must be int or str, got {key!r} ({type(key).__name__})")


def _as_arrays(key, value, what):
    """``value`` (an NDArray or a list of them) as a list of NDArrays."""
    arrays = list(value) if isinstance(value, (list, tuple)) else [value]
    for array in arrays:
        if not isinstance(array, NDArray):
            raise TypeError(f"KVStore.{what}: the value of key {key!r} must be an NDArray or a "
                            f"list of NDArrays, got {type(array).__name__}")
    if not arrays:
        raise MXNetError(f"KVStore.{what}: key {key!r} was given an empty list of values")
    return arrays


def pairs(key, value, what):
    """``[(key, [arrays]), ...]`` in call order; one key may appear more than once."""
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            count = len(value) if isinstance(value, (list, tuple)) else 1
            raise MXNetError(f"KVStore.{what}: {len(key)} keys but {count} values; give one "
                             f"value (or one list of values) per key")
        return [(one_key, _as_arrays(one_key, one_value, what))
                for one_key, one_value in zip(key, value)]
    return [(key, _as_arrays(key, value, what))]


def grouped_pairs(key, value, what):
    """Like ``pairs``, with the values of a key named twice put together (first-seen order)."""
    groups = {}
    for one_key, arrays in pairs(key, value, what):
        groups.setdefault(one_key, []).extend(arrays)
    return list(groups.items())
