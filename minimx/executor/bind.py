"""``Symbol.bind`` and ``Symbol.simple_bind``: from a graph to an Executor.

Lesson: 08-executors.  ``bind`` takes the arrays you give it; ``simple_bind``
infers every shape from the input shapes you name and allocates the arrays
(zeros) itself, as MXNet's does.
"""
import warnings

from ..base import ContextMismatchError, InvalidParameterError, InvalidTypeError, MXNetError
from ..context import current_context
from ..ndarray import NDArray, zeros
from ..ndarray.sparse import zeros as sparse_zeros
from ..ndarray.sparse_array import class_of
from ..symbol import inference
from ..symbol.storage import gradient_storage_types, variable_storage_type
from .executor import Executor
from .placement import check_group2ctx, variable_contexts

__all__ = ["bind", "simple_bind", "argument_storage_types", "argument_gradient_storage_types",
           "new_array"]


def _as_list(symbol_names, given, what, allow_missing=False):
    if given is None:
        return [None] * len(symbol_names)
    if isinstance(given, dict):
        unknown = set(given) - set(symbol_names)
        if unknown:
            # MXNet's bind ignores entries the graph has no input for (one dict of arrays
            # can serve several graphs); minimx does too, and says which
            warnings.warn(f"bind: {what} has names the graph does not use, ignored: "
                          f"{sorted(unknown)} (its inputs are {symbol_names})", stacklevel=4)
        missing = [n for n in symbol_names if n not in given]
        if missing and not allow_missing:
            raise InvalidParameterError(f"bind: {what} is missing {missing}")
        return [given.get(name) for name in symbol_names]
    given = list(given)
    if len(given) != len(symbol_names):
        raise InvalidParameterError(f"bind: {what} has {len(given)} arrays, the symbol needs "
                                    f"{len(symbol_names)} ({symbol_names})")
    return given


def _grad_reqs(names, grad_req):
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(names)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(name, "null") for name in names]
    else:
        reqs = list(grad_req)
    for name, req in zip(names, reqs):
        if req not in ("write", "add", "null"):
            raise InvalidParameterError(f"bind: grad_req for {name!r} must be write, add or "
                                        f"null, got {req!r}")
    return reqs


def argument_storage_types(symbol, stype_dict=None):
    """{argument or auxiliary name: storage type}: ``stype_dict``'s, else the Variable's
    ``stype`` (its ``__storage_type__`` attribute), else 'default'."""
    stype_dict = stype_dict or {}
    for name, stype in stype_dict.items():
        class_of(stype)              # an unknown storage type is refused here
    variables = {node.name: node for node in symbol._order() if node.is_variable}
    return {name: stype_dict.get(name) or variable_storage_type(variables[name])
            for name in symbol.list_arguments() + symbol.list_auxiliary_states()}


def argument_gradient_storage_types(symbol, shapes, stypes):
    """{argument name: its gradient's storage type} (``symbol/storage.py``), for arguments
    of these shapes (name -> shape) and storage types.  The shapes matter only where a
    sparse value meets an operator (its kernel depends on them): with every argument dense
    and no ``cast_storage`` in the graph, every value is dense and they are not inferred."""
    order = symbol._order()
    dense = all(stype == "default" for stype in stypes.values()) and not any(
        node.op_name() == "cast_storage" for node in order)
    values = {} if dense else inference.infer_shapes(symbol._entries, shapes, order)[1]
    return gradient_storage_types(symbol._entries, values, stypes, order)


def new_array(shape, ctx, dtype, stype):
    """A zero array of any storage type (a sparse one stores nothing)."""
    if stype == "default":
        return zeros(shape, ctx=ctx, dtype=dtype)
    return sparse_zeros(stype, shape, ctx=ctx, dtype=dtype)


def bind(symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None,
         group2ctx=None, shared_exec=None):
    """An Executor over the given argument arrays (list in ``list_arguments`` order, or dict).

    ``shared_exec``: in MXNet the new executor draws its memory from that executor's pool;
    in minimx the two keep one forward's saved values between them, the last one's
    (``Executor._claim_saved_memory``; the results are the same).  ``group2ctx``: see
    ``placement.py``.
    """
    check_group2ctx(ctx, group2ctx, "bind")
    arg_names = symbol.list_arguments()
    aux_names = symbol.list_auxiliary_states()
    arg_arrays = _as_list(arg_names, args, "args")
    for name, array in zip(arg_names, arg_arrays):
        if not isinstance(array, NDArray):
            raise InvalidTypeError(f"bind: argument {name!r} must be an NDArray, got "
                                   f"{type(array)}")
    grad_arrays = None if args_grad is None else _as_list(arg_names, args_grad, "args_grad",
                                                          allow_missing=True)
    reqs = _grad_reqs(arg_names, grad_req)
    if grad_arrays is not None:
        reqs = [req if grad is not None else "null" for req, grad in zip(reqs, grad_arrays)]
    aux_arrays = _as_list(aux_names, aux_states or ([] if not aux_names else None), "aux_states")
    if any(array is None for array in aux_arrays):
        raise MXNetError(f"bind: auxiliary states {aux_names} must be given")
    _check_device_type(ctx, [("argument", arg_names, arg_arrays),
                             ("gradient", arg_names, grad_arrays or []),
                             ("auxiliary state", aux_names, aux_arrays)])
    return Executor(symbol, ctx, arg_arrays, grad_arrays, reqs, aux_arrays, group2ctx,
                    shared_exec)


def _check_device_type(ctx, groups):
    """Refuse an array on another device type than ``ctx``: minimx runs a graph on one
    array library (MXNet would insert copies between the devices)."""
    for kind, names, arrays in groups:
        for name, array in zip(names, arrays):
            if array is not None and array.context.device_type != ctx.device_type:
                raise ContextMismatchError(
                    f"bind: {kind} {name!r} is on {array.context}, but the executor runs on "
                    f"{ctx}; minimx runs a graph on one device type: bind on "
                    f"{array.context}, or copy it with as_in_context({ctx})")


def simple_bind(symbol, ctx=None, grad_req="write", type_dict=None, stype_dict=None,
                group2ctx=None, shared_arg_names=None, shared_exec=None, shared_buffer=None,
                **shapes):
    """Infer every shape from ``shapes`` (e.g. ``data=(32, 100)``), allocate and bind.

    As in MXNet: arguments named in ``shared_arg_names`` use ``shared_exec``'s arrays
    (and gradient arrays) when their shape and dtype match, so several executors share
    their parameters (BucketingModule's buckets); any other argument or gradient found in
    ``shared_buffer`` (name -> NDArray) with the right shape and dtype is reused, and
    the new ones are added to it.  ``stype_dict`` (name -> 'csr', 'row_sparse' or
    'default') gives an argument its storage type, else its Variable's ``stype`` does; a
    gradient gets the storage type backward gives it (``symbol/storage.py``: ``dot(csr, w)``
    makes ``w``'s row_sparse).  ``group2ctx`` puts each group's arrays on its context
    (``placement.py``).
    """
    ctx = ctx or current_context()
    stypes = argument_storage_types(symbol, stype_dict)
    check_group2ctx(ctx, group2ctx, "simple_bind")
    # as MXNet's simple_bind: only tuples (and lists) are shapes; other keyword values
    # (``axis=0`` passed along with the shapes) are not arguments and are ignored
    shapes = {name: shape for name, shape in shapes.items() if isinstance(shape, (tuple, list))}
    arg_shapes, _, aux_shapes = symbol.infer_shape_partial(**shapes)
    names = symbol.list_arguments() + symbol.list_auxiliary_states()
    unknown = [n for n, s in zip(names, arg_shapes + aux_shapes) if not s or 0 in s or -1 in s]
    if unknown:
        raise MXNetError(f"simple_bind: cannot infer the shapes of {unknown}; give them as "
                         f"keyword arguments")
    # what type_dict (and the graph from it) decides; any other array is float32, as in MXNet
    arg_types, _, aux_types = symbol.infer_type_partial(**(type_dict or {}))
    arg_names = symbol.list_arguments()
    reqs = _grad_reqs(arg_names, grad_req)
    shared = set(shared_arg_names or ()) if shared_exec is not None else set()
    grad_stypes = argument_gradient_storage_types(symbol, dict(zip(arg_names, arg_shapes)),
                                                  stypes)
    source = _SharedArrays(ctx, shared_exec, shared_buffer, variable_contexts(symbol, ctx,
                                                                             group2ctx),
                           stypes, grad_stypes)
    args, grads = [], []
    for name, shape, dtype, req in zip(arg_names, arg_shapes, arg_types, reqs):
        args.append(source.get(name, shape, dtype, name in shared, gradient=False))
        grads.append(source.get(name, shape, dtype, name in shared, gradient=True)
                     if req != "null" else None)
    aux_names = symbol.list_auxiliary_states()
    aux = [source.get(name, shape, dtype, name in shared, gradient=False, aux=True)
           for name, shape, dtype in zip(aux_names, aux_shapes, aux_types)]
    return Executor(symbol, ctx, args, grads, reqs, aux, group2ctx, shared_exec)


class _SharedArrays:
    """Where simple_bind finds an array: ``shared_exec``, then ``shared_buffer``, then new."""

    def __init__(self, ctx, shared_exec, shared_buffer, contexts, stypes, grad_stypes):
        self.ctx, self.shared_exec, self.buffer = ctx, shared_exec, shared_buffer
        self.contexts, self.stypes, self.grad_stypes = contexts, stypes, grad_stypes

    def get(self, name, shape, dtype, shared, gradient, aux=False):
        stype = self.grad_stypes.get(name, "default") if gradient else self.stypes[name]
        if shared:
            pool = (self.shared_exec.aux_dict if aux else
                    self.shared_exec.grad_dict if gradient else self.shared_exec.arg_dict)
            found = pool.get(name)
            if _fits(found, shape, dtype, stype):
                return found
        key = f"grad of {name}" if gradient else name      # MXNet's key for a gradient
        if self.buffer is not None and not aux:
            found = self.buffer.get(key)
            if _fits(found, shape, dtype, stype):
                return found
        array = new_array(shape, self.contexts.get(name, self.ctx), dtype, stype)
        if self.buffer is not None and not aux:
            self.buffer[key] = array
        return array


def _fits(array, shape, dtype, stype):
    return (isinstance(array, NDArray) and array.shape == tuple(shape) and array.stype == stype
            and (dtype is None or array.dtype == dtype))
