"""``mx.model``: checkpoints on disk, and the record handed to batch-end callbacks.

Lesson: 12-training-with-module.  Mirrors the checkpoint functions and ``BatchEndParam`` of
``python/mxnet/model.py``.  A checkpoint is two files that MXNet 1.x reads and
writes too: ``prefix-symbol.json`` (the graph) and ``prefix-0001.params`` (an
``nd.save`` dict whose names carry an ``arg:`` or ``aux:`` prefix).  Each file
is written to a temporary name and renamed, so a crash while saving never
leaves a truncated file in place of a good one.
"""
import logging
import os
from collections import namedtuple

from . import symbol as sym
from .base import FileFormatError, MXNetError
from .context import cpu
from .ndarray import utils as nd_utils

__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params"]

# What a batch-end callback receives (``Speedometer``, ``log_train_metric``): the epoch,
# the batch number within it, the training metric and the caller's local variables.
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (unless ``symbol`` is None) and ``prefix-%04d.params``.

    Parameters
    ----------
    prefix : str
        Path prefix of both files.
    epoch : int
        Epoch number in the parameter file's name.
    symbol : Symbol or None
        The network.
    arg_params, aux_params : dict of str to NDArray
        Weights and auxiliary states (saved from the CPU, as ``arg:name``/``aux:name``).
    remove_amp_cast : bool
        Accepted for MXNet compatibility (minimx graphs hold no AMP casts).
    """
    if symbol is not None:
        _write_atomically(f"{prefix}-symbol.json", symbol.tojson().encode("utf-8"))
    named = [(f"arg:{name}", value) for name, value in arg_params.items()]
    named += [(f"aux:{name}", value) for name, value in aux_params.items()]
    arrays = [value.as_in_context(cpu()) for _, value in named]
    param_name = "%s-%04d.params" % (prefix, epoch)
    _write_atomically(param_name, nd_utils.encode(arrays, [name for name, _ in named]))
    logging.info('Saved checkpoint to "%s"', param_name)


def _write_atomically(fname, payload):
    """Write ``payload`` next to ``fname`` under a temporary name, then rename it over."""
    temporary = f"{fname}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as stream:
            stream.write(payload)
        os.replace(temporary, fname)
    except OSError as error:
        raise MXNetError(f"cannot save {fname!r}: {error.strerror or error}") from error
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``, the prefixes stripped."""
    fname = "%s-%04d.params" % (prefix, epoch)
    saved = nd_utils.load(fname)
    arg_params, aux_params = {}, {}
    if not saved:
        logging.warning("Params file '%s' is empty", fname)
        return (arg_params, aux_params)
    if not isinstance(saved, dict):
        raise FileFormatError(f"{fname}: expected named arrays ('arg:...', 'aux:...'), "
                              f"got a list of {len(saved)} unnamed arrays")
    for key, value in saved.items():
        kind, colon, name = key.partition(":")
        if not colon:
            raise FileFormatError(f"{fname}: parameter {key!r} has no 'arg:' or 'aux:' prefix "
                                  f"(a Gluon parameter file? use load_parameters)")
        if kind == "arg":
            arg_params[name] = value
        elif kind == "aux":
            aux_params[name] = value
    return (arg_params, aux_params)


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` from a checkpoint written by minimx or MXNet 1.x.

    Examples
    --------
    >>> import os, tempfile
    >>> prefix = os.path.join(tempfile.mkdtemp(), "net")
    >>> net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    >>> save_checkpoint(prefix, 1, net, {"fc_weight": nd.ones((2, 3))}, {})
    >>> symbol, args, aux = load_checkpoint(prefix, 1)
    >>> symbol.list_arguments(), sorted(args), aux
    (['data', 'fc_weight', 'fc_bias'], ['fc_weight'], {})
    """
    symbol = sym.load(f"{prefix}-symbol.json")
    arg_params, aux_params = load_params(prefix, epoch)
    return (symbol, arg_params, aux_params)
