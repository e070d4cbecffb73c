"""The operator registry: every operator is one ``OpDef`` subclass, declared once.

Lesson: 07-symbolic-programming (and every lesson that calls an operator).  Mirrors MXNet's
``NNVM_REGISTER_OP`` attribute bags (``FInferShape``, ``FInferType``,
``FCompute``, ``FGradient``) gathered into one Python class.

From one declaration minimx builds ``nd.<name>`` (and later ``sym.<name>``),
the NDArray method, shape and type inference, the autograd rule and the
per-operator tests.  ``forward`` and ``backward`` take ``xp`` (numpy or CuPy)
and raw arrays, and return raw arrays: no NDArray, engine or global state.
"""
import inspect
import math
from dataclasses import dataclass, field

from ..base import InvalidParameterError, InvalidShapeError, InvalidTypeError, normalize_dtype
from ..util import is_np_shape, serve_on_first_use
from .params import Param

__all__ = ["OpDef", "Param", "TestHints", "register_op", "declare_op", "get_op", "list_ops",
           "OPS", "ALL_NEEDED"]

OPS = {}            # name or alias -> OpDef subclass
_INSTANCE_CACHE = {}
_INSTANCE_CACHE_LIMIT = 4096


def params_key(items):
    """``items`` (name, value) as a cache key.  ``-0.0 == 0.0`` and both hash alike, but
    they are two parameters (``maximum(x, -0.0)`` gives ``-0`` where ``maximum(x, 0.0)``
    gives ``+0``, as in MXNet): a negative zero is keyed as ``(-0.0, "-0")``."""
    items = tuple(items)
    for _, value in items:
        if type(value) is float and value == 0 and math.copysign(1.0, value) < 0:
            return tuple((name, (value, "-0") if type(value) is float and value == 0
                          and math.copysign(1.0, value) < 0 else value)
                         for name, value in items)
    return items


class _EveryInput:
    """The default ``needs`` of ``backward``: every gradient is wanted (``needs[i]`` is True)."""

    def __getitem__(self, index):
        return True

    def __repr__(self):
        return "ALL_NEEDED"


ALL_NEEDED = _EveryInput()


@dataclass
class TestHints:
    """What the generated tests need to exercise an operator.

    ``shapes``: input shapes of the default case; ``cases``: extra
    ``(params, shapes)`` pairs, each complete (no params inherited from
    ``params``); ``low``/``high``: the input range (keep it away from kinks);
    ``integer_inputs``: input name -> ``n`` (whole numbers in ``[0, n)``) or
    ``(lo, hi)``, stored in the case dtype unless ``input_dtypes`` names another
    (input name -> dtype, for operators that refuse float indices); ``reference``: a numpy function
    ``reference(np, *inputs, **params)`` giving the expected visible output(s),
    which receives the case parameters its signature names (long references
    live in ``tests/op/references.py``, keyed by operator name); ``grad``: False
    where a numeric gradient makes no sense, or a tuple of the case numbers (0 the
    default case) whose gradient is checked, where the others pass through a
    discontinuity (a class id compared for equality); ``undefined_values``: the output
    values are unspecified (``_empty``), so only shape and dtype are compared;
    ``inputs``: ``inputs(rng, shapes, dtype)`` returning the case's input arrays, for
    operators whose inputs need a structure random values lack (boxes whose corners are
    ordered, labels padded with -1); ``rng`` is a ``numpy.random.RandomState``;
    ``generated``: False for an operator no generated case can call (a control-flow
    operator needs a body graph), whose tests are written by hand.
    The generated tests live in ``tests/op/test_registry.py``.
    """

    shapes: tuple = ((2, 3),)
    params: dict = field(default_factory=dict)
    cases: tuple = ()
    low: float = -1.0
    high: float = 1.0
    integer_inputs: dict = field(default_factory=dict)
    reference: object = None
    grad: object = True
    rtol: float = 1e-4
    atol: float = 1e-5
    grad_rtol: float = 1e-2
    grad_atol: float = 1e-3
    dtypes: tuple = ("float32",)
    random: bool = False          # output is random: compare statistics, not values
    undefined_values: bool = False
    inputs: object = None
    input_dtypes: dict = field(default_factory=dict)
    generated: bool = True


class OpDef:
    """Base class of every operator declaration.

    Class attributes a declaration sets: ``name`` (MXNet's), ``inputs``,
    ``outputs`` (with ``visible_outputs`` of them returned to the user),
    ``params`` (name -> ``Param``), ``saves`` (what ``backward`` receives:
    input or output names, or ``<input>_shape``), ``aux`` (inputs the operator
    updates in place, like BatchNorm's moving statistics), ``no_grad_inputs``,
    ``variadic`` (inputs given as ``*args``), ``method`` (also an NDArray
    method), ``aliases`` and ``test`` (``TestHints``).

    Shape inference from partly known shapes (``0`` for an unknown size, as MXNet's
    legacy shapes): ``partial_shapes`` (default True) says the shape rule may be run on
    stand-in sizes for the unknown ones (``symbol/inference.py`` does, twice, and keeps
    the output sizes that come out the same; ``where`` refuses, as MXNet's), and
    ``shaped_like_output()`` lists the inputs whose shape is the output's (elementwise
    operators: every input; ``Activation``: the data), merged both ways.
    ``axiswise_shapes``: output axis ``i`` is cut from input axis ``i`` (``slice``), so an
    unknown input size leaves that output size unknown, whatever the stand-ins give.

    Two attributes only the symbol layer reads: ``named_outputs`` (True: a graph
    names the outputs after ``list_outputs()``, ``bn_mean``, ``rnn_state_output``,
    as MXNet's ``FListOutputNames``; else ``output``/``output<i>``, see
    ``graph_output_names``) and ``input_init_hints`` (input name -> the ``__init__``
    attribute a new input variable gets when the op is composed, as MXNet's
    ``FSetInputVarAttrOnCompose``: BatchNorm's ``moving_var`` starts at one).

    ``identity_at_inference``: outside training the operator returns its first input
    unchanged (``identity``, ``BlockGrad``, ``Dropout``), so the executor's planner may
    drop it from an inference plan.  ``xp_name``: the numpy/CuPy function this operator
    computes, when there is one with the same meaning (``exp`` for ``exp``); a backward
    written with that ``xp`` function can then be differentiated again, because
    ``autograd.higher_order`` calls this operator in its place.  ``family``: what kind of
    operator it is for drawings (``layer``, ``activation``, ``normalization``, ``pooling``,
    ``shape``; ``mx.viz`` colours by it), and ``plot_label(attrs)`` its caption there.

    ``head_gradient`` (default True): ``backward`` reads the gradient arriving at the
    outputs.  False for the loss layers, whose backward starts from the loss itself
    (``SoftmaxOutput``, the regression outputs, ``MakeLoss``, ``SVMOutput``), and for
    ``BlockGrad``: an executor's ``backward()`` without ``out_grads`` is allowed only when
    no output it differentiates reads one, as MXNet's ``GraphExecutor::Backward``.
    ``grad_untouched_inputs``: inputs (among ``no_grad_inputs``) whose gradient array a
    backward pass leaves as it was, as MXNet's loss layers leave their ``label``'s (with
    ``grad_req='write'`` too); another input without a gradient gets zeros written.
    Gradients: ``differentiable = False`` declares a gradient of zero for every input
    (comparisons, ``argmax``, ``BlockGrad``: MXNet's zero-gradient rule), so a backward
    pass simply stops there.  ``has_gradient = False`` says more: MXNet registers no
    gradient for the operator at all (``batch_take``, the optimizers' update operators),
    and a backward pass that carries a gradient into it is an error -- at ``bind`` for a
    graph, at ``backward()`` for recorded calls -- not a zero.

    ``fixed_inference`` (default True): an instance's shape and type rules answer from
    the input shapes (or dtypes) and its parameters alone, so ``output_shapes`` and
    ``output_types`` keep each answer on the instance: an imperative loop calling one
    operator on same-shaped arrays infers once (``Custom`` asks the user's Prop, which may
    answer differently each time, so it says False).

    ``host_compute``: the operator's work runs on the host whatever the device -- a
    sequential loop (non-maximum suppression, box matching, region pooling) or a function
    only SciPy has (``gamma``, the densities): it copies its device inputs to the host
    once (``common.on_host``) and its results back (``common.to_device``).  The profiler's
    trace marks these operations, and a registry test checks the flag on the strict
    stand-in for CuPy: an operator copies device data to the host exactly when it says so.

    ``meets`` (an instance's attribute, default False): its forward or backward waits for
    other calls of it pushed after it (``op/meeting.py``: SyncBatchNorm over several
    devices), so its callers never push it as an engine ``small`` operation, which could
    run inline in the very thread that is to push the others.

    The rules for *calling* a declared operator (which extras it gets, what backward
    receives, which inputs get gradients) live in ``op/call.py``.

    ``backward`` may declare a keyword ``needs`` (default ``ALL_NEEDED``): the
    callers (the executor, autograd) then pass a tuple of bools, one per input,
    True where that input's gradient is kept, and ``backward`` may return None
    for the others instead of computing them.  A dense layer skips the gradient
    of its data when the data is an input of the network (MXNet's ``req[i] ==
    kNullOp``); an op that ignores ``needs`` simply computes everything.
    """

    name = None
    inputs = ("data",)
    outputs = ("output",)
    visible_outputs = None
    params = {}
    saves = ()
    aux = ()
    no_grad_inputs = ()
    grad_untouched_inputs = ()
    variadic = False
    method = False
    aliases = ()
    differentiable = True
    head_gradient = True
    has_gradient = True
    named_outputs = False
    input_init_hints = {}
    identity_at_inference = False
    host_compute = False
    meets = False
    xp_name = None
    family = None
    partial_shapes = True
    axiswise_shapes = False
    unnamed_inputs = False
    refuses_unknown_params = False
    fixed_inference = True
    test = TestHints()

    # filled in by register_op
    forward_extras = ()
    backward_extras = ()

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            declared = self.params.get(key)
            if declared is None:
                if self.ignores_unknown_params():
                    continue
                expected = ", ".join(self.params) or "no parameters"
                raise InvalidParameterError(
                    f"operator {self.name}: unknown parameter '{key}'; expected: {expected}")
            setattr(self, key, declared.parse(value, self.name, key))
        for key, declared in self.params.items():
            if key not in kwargs:
                if declared.required:
                    raise InvalidParameterError(
                        f"operator {self.name}: parameter '{key}' ({declared.type_name}) "
                        f"is required")
                setattr(self, key, declared.default)
        self.check_params()

    @classmethod
    def ignores_unknown_params(cls):
        """MXNet's rule for a keyword that is no parameter: an operator without a parameter
        struct accepts and ignores it (``nd.broadcast_add(a, b, axis=0)`` is a sum); one
        with parameters refuses it.  ``refuses_unknown_params`` marks the few operators
        minimx declares without parameters where MXNet's have some."""
        return not cls.params and not cls.refuses_unknown_params

    @classmethod
    def create(cls, **kwargs):
        """An instance for these parameters, shared between calls with equal ones."""
        try:
            key = (cls, params_key(sorted(kwargs.items())))
            hash(key)
        except TypeError:
            return cls(**kwargs)
        instance = _INSTANCE_CACHE.get(key)
        if instance is None:
            if len(_INSTANCE_CACHE) > _INSTANCE_CACHE_LIMIT:
                _INSTANCE_CACHE.clear()
            instance = _INSTANCE_CACHE[key] = cls(**kwargs)
        return instance

    def param_values(self):
        """The parsed parameters, as a dict."""
        return {key: getattr(self, key) for key in self.params}

    # -- hooks an operator may override ---------------------------------------------
    def check_params(self):
        """Validate parameters together (after parsing); raise ``self.param_error``."""

    def list_inputs(self, num_args=None):
        """Input names for this instance (``bias`` drops out when ``no_bias``)."""
        if self.variadic:
            count = num_args if num_args is not None else getattr(self, "num_args", 1)
            return tuple(f"arg{index}" for index in range(count))
        return self.inputs

    def list_outputs(self):
        return self.outputs

    def graph_output_names(self):
        """The suffix of each output's name in a graph: ``fc1_output``, ``split0_output1``.

        ``output`` for a single output, else ``output0``, ``output1`` ...; with
        ``named_outputs``, the names of ``list_outputs()``.  An op that MXNet gives
        hidden outputs minimx leaves out (``sort``'s indices) overrides this to keep
        MXNet's numbered names.
        """
        outputs = self.list_outputs()
        if self.named_outputs:
            return list(outputs)
        if len(outputs) == 1:
            return ["output"]
        return [f"output{index}" for index in range(len(outputs))]

    def monitor_input_names(self, input_names):
        """The names a monitor (``monitor_all``) gives this node's inputs: its input names,
        as MXNet's ``FListInputNames``, or ``input0``, ``input1``, ... for an operator
        MXNet registers none for (``unnamed_inputs = True``)."""
        if self.unnamed_inputs:
            return [f"input{index}" for index in range(len(input_names))]
        return input_names

    def num_visible(self):
        """How many outputs the user gets (the rest, like Dropout's mask, stay hidden)."""
        if self.visible_outputs is not None:
            return self.visible_outputs
        return len(self.list_outputs())

    def num_mxnet_outputs(self):
        """How many outputs MXNet's node of this operator has, hidden ones included (what
        a JSON file's ``node_row_ptr`` counts); default: all of ``list_outputs()``."""
        return len(self.list_outputs())

    def draws_random(self):
        """Whether this instance draws random numbers (its ``forward`` then gets ``rng``);
        default: whether ``forward`` takes an ``rng``."""
        return "rng" in self.forward_extras

    def shaped_like_output(self):
        """Positions of the inputs that always have output 0's shape (default: none)."""
        return ()

    def infer_input_shapes(self, *shapes):
        """Complete unknown input shapes (None, or 0 for an unknown size) from known ones."""
        return list(shapes)

    def infer_partial_shapes(self, *shapes):
        """Output shapes (0 for a size that stays unknown) from input shapes with unknown
        sizes (0), for an operator whose own rule says what is known, as MXNet's does
        (``Reshape``); None (the default) lets symbolic inference sample ``infer_shape``."""
        return None

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        """Complete unknown input shapes from known OUTPUT shapes (backward inference).

        Symbolic shape inference calls this while some input is still unknown.  Each
        shape may be None, or a tuple with 0 for an unknown size (Gluon's ``(20, 0)``).
        The default completes nothing.  MXNet's ``FInferShape`` does this in the same
        function as forward inference; a Gluon LSTM without ``input_size`` relies on it
        (``RNN`` knows its ``parameters`` length, ``_rnn_param_concat`` gives the one
        unknown piece the rest, ``Reshape`` turns that length back into a weight shape).
        """
        return list(input_shapes)

    def with_inferred_shapes(self, output_shapes):
        """This operator, with parameters that shape inference completed (default: itself).

        MXNet's executor allocates every output from the inferred shapes and the op fills
        it; a minimx op makes its own outputs.  So an op whose output shape is a parameter
        with unknown sizes (a Gluon RNN's symbolic zero state, ``_zeros(shape=(1, 0, 5))``)
        returns a copy with the completed shape; the executor runs that copy.
        """
        return self

    def infer_shape(self, *shapes):
        """Output shape (a tuple), or a list of them; default: same as the first input."""
        return shapes[0]

    def infer_type(self, *dtypes):
        """Output dtype name, or a list of them; default: the first input's."""
        return dtypes[0]

    def blas_work(self, *input_shapes):
        """Multiply-adds of the largest matrix product one call makes (0: none).

        The engine's thread budget gives an operation above ``budget.PARALLEL_WORK``
        several BLAS threads when cores are free, and one otherwise; products, layers
        and convolutions override this.
        """
        return 0

    @classmethod
    def plot_label(cls, attrs):
        """The caption of a graph node of this operator, from its attributes (text), or None
        for the node's own name.  ``mx.viz.plot_network`` draws it."""
        return None

    def input_grad_stypes(self):
        """The storage type of each input's gradient; None: all 'default' (dense).
        ``Embedding(sparse_grad=True)`` gives its weight a row_sparse gradient."""
        return None

    def check_input_stypes(self, stypes):
        """Refuse inputs of these storage types (raise ``self.param_error``), where
        MXNet's storage inference refuses them; default: any is taken (a sparse input the
        operator has no kernel for is read through a dense copy).  Called for an imperative
        call and for a graph's node with a sparse input."""

    def forward(self, xp, *arrays):
        raise NotImplementedError(f"operator {self.name} has no forward")

    def backward(self, xp, *out_grads, **saved):
        raise NotImplementedError(f"operator {self.name} has no gradient")

    # -- helpers for declarations ------------------------------------------------------
    def shape_error(self, message):
        """An ``InvalidShapeError`` naming this operator."""
        return InvalidShapeError(f"operator {self.name}: {message}")

    def type_error(self, message):
        return InvalidTypeError(f"operator {self.name}: {message}")

    def param_error(self, message):
        return InvalidParameterError(f"operator {self.name}: {message}")

    # -- used by the frontends ------------------------------------------------------------
    def output_shapes(self, input_shapes):
        """Run ``infer_shape`` and return a list of output shapes, or raise a clear error
        (an answer for tuples of sizes is kept: ``fixed_inference``)."""
        key = _memo_key(self, input_shapes, is_np_shape())
        known = _INFERRED.get(key) if key is not None else None
        if known is not None:
            return list(known)
        try:
            result = self.infer_shape(*input_shapes)
        except InvalidShapeError:
            raise
        except (IndexError, ValueError, TypeError, ZeroDivisionError) as error:
            raise InvalidShapeError(
                f"operator {self.name}: cannot infer the output shape from input shapes "
                f"{list(input_shapes)} ({type(error).__name__}: {error})") from None
        if isinstance(result, list):
            shapes = [tuple(int(d) for d in shape) for shape in result]
        else:
            shapes = [tuple(int(d) for d in result)] * len(self.list_outputs())
        return list(_remember(key, shapes))

    def output_types(self, input_types):
        """Run ``infer_type`` and return a list of numpy dtypes (kept as ``output_shapes``)."""
        key = _memo_key(self, input_types, "types")
        known = _INFERRED.get(key) if key is not None else None
        if known is not None:
            return list(known)
        result = self.infer_type(*input_types)
        if isinstance(result, list):
            types = [normalize_dtype(dtype) for dtype in result]
        else:
            types = [normalize_dtype(result)] * len(self.list_outputs())
        return list(_remember(key, types))

    def __repr__(self):
        values = ", ".join(f"{key}={value!r}" for key, value in self.param_values().items())
        return f"{self.name}({values})"


# (operator instance, input shapes or dtypes, mode) -> the inferred outputs, as a tuple.
# Instances are immutable and shared between equal calls (``OpDef.create``), so the key
# holds the instance itself; cleared when full, as the instance cache is.
_INFERRED = {}
_INFERRED_LIMIT = 4096


def _memo_key(op, inputs, mode):
    """The key an inference answer is kept under, or None when it cannot be kept (a
    partly known shape from graph inference, or an operator without ``fixed_inference``)."""
    if not op.fixed_inference:
        return None
    key = (op, tuple(inputs), mode)
    try:
        hash(key)
    except TypeError:          # a shape given as a list
        return None
    return key


def _remember(key, answer):
    answer = tuple(answer)
    if key is not None:
        if len(_INFERRED) > _INFERRED_LIMIT:
            _INFERRED.clear()
        _INFERRED[key] = answer
    return answer


def _parameter_names(function):
    """The names of ``function``'s parameters, read from its code object: an
    ``inspect.signature`` for the forward and backward of every declaration made ``import
    minimx`` noticeably slower.  A wrapped or compiled function still gets one."""
    code = getattr(function, "__code__", None)
    if code is None or hasattr(function, "__wrapped__"):
        return tuple(inspect.signature(function).parameters)
    count = (code.co_argcount + code.co_kwonlyargcount
             + bool(code.co_flags & inspect.CO_VARARGS)
             + bool(code.co_flags & inspect.CO_VARKEYWORDS))
    return code.co_varnames[:count]


def _extras(function, allowed):
    names = _parameter_names(function)
    return tuple(name for name in allowed if name in names)


def register_op(cls):
    """Class decorator: check a declaration and add it (and its aliases) to ``OPS``."""
    if not cls.name:
        raise TypeError(f"{cls.__qualname__} declares no operator name")
    for saved in cls.saves:
        known = set(cls.inputs) | set(cls.outputs) | {f"{i}_shape" for i in cls.inputs}
        if saved not in known and not cls.variadic:
            raise TypeError(f"operator {cls.name}: saves {saved!r}, which is no input, "
                            f"output or <input>_shape")
    if not cls.has_gradient and cls.differentiable:
        raise TypeError(f"operator {cls.name}: has_gradient = False needs "
                        f"differentiable = False")
    cls.forward_extras = _extras(cls.forward, ("rng", "is_train"))
    cls.backward_extras = _extras(cls.backward, ("is_train", "needs"))
    for name in (cls.name, *cls.aliases):
        if name in OPS and OPS[name] is not cls:
            raise TypeError(f"operator name {name!r} is registered twice")
        OPS[name] = cls
    return cls


def declare_op(class_name, bases, **attributes):
    """Create, register and return an ``OpDef`` subclass without a class statement.

    For families whose members differ only in data (comparisons, samplers): each
    member is still one class, with ``name``, ``__doc__`` and ``test`` of its own.
    """
    namespace = {"__module__": bases[0].__module__, "__qualname__": class_name, **attributes}
    return register_op(type(class_name, tuple(bases), namespace))


def get_op(name):
    """The declaration registered under ``name`` (MXNet's operator name or an alias)."""
    try:
        return OPS[name]
    except KeyError:
        raise InvalidParameterError(f"unknown operator {name!r}") from None


def list_ops():
    """Every registered operator class, once each, sorted by name."""
    unique = {cls.name: cls for cls in OPS.values()}
    return [unique[name] for name in sorted(unique)]


# MXNet moves operators with these name prefixes into submodules, without the prefix:
# ``_contrib_MultiBoxPrior`` is ``nd.contrib.MultiBoxPrior``, ``_linalg_gemm2`` is
# ``nd.linalg.gemm2``.
SUBMODULE_PREFIXES = {"_contrib_": "contrib", "_linalg_": "linalg", "_image_": "image"}


def install_generated_functions(namespace, names, op_module, internal, array_class, register,
                                submodules=None):
    """Put one generated function per operator (and alias) into a frontend (nd or sym).

    Every function goes on ``op_module``; ``_``-names also on ``internal``, the others into
    ``namespace`` (a module's globals, listed in ``names``) unless written by hand there.
    A name with one of ``SUBMODULE_PREFIXES`` also goes, without the prefix, into the
    frontend's module of that name (``submodules``: name -> module), unless that module
    writes it by hand.  Operators with ``method = True`` (or a method name) become methods
    of ``array_class``.  ``register`` is the frontend's module with ``make_function`` and
    ``make_method``.

    Each function is built on its first use (``GeneratedFunctions``): the modules list every
    name (``dir``, ``__all__``, tab completion) and a module ``__getattr__`` (PEP 562) makes
    the function the first time a program asks for it.
    """
    submodules = submodules or {}
    functions = GeneratedFunctions(register)
    # per module: attribute name -> the public name of the operator it calls
    on_op_module, on_internal, in_namespace = {}, {}, {}
    in_submodule = {name: {} for name in submodules}
    by_hand_in = {name: set(vars(module)) for name, module in submodules.items()}
    methods = set()
    for op_cls in list_ops():
        for public_name in (op_cls.name, *op_cls.aliases):
            functions.ops[public_name] = op_cls
            on_op_module[public_name] = public_name
            for prefix, module_name in SUBMODULE_PREFIXES.items():
                module = submodules.get(module_name)
                short = public_name[len(prefix):]
                if (public_name.startswith(prefix) and module is not None
                        and short not in by_hand_in[module_name]):
                    in_submodule[module_name][short] = public_name
                    getattr(module, "__all__", []).append(short)
            if public_name.startswith("_"):
                on_internal[public_name] = public_name
            elif public_name not in namespace:
                in_namespace[public_name] = public_name
                names.append(public_name)
        if op_cls.method:
            method_name = op_cls.name if op_cls.method is True else op_cls.method
            if method_name not in methods and not hasattr(array_class, method_name):
                methods.add(method_name)
                setattr(array_class, method_name,
                        _MethodOnFirstUse(array_class, method_name, op_cls, op_module, register))

    def serve(module_globals, table):
        serve_on_first_use(module_globals, table, lambda name: functions.get(table[name]))

    serve(vars(op_module), on_op_module)
    serve(vars(internal), on_internal)
    serve(namespace, in_namespace)
    for module_name, module in submodules.items():
        serve(vars(module), in_submodule[module_name])
    return functions


class GeneratedFunctions:
    """A frontend's generated functions, each made on its first use and kept.

    Making all of them at import (a signature and a docstring each, for every operator,
    alias and frontend: over a thousand) costs every process; a program calls a few dozen.
    One function per public name, so ``nd.relu is nd.op.relu``.
    """

    def __init__(self, register):
        self.register = register
        self.ops = {}          # public name -> OpDef subclass
        self.made = {}         # public name -> the function, once made

    def get(self, public_name):
        function = self.made.get(public_name)
        if function is None:
            function = self.register.make_function(self.ops[public_name], public_name)
            function = self.made.setdefault(public_name, function)
        return function


class _MethodOnFirstUse:
    """An operator's array method (``x.exp()``), made the first time it is looked up: it
    then replaces itself on the class with the plain function ``register.make_method``
    gives."""

    def __init__(self, array_class, method_name, op_cls, op_module, register):
        self.array_class, self.method_name = array_class, method_name
        self.op_cls, self.op_module, self.register = op_cls, op_module, register

    def __get__(self, instance, owner=None):
        # a method named after an alias calls that alias (``x.flip()`` names its node
        # ``flip0``, as MXNet's)
        function = (getattr(self.op_module, self.method_name, None)
                    or getattr(self.op_module, self.op_cls.name))
        method = self.register.make_method(function)
        setattr(self.array_class, self.method_name, method)
        return method.__get__(instance, owner)
