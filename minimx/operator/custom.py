"""The ``Custom`` operator: the one registry entry through which every user Prop runs.

Lesson: 04-autograd, 08-executors.  Mirrors ``src/operator/custom/custom.cc``.
Its parameter ``op_type`` picks the registered ``CustomOpProp``; every other
attribute goes to the Prop's ``__init__`` as a string.  Inputs, outputs,
auxiliary states, shapes and dtypes come from the Prop, so ``nd``, autograd,
``sym`` and the Executor run it like any other operator.  ``forward`` and
``backward`` wrap the raw arrays as NDArrays and call the user's ``CustomOp``.
That code may run inside an engine worker, so the nd calls it makes run at once
in its own thread (``engine.run_inline``) instead of queueing behind it.
"""
import contextlib

import numpy as np

from .. import autograd, engine
from ..engine import events
from ..base import (DTYPE_TO_FLAG, InvalidParameterError, InvalidShapeError, InvalidTypeError,
                    MXNetError, OperatorFailedError)
from ..context import Context
from ..ndarray.ndarray import Chunk, NDArray
from ..op.call import own_buffers
from ..op.registry import OpDef, Param, TestHints, register_op
from .prop import PROPS

__all__ = ["Custom"]


class ForwardedParams(dict):
    """Custom's parameters: ``op_type``, plus any other attribute, which goes to the Prop.

    The graph code asks ``key in op.params`` to sort a node's attributes into
    parameters and the rest; for Custom every attribute but the ``__dunder__``
    ones (``__shape__``, ``__ctx_group__``) is a parameter.
    """

    def __contains__(self, key):
        return dict.__contains__(self, key) or (
            isinstance(key, str) and not (key.startswith("__") and key.endswith("__")))


@register_op
class Custom(OpDef):
    """Run a user-written operator: the ``mx.operator.CustomOpProp`` registered as ``op_type``."""

    name = "Custom"
    inputs = ()            # set per instance: the Prop's arguments, then its auxiliary states
    outputs = ()           # set per instance: the Prop's outputs
    named_outputs = True   # <name>_<the Prop's output name>
    fixed_inference = False   # the Prop's infer_shape/infer_type are the user's code
    params = ForwardedParams(
        op_type=Param(str, doc="the name the CustomOpProp was registered under; other "
                               "keyword arguments go to its __init__ as strings"))
    test = TestHints(params={"op_type": "_example_square"}, shapes=((2, 3),), low=-2, high=2,
                     reference=lambda np, data: data * data)

    def __init__(self, op_type=None, **attrs):
        self.op_type = None if op_type is None else str(op_type)
        if op_type is None:
            raise self.param_error("parameter 'op_type' (str) is required: the name given to "
                                   "@mx.operator.register")
        self.attrs = {key: str(value) for key, value in attrs.items()}
        self.prop = self._make_prop()
        self.arguments = self._names("list_arguments")
        self.aux = self._names("list_auxiliary_states")
        self.outputs = self._names("list_outputs")
        self.inputs = self.arguments + self.aux
        # backward receives every input and output (declare_backward_dependency is not used
        # to free memory: in_grad needs each argument's shape and dtype anyway)
        self.saves = self.inputs + self.outputs
        # need_top_grad=False: a loss, whose backward reads no head gradient (MXNet's custom
        # softmax example trains so with Module.fit and no out_grads)
        self.head_gradient = bool(self.prop.need_top_grad_)
        self._check_names()
        self._operators = {}      # (ctx, shapes, dtypes) -> the CustomOp made for them

    @classmethod
    def create(cls, **kwargs):
        """A new instance for each call or symbol node (never shared, unlike other ops).

        It holds the Prop and the ``CustomOp`` it creates, which keeps state
        between the ``forward`` and ``backward`` of one call, as in MXNet.
        """
        return cls(**kwargs)

    def param_values(self):
        return {"op_type": self.op_type, **self.attrs}

    # -- the Prop ---------------------------------------------------------------------------
    def _make_prop(self):
        if self.op_type.lower() not in PROPS.classes:
            known = ", ".join(sorted(PROPS.classes)) or "none"
            raise self.param_error(f"no custom operator is registered under this op_type "
                                   f"(registered: {known}); use @mx.operator.register(name)")
        try:
            return PROPS.create(self.op_type, **self.attrs)
        except Exception as error:  # noqa: BLE001 - the user's __init__, reported with the op
            raise self.param_error(f"CustomOpProp.__init__ with arguments {self.attrs} raised "
                                   f"{type(error).__name__}: {error}") from error

    def _names(self, method):
        names = self._call_prop(method, InvalidParameterError)
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise self.param_error(f"CustomOpProp.{method} must return a list of strings, "
                                   f"got {names!r}")
        return tuple(names)

    def _check_names(self):
        every = self.inputs + self.outputs
        repeated = sorted({name for name in every if every.count(name) > 1})
        if repeated:
            raise self.param_error(f"the names of arguments, auxiliary states and outputs "
                                   f"must differ; repeated: {repeated}")

    def _call_prop(self, method, error_class, *args):
        try:
            return getattr(self.prop, method)(*args)
        except MXNetError:
            raise
        except Exception as error:  # noqa: BLE001 - the user's code, reported with the op
            raise self._error(error_class, f"CustomOpProp.{method} raised "
                                           f"{type(error).__name__}: {error}") from error

    def _error(self, error_class, message):
        return error_class(f"operator Custom (op_type {self.op_type!r}): {message}")

    def shape_error(self, message):
        return self._error(InvalidShapeError, message)

    def type_error(self, message):
        return self._error(InvalidTypeError, message)

    def param_error(self, message):
        return self._error(InvalidParameterError, message)

    # -- shapes and dtypes ---------------------------------------------------------------------
    def _prop_answer(self, method, result, error):
        """Check the Prop's (arguments, outputs[, aux]) answer; return it as three lists."""
        counts = (len(self.arguments), len(self.outputs), len(self.aux))
        if isinstance(result, (list, tuple)) and len(result) == 2 and not self.aux:
            result = (*result, [])
        if (not isinstance(result, (list, tuple)) or len(result) != 3
                or any(not isinstance(part, (list, tuple)) for part in result)
                or tuple(len(part) for part in result) != counts):
            raise error(f"CustomOpProp.{method} must return (argument, output, aux) lists of "
                        f"lengths {counts} for arguments {list(self.arguments)}, outputs "
                        f"{list(self.outputs)} and aux states {list(self.aux)}; got {result!r}")
        return [list(part) for part in result]

    def _prop_shapes(self, shapes):
        in_shape = [list(shape) if shape else [] for shape in shapes[:len(self.arguments)]]
        result = self._call_prop("infer_shape", InvalidShapeError, in_shape)
        parts = self._prop_answer("infer_shape", result, self.shape_error)
        return [[tuple(int(size) for size in shape) for shape in part] for part in parts]

    def infer_input_shapes(self, *shapes):
        if all(shape is not None and all(shape) for shape in shapes):
            return list(shapes)
        try:
            in_shapes, _, aux_shapes = self._prop_shapes(shapes)
        except InvalidShapeError as error:
            if error.__cause__ is not None:
                return list(shapes)      # the Prop's code cannot handle unknown shapes yet
            raise                        # a malformed answer is an error at once
        return [completed if completed else given
                for given, completed in zip(shapes, in_shapes + aux_shapes)]

    def infer_shape(self, *shapes):
        in_shapes, out_shapes, aux_shapes = self._prop_shapes(shapes)
        for name, given, expected in zip(self.inputs, shapes, in_shapes + aux_shapes):
            if tuple(given) != expected:
                raise self.shape_error(f"input '{name}' has shape {tuple(given)}, but "
                                       f"CustomOpProp.infer_shape expects {expected}")
        return out_shapes

    def infer_type(self, *dtypes):
        in_type = [np.dtype(dtype).type for dtype in dtypes[:len(self.arguments)]]
        result = self._call_prop("infer_type", InvalidTypeError, in_type)
        return self._prop_answer("infer_type", result, self.type_error)[1]

    # -- running the user's CustomOp ----------------------------------------------------------
    def _operator(self, ctx, arrays):
        """The CustomOp for inputs like ``arrays`` (made by ``create_operator`` once)."""
        shapes = [list(a.shape) for a in arrays]
        dtypes = [DTYPE_TO_FLAG[np.dtype(a.dtype)] for a in arrays]
        key = (str(ctx), tuple(map(tuple, shapes)), tuple(dtypes))
        operator = self._operators.get(key)
        if operator is None:
            operator = self._call_prop("create_operator", OperatorFailedError, ctx,
                                       shapes, dtypes)
            self._operators[key] = operator
        return operator

    @contextlib.contextmanager
    def _running(self, method, is_train):
        """Run the user's ``method``: nd calls at once, nothing recorded, errors named."""
        with engine.run_inline(), autograd.pause(train_mode=bool(is_train)):
            try:
                yield
            except Exception as error:  # noqa: BLE001 - the user's code, reported with the op
                raise self._error(OperatorFailedError, f"CustomOp.{method} raised "
                                  f"{type(error).__name__}: {error}") from error

    def forward(self, xp, /, *arrays, is_train=False):
        ctx = _context_of(arrays)
        count = len(self.arguments)
        in_data = [_wrap(array, ctx) for array in arrays[:count]]
        aux = [_wrap(array, ctx) for array in arrays[count:]]
        shapes = self.infer_shape(*[a.shape for a in arrays])
        dtypes = self.output_types([np.dtype(a.dtype).name for a in arrays])
        out_data = [_wrap(xp.zeros(shape, dtype), ctx) for shape, dtype in zip(shapes, dtypes)]
        operator = self._operator(ctx, arrays)
        with self._running("forward", is_train), events.region(self.op_type):
            operator.forward(is_train=int(bool(is_train)), req=["write"] * len(out_data),
                             in_data=in_data, out_data=out_data, aux=aux)
        for raw, state in zip(arrays[count:], aux):
            if state._read() is not raw:
                raw[...] = state._read()         # auxiliary states are updated in place
        results = own_buffers([o._read() for o in out_data], arrays)
        return results[0] if len(results) == 1 else tuple(results)

    def backward(self, xp, /, *out_grads, **saved):
        ctx = _context_of(out_grads)
        in_data = [_wrap(saved[name], ctx) for name in self.arguments]
        out_data = [_wrap(saved[name], ctx) for name in self.outputs]
        aux = [_wrap(saved[name], ctx) for name in self.aux]
        in_grad = [_wrap(xp.zeros(x.shape, x._dtype), ctx) for x in in_data]
        operator = self._operator(ctx, [saved[name] for name in self.inputs])
        with self._running("backward", True), events.region(f"_backward_{self.op_type}"):
            operator.backward(req=["write"] * len(in_grad),
                              out_grad=[_wrap(g, ctx) for g in out_grads], in_data=in_data,
                              out_data=out_data, in_grad=in_grad, aux=aux)
        grads = own_buffers([g._read() for g in in_grad], [*saved.values(), *out_grads])
        return tuple(grads) + (None,) * len(self.aux)


def _context_of(arrays):
    """The device of the raw arrays (numpy: cpu(0); CuPy: their GPU)."""
    for array in arrays:
        device = getattr(array, "device", None)
        if isinstance(array, np.ndarray) or device is None:
            return Context("cpu", 0)
        return Context("gpu", device.id)
    return Context("cpu", 0)


def _wrap(array, ctx):
    """An NDArray on the raw array itself (no copy): the user's view of an operator buffer."""
    return NDArray(Chunk(ctx, array), array.shape, array.dtype)
