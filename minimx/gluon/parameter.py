"""Gluon parameters: a named weight with one copy (and one gradient) per device.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/parameter.py``.  A
Parameter may be created before its shape is known (dimensions given as 0).
``initialize`` then only records how to initialise it (deferred
initialisation); the Block that owns it completes the shape at the first
forward pass and calls ``_finish_deferred_init()``.  The values are drawn once
on the CPU and copied to every context, so all copies start equal.
``ParameterDict`` (in ``parameter_dict.py``) groups them by name prefix.
"""
import warnings

import numpy as np

from .. import autograd, initializer, ndarray, symbol
from ..base import (InvalidParameterError, InvalidShapeError, InvalidStorageTypeError,
                    InvalidTypeError, MXNetError)
from ..context import Context, cpu, current_context
from ..ndarray.sparse_array import check_host_context
from ..util import is_np_array, is_np_shape

__all__ = ["DeferredInitializationError", "Parameter", "Constant", "ParameterDict",
           "tensor_types", "shape_is_known"]

tensor_types = (symbol.Symbol, ndarray.NDArray)

_GRAD_REQS = ("write", "add", "null")
_STORAGE_TYPES = ("default", "row_sparse", "csr")


class DeferredInitializationError(MXNetError):
    """A Parameter was read before the first forward pass completed its shape."""


def shown_shape(shape):
    """``shape`` as MXNet prints it: an unknown dimension is 0, or -1 under NumPy's shape
    semantics (``npx.set_np()``), where 0 is a real size."""
    if shape is None or not is_np_shape():
        return shape
    return tuple(-1 if size <= 0 else size for size in shape)


def shape_is_known(shape):
    """True when ``shape`` is given and has no unknown (0) dimension.

    As in MXNet's legacy shape semantics, ``()`` counts as unknown.
    """
    if shape is None or len(shape) == 0:
        return False
    return all(dim > 0 for dim in shape)


def _as_shape(shape):
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(dim) for dim in shape)


def _as_context_list(ctx):
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    return list(ctx)


class Parameter:
    """A weight of a Block, with a copy and a gradient buffer on each context.

    Parameters
    ----------
    name : str
    grad_req : {'write', 'add', 'null'}, default 'write'
        How backward stores gradients; 'null' allocates no gradient.
    shape : int or tuple of int, optional
        0 marks a dimension that is not known yet (filled in at the first forward).
    dtype : str or numpy dtype, default float32
    lr_mult, wd_mult : float, default 1.0
        Multipliers of the optimizer's learning rate and weight decay.
    init : Initializer or str, optional
        This parameter's own initializer; it overrides the one given to ``initialize``.
    allow_deferred_init : bool, default False
        Whether ``initialize`` may wait for an unknown shape instead of failing.
    differentiable : bool, default True
        False forces ``grad_req='null'``.

    Examples
    --------
    >>> w = mx.gluon.Parameter('fc_weight', shape=(2, 3), init=mx.init.One())
    >>> w.initialize()
    >>> w.data().asnumpy()
    array([[1., 1., 1.],
           [1., 1., 1.]], dtype=float32)
    """

    # Bumped whenever any Parameter's list of arrays is replaced (initialize, cast, load,
    # reset_ctx, grad_req 'null'): a hybridized block compares one number per call to know
    # its cached parameter arrays are still the current ones.
    data_version = 0

    @property
    def _data(self):
        return self._arrays

    @_data.setter
    def _data(self, arrays):
        self._arrays = arrays
        Parameter.data_version += 1

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0,
                 wd_mult=1.0, init=None, allow_deferred_init=False, differentiable=True,
                 stype="default", grad_stype="default"):
        for what, value in (("stype", stype), ("grad_stype", grad_stype)):
            if value not in _STORAGE_TYPES:
                raise InvalidStorageTypeError(f"{what} for Parameter '{name}' must be one of "
                                            f"{_STORAGE_TYPES}, but got {value!r}")
        self.name = name
        self._shape = _as_shape(shape)
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.init = init
        self._allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        self._stype, self._grad_stype = stype, grad_stype
        self._var = None
        self._data = None           # one NDArray per context, or None before initialisation
        self._grad = None           # likewise for gradients (None when grad_req is 'null')
        self._ctx_list = None
        self._ctx_map = {}          # Context -> index into _data / _grad
        self._trainer = None
        self._deferred_init = ()    # (init, ctx_list, default_init, data) while waiting
        self._grad_req = None
        self.grad_req = grad_req

    def __repr__(self):
        return f"Parameter {self.name} (shape={self.shape}, dtype={self.dtype})"

    # -- attributes ------------------------------------------------------------------------
    @property
    def grad_req(self):
        """'write', 'add' or 'null'; setting 'null' drops the gradient buffers."""
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in _GRAD_REQS:
            raise InvalidParameterError(f"grad_req must be one of 'write', 'add', or 'null', "
                                        f"but got {req!r} (Parameter '{self.name}')")
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null" and self._grad is not None:
            self._grad = None
            self._data = [array.detach() for array in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        """The data type; setting it casts the data and gradients."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        """The shape, with 0 for dimensions not known yet, -1 under NumPy's shape semantics
        (``npx.set_np()``), where 0 is a size, as MXNet's (None if not given at all)."""
        return shown_shape(self._shape)

    @shape.setter
    def shape(self, new_shape):
        new_shape = _as_shape(new_shape)
        if self._shape is None:
            self._shape = new_shape
            return
        compatible = len(self._shape) == len(new_shape) and all(
            old in (0, -1, new) for new, old in zip(new_shape, self._shape))
        if not compatible:
            raise InvalidShapeError(
                f"Parameter '{self.name}': shape {new_shape} is incompatible with its "
                f"declared shape {self._shape} (0 marks an unknown dimension)")
        self._shape = new_shape

    def _set_trainer(self, trainer):
        """Remember the Trainer that updates this parameter (set_data keeps it in sync)."""
        self._trainer = trainer

    # -- initialisation ------------------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(),
                   force_reinit=False):
        """Allocate and fill the data (and gradient) on each context.

        Parameters
        ----------
        init : Initializer, optional
            Overrides ``self.init`` and ``default_init``.
        ctx : Context or list of Context, default the current context
            One independent copy is kept per context.
        default_init : Initializer, default Uniform()
            Used when neither ``init`` nor ``self.init`` is given.
        force_reinit : bool, default False
            Initialise again even if already initialised (otherwise: a warning).
        """
        if self._data is not None and not force_reinit:
            warnings.warn(f"Parameter '{self.name}' is already initialized, ignoring. "
                          f"Set force_reinit=True to re-initialize.", stacklevel=2)
            return
        self._data = self._grad = None
        ctx = _as_context_list(ctx)
        if init is None:
            init = default_init if self.init is None else self.init
        self._deferred_init = (init, ctx, default_init, None)
        if shape_is_known(self._shape):
            self._finish_deferred_init()
        elif not self._allow_deferred_init:
            self._deferred_init = ()
            raise InvalidShapeError(f"Cannot initialize Parameter '{self.name}' because it has "
                                    f"invalid shape: {self._shape}.")

    def _finish_deferred_init(self):
        """Complete a deferred initialisation once ``shape`` is fully known.

        The Block calls this at the first forward pass, after setting
        ``param.shape`` from shape inference.  Does nothing when nothing waits.
        """
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        if not shape_is_known(self._shape):
            raise InvalidShapeError(
                f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                f"{self._shape}. Please specify in_units, in_channels, etc for `Block`s.")
        self._deferred_init = ()
        with autograd.pause():
            if data is None:
                data = ndarray.zeros(self._shape, dtype=self._dtype, ctx=cpu())
                if is_np_array():       # an initializer of the user's sees an np array
                    data = data.as_np_ndarray()
                initializer.create(default_init)(
                    initializer.InitDesc(self.name, {"__init__": init}), data)
            self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        """Copy ``data`` to every context and allocate the gradients."""
        self._ctx_list = list(ctx_list)
        self._ctx_map = {ctx: index for index, ctx in enumerate(self._ctx_list)}
        self._data = [data.copyto(ctx) for ctx in self._ctx_list]
        if self._stype != "default":
            self._data = [array.tostype(self._stype) for array in self._data]
        if is_np_array():       # made in np mode (npx.set_np, use_np): np arrays, as MXNet's
            self._data = [array.as_np_ndarray() for array in self._data]
        self._init_grad()

    def _init_grad(self):
        """Allocate zero gradients and mark the data as autograd variables writing there."""
        if self.grad_req == "null":
            self._grad = None
            return
        for array in self._data:
            check_host_context(f"Parameter {self.name!r} (grad_stype)", self._grad_stype,
                               array.context)
        self._grad = [ndarray.sparse.zeros(self._grad_stype, array.shape, dtype=array.dtype,
                                           ctx=array.context) for array in self._data]
        if self._grad_stype == "default":
            self._grad = [grad._as_class(type(array)) for grad, array in zip(self._grad,
                                                                              self._data)]
        autograd.mark_variables(self._data, self._grad, self.grad_req)

    def _load_init(self, data, ctx=None, cast_dtype=False, dtype_source="current"):
        """(Re)initialise from a loaded NDArray, checking shape and dtype."""
        if self._shape:
            self._check_loaded_shape(data.shape)
        data = self._loaded_dtype(data, cast_dtype, dtype_source)
        ctx = None if ctx is None else _as_context_list(ctx)
        if self._data is None:
            if self._deferred_init:
                self._check_same_contexts(ctx, self._deferred_init[1])
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            with autograd.pause():
                self._init_impl(data, ctx)
        else:
            self._check_same_contexts(ctx, self._ctx_list)
            self.set_data(data)
        self._deferred_init = ()

    def _check_loaded_shape(self, saved_shape):
        matches = len(saved_shape) == len(self._shape) and all(
            mine in (0, -1, saved) for mine, saved in zip(self._shape, saved_shape))
        if not matches:
            raise InvalidShapeError(f"Failed loading Parameter '{self.name}' from saved params: "
                                    f"shape incompatible expected {self._shape} vs saved "
                                    f"{tuple(saved_shape)}")
        self._shape = tuple(saved_shape)

    def _loaded_dtype(self, data, cast_dtype, dtype_source):
        if dtype_source not in ("current", "saved"):
            raise InvalidParameterError(f"dtype_source must be 'current' or 'saved', got "
                                        f"{dtype_source!r}")
        if self._dtype is None:
            self._dtype = data.dtype
        if np.dtype(self._dtype) == np.dtype(data.dtype):
            return data
        if not cast_dtype:
            raise InvalidTypeError(
                f"Failed loading Parameter '{self.name}' from saved params: dtype incompatible "
                f"expected {np.dtype(self._dtype).name} vs saved {np.dtype(data.dtype).name}. "
                f"Set cast_dtype=True to cast the dtype of saved params.")
        if dtype_source == "current":
            return data.astype(self._dtype)
        self.cast(data.dtype)
        return data

    def _check_same_contexts(self, requested, existing):
        if requested is not None and set(requested) != set(existing):
            raise MXNetError(f"Failed to load Parameter '{self.name}' on {requested} because "
                             f"it was previously initialized on {list(existing)}.")

    # -- reading -------------------------------------------------------------------------------
    def _check_and_get(self, arrays, ctx):
        """``arrays`` on ``ctx`` (``list``: all of them), or a clear error why not."""
        if arrays is not None:
            if ctx is list:
                return arrays
            if ctx is None:
                if len(arrays) == 1:
                    return arrays[0]
                ctx = current_context()
            index = self._ctx_map.get(ctx)
            if index is not None:
                return arrays[index]
            raise MXNetError(f"Parameter '{self.name}' was not initialized on context {ctx}. "
                             f"It was only initialized on {self._ctx_list}.")
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet because initialization "
                f"was deferred. Actual initialization happens during the first forward pass. "
                f"Please pass one batch of data through the network before accessing "
                f"Parameters. You can also avoid deferred initialization by specifying "
                f"in_units, num_features, etc., for network layers.")
        raise MXNetError(
            f"Parameter '{self.name}' has not been initialized. Note that you should "
            f"initialize parameters and create Trainer with Block.collect_params() instead of "
            f"Block.params because the later does not include Parameters of nested child "
            f"Blocks")

    def data(self, ctx=None):
        """The value on ``ctx`` (default: the only context, else the current one)."""
        self._check_stype("data", "default")
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """The values on all contexts, in initialisation order."""
        self._check_stype("list_data", "default")
        return self._check_and_get(self._data, list)

    def row_sparse_data(self, row_id):
        """The rows ``row_id`` of a row_sparse Parameter, on ``row_id``'s context."""
        self._check_stype("row_sparse_data", "row_sparse")
        return ndarray.sparse.rows_of(self._check_and_get(self._data, row_id.context), row_id)

    def list_row_sparse_data(self, row_id):
        """The rows ``row_id`` of a row_sparse Parameter, on every context."""
        self._check_stype("list_row_sparse_data", "row_sparse")
        return [ndarray.sparse.rows_of(array, row_id.as_in_context(array.context))
                for array in self._check_and_get(self._data, list)]

    def _check_stype(self, method, needed):
        if (self._stype == "default") != (needed == "default"):
            hint = "row_sparse_data" if needed == "default" else "data"
            raise RuntimeError(f"Parameter '{self.name}': {method}() is for storage type "
                               f"{needed!r}, but this Parameter's stype is {self._stype!r}; "
                               f"use {hint}()")

    def _check_has_grad(self):
        if self._data is not None and self._grad is None:
            raise MXNetError(f"Cannot get gradient array for Parameter '{self.name}' because "
                             f"grad_req='null'")

    def grad(self, ctx=None):
        """The gradient buffer on ``ctx``."""
        self._check_has_grad()
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        """The gradient buffers on all contexts, in the order of ``list_data()``."""
        self._check_has_grad()
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts this parameter is (or, when deferred, will be) initialised on."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise MXNetError(f"Parameter '{self.name}' has not been initialized")
        return self._ctx_list

    def _reduce(self):
        """The mean of the copies, on the CPU (what ``save`` writes)."""
        arrays = self._check_and_get(self._data, list)
        if len(arrays) == 1:
            return arrays[0].copyto(cpu())
        return ndarray.add_n(*(array.copyto(cpu()) for array in arrays)) / len(arrays)

    # -- writing -------------------------------------------------------------------------------
    def set_data(self, data):
        """Set the value on every context (before a deferred init: the value it will use)."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise MXNetError(f"Parameter '{self.name}' has not been initialized")
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer
        if (trainer is not None and getattr(trainer, "_kv_initialized", False)
                and getattr(trainer, "_update_on_kvstore", False)
                and self not in getattr(trainer, "_params_to_init", ())):
            trainer._reset_kvstore()
        for array in self._data:
            # one copy per context: MXNet's ``x[:] = y`` copies across devices
            array[:] = (data.as_in_context(array.context)
                        if isinstance(data, ndarray.NDArray) else data)

    def zero_grad(self):
        """Set the gradients on every context to 0 (nothing to do without gradients)."""
        zero_gradients(self._grad or ())

    def reset_ctx(self, ctx):
        """Move the parameter to other context(s), keeping its (averaged) value."""
        ctx = _as_context_list(ctx)
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise MXNetError(f"Cannot reset context for Parameter '{self.name}' because it "
                             f"has not been initialized.")

    def cast(self, dtype):
        """Convert the data and gradients to ``dtype``."""
        self._dtype = dtype
        if self._data is None:
            return
        with autograd.pause():
            self._data = [array.astype(dtype) for array in self._data]
            if self._grad is None:
                return
            self._grad = [gradient.astype(dtype) for gradient in self._grad]
            autograd.mark_variables(self._data, self._grad, self.grad_req)

    def var(self):
        """This parameter as a Symbol variable (carrying shape, dtype, lr/wd mult, init)."""
        if self._var is None:
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult, init=self.init)
        return self._var


class Constant(Parameter):
    """A parameter that autograd and Trainer leave alone (``grad_req`` is always 'null').

    Its value can still be changed with ``set_data``.

    Examples
    --------
    >>> c = mx.gluon.Constant('scale', [[1, 2], [3, 4]])
    >>> c.initialize()
    >>> c.data().asnumpy()
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """

    def __init__(self, name, value):
        if not isinstance(value, ndarray.NDArray):
            value = ndarray.array(value)
        self.value = value
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=initializer.Constant(value))

    def __repr__(self):
        return f"Constant {self.name} (shape={self.shape}, dtype={self.dtype})"

    @property
    def grad_req(self):
        return "null"

    @grad_req.setter
    def grad_req(self, req):
        if req != "null":
            warnings.warn(f'Constant parameter "{self.name}" does not support grad_req other '
                          f'than "null", and new value "{req}" is ignored.', stacklevel=2)


def zero_gradients(gradients):
    """Set ``gradients`` to 0: the dense floating point ones of each device in one operation
    (``nd.reset_arrays``, as MXNet's ``zero_grad``), any other (sparse, integer) by itself."""
    dense = {}
    for gradient in gradients:
        if gradient.stype == "default" and np.dtype(gradient.dtype).kind == "f":
            dense.setdefault(gradient.context, []).append(gradient)
        else:
            ndarray.zeros_like(gradient, out=gradient)
    for group in dense.values():
        ndarray.reset_arrays(*group, num_arrays=len(group))


from .parameter_dict import ParameterDict  # noqa: E402  (MXNet's module path for it)
