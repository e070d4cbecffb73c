"""``gluon.utils``: splitting batches across devices, gradient clipping, file checks.

Lesson: 14-kvstore-and-distributed.  Mirrors ``python/mxnet/gluon/utils.py``.
``split_and_load`` is the data-parallel half of multi-device training (the
Trainer's KVStore is the other half); ``clip_global_norm`` rescales a list of
gradients so their joint L2 norm stays below a bound.  minimx never reaches
the network: ``download`` only accepts a file that is already in place.
"""
import hashlib
import os
import warnings

import numpy as np

from .. import ndarray as nd
from ..base import InvalidParameterError, MXNetError
from ..ndarray import NDArray
from .parameter import shape_is_known

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download",
           "replace_file", "shape_is_known"]


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split ``data`` into ``num_slice`` slices along ``batch_axis``.

    With ``even_split=False`` the first ``size % num_slice`` slices get one more
    element.  Always returns a list.

    Examples
    --------
    >>> [s.shape for s in mx.gluon.utils.split_data(nd.zeros((5, 2)), 2, even_split=False)]
    [(3, 2), (2, 2)]
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise InvalidParameterError(
            f"data with shape {data.shape} cannot be evenly split into {num_slice} slices "
            f"along axis {batch_axis}. Use a batch size that's multiple of {num_slice} or set "
            f"even_split=False to allow uneven partitioning of data.")
    each, extras = divmod(size, num_slice)
    sizes = [each + 1] * extras + [each] * (num_slice - extras)
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    if batch_axis == 0:
        return [data[int(bounds[i]):int(bounds[i + 1])] for i in range(num_slice)]
    return [nd.slice_axis(data, axis=batch_axis, begin=int(bounds[i]), end=int(bounds[i + 1]))
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` into ``len(ctx_list)`` slices and copy slice ``i`` to ``ctx_list[i]``.

    Examples
    --------
    >>> parts = mx.gluon.utils.split_and_load(nd.arange(4), [mx.cpu(0), mx.cpu(1)])
    >>> [p.context for p in parts]
    [cpu(0), cpu(1)]
    """
    if not isinstance(data, NDArray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [part.as_in_context(ctx) for part, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale ``arrays`` in place so that their joint L2 norm is at most ``max_norm``.

    Returns the norm before scaling (a float, or an NDArray when
    ``check_isfinite=False``, which avoids waiting for it).

    Examples
    --------
    >>> grads = [nd.array([3.0]), nd.array([4.0])]
    >>> float(mx.gluon.utils.clip_global_norm(grads, 1.0))
    5.0
    >>> round(float(grads[0].asscalar()), 3)
    0.6
    """
    if not arrays:
        raise InvalidParameterError("clip_global_norm needs at least one array")
    ctx = arrays[0].context
    squares = [_squared_norm(a).as_in_context(ctx) for a in arrays]
    total_norm = nd.sqrt(nd.add_n(*squares))
    if check_isfinite and not np.isfinite(total_norm.asscalar()):
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be "
                                  "undefined."), stacklevel=2)
    scale = max_norm / (total_norm + 1e-8)
    scale = nd.min(nd.concat(scale, nd.ones((1,), ctx=ctx), dim=0))
    for array in arrays:
        array *= scale.as_in_context(array.context)
    return total_norm.asscalar() if check_isfinite else total_norm


def _squared_norm(array):
    if array.stype != "default":                # a sparse array has no flat view
        array = array.tostype("default")
    flat = array.reshape((-1,))
    return nd.dot(flat, flat)


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of ``filename``'s content is ``sha1_hash`` (hex digits)."""
    digest = hashlib.sha1()
    with open(filename, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest() == sha1_hash


def replace_file(src, dst):
    """Move ``src`` to ``dst`` atomically, replacing ``dst``; on failure ``src`` is removed."""
    try:
        os.replace(src, dst)
    except OSError as err:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError(f"Moving temporary file {src} to {dst} failed. Please retry.") from err


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """The local path of ``url``'s file, which must already be there (minimx never downloads).

    The path is worked out as MXNet does (``path`` as a file, or a folder to put
    the URL's file name in, default the current folder).  A missing file, a file
    with the wrong SHA-1, or ``overwrite=True`` raise an error that says where to
    put the file.
    """
    if retries < 0:
        raise InvalidParameterError(f"Number of retries should be at least 0, currently it's "
                                    f"{retries}")
    fname = _download_target(url, path)
    if os.path.exists(fname) and not overwrite:
        if not sha1_hash or check_sha1(fname, sha1_hash):
            return fname
        problem = f"{fname} exists but its SHA-1 is not {sha1_hash}"
    elif overwrite:
        problem = f"overwrite=True asks to fetch {fname} again"
    else:
        problem = f"{fname} does not exist"
    raise MXNetError(f"minimx does not download files: {problem}. Fetch {url} yourself and "
                     f"save it as {os.path.abspath(fname)}"
                     + (f" (SHA-1 {sha1_hash})" if sha1_hash else "") + ".")


def _download_target(url, path):
    if path is None:
        fname = url.split("/")[-1]
        if not fname:
            raise InvalidParameterError("Can't construct file-name from this URL. Please set "
                                        "the `path` option manually.")
        return fname
    path = os.path.expanduser(path)
    if os.path.isdir(path):
        return os.path.join(path, url.split("/")[-1])
    return path
