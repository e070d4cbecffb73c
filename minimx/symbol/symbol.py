"""Symbol: a graph of operator calls, built first and run later by an Executor.

Lesson: 07-symbolic-programming.  Mirrors ``python/mxnet/symbol/symbol.py``.  A Symbol is a
list of output entries ``(node, index)`` of the graph in ``graph.py``; every
query (``list_arguments``, ``infer_shape``, ``tojson``) walks that graph.
"""
import warnings

import numpy as np

from .. import attribute, name as naming
from ..base import (DTYPE_TO_FLAG, STORAGE_TYPE_KEY, InvalidParameterError, InvalidTypeError,
                    MXNetError, UnknownNameError, check_dense, is_attribute_key,
                    normalize_dtype, storage_type_id)
from ..op.call import op_call
from ..util import is_np_shape
from . import inference, json_format
from .graph import (HIDDEN_KEYS, MXNET_ONLY_PARAMS, Node, attribute_items, hide_keys,
                    is_aux_input, set_input_init_hints, topo_order)
from .ndarray_only import NDArrayOnly

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "compose_op"]


def _is_unknown_legacy(shape):
    return not shape or 0 in shape


def _is_unknown_np(shape):
    return shape is None or -1 in shape


class Symbol(NDArrayOnly):
    """One or more outputs of a symbolic graph (with no values: see ndarray_only.py).

    Examples
    --------
    >>> data = mx.sym.Variable('data')
    >>> fc = mx.sym.FullyConnected(data=data, num_hidden=12, name='fc')
    >>> fc.list_arguments()
    ['data', 'fc_weight', 'fc_bias']
    """

    __array_priority__ = 1000.0

    def __init__(self, entries):
        self._entries = list(entries)
        self._forget_walks()

    def _forget_walks(self):
        """Drop the remembered graph walks (``_order``, ``_variables``)."""
        self._walked = self._split = None

    # -- what the graph holds -----------------------------------------------------------
    @property
    def name(self):
        """The name of the single output's node (None for a group)."""
        return self._entries[0][0].name if len(self._entries) == 1 else None

    def _order(self):
        """Every node, inputs first (``topo_order``), walked once per Symbol: a Symbol's
        graph does not change once made (``_compose`` changes a fresh copy, then forgets)."""
        if self._walked is None:
            self._walked = topo_order(self._entries)
        return self._walked

    def _variables(self):
        """(arguments, auxiliary states): the variable nodes, in graph order."""
        if self._split is None:
            self._split = self._split_variables()
        return self._split

    def _split_variables(self):
        order = self._order()
        aux_ids = set()
        for node in order:
            for position, (source, _) in enumerate(node.inputs):
                if source.is_variable and is_aux_input(node, position):
                    aux_ids.add(id(source))
        variables = [node for node in order if node.is_variable]
        return ([n for n in variables if id(n) not in aux_ids],
                [n for n in variables if id(n) in aux_ids])

    def list_arguments(self):
        """Names of the inputs to feed or learn: data, weights, biases, labels."""
        return [node.name for node in self._variables()[0]]

    def list_auxiliary_states(self):
        """Names of the states operators update themselves (BatchNorm's moving statistics)."""
        return [node.name for node in self._variables()[1]]

    def list_inputs(self):
        """Every variable name: arguments and auxiliary states, in graph order."""
        return [node.name for node in self._order() if node.is_variable]

    def list_outputs(self):
        """Names of the outputs: ``<node>_output`` (or ``_output<i>``), or a variable's name."""
        return [node.output_name(index) for node, index in self._entries]

    @property
    def entries(self):
        """The graph entries this Symbol's outputs are: ``(node, output index)`` pairs, as
        nnvm's ``NodeEntry`` list (read-only; ``symbol/graph.py`` describes a Node)."""
        return tuple(self._entries)

    def nodes(self):
        """Every node this Symbol depends on, variables too, inputs first (MXNet's order)."""
        return list(self._order())

    def get_internals(self):
        """A group of every output of every node, so intermediate results can be picked."""
        return Symbol([(node, index) for node in self._order()
                       for index in range(node.num_visible())])

    def get_children(self):
        """The inputs of this symbol's node, as a group (None for a variable)."""
        node = self._entries[0][0]
        return Symbol(node.inputs) if node.inputs else None

    def __len__(self):
        return len(self._entries)

    def __iter__(self):
        return (Symbol([entry]) for entry in self._entries)

    def __getitem__(self, index):
        if isinstance(index, str):
            names = self.list_outputs()
            if names.count(index) != 1:
                raise UnknownNameError(f"Symbol has {names.count(index)} outputs named "
                                       f"{index!r}; outputs are {names}")
            index = names.index(index)
        elif not isinstance(index, (int, np.integer)):
            raise InvalidTypeError(f"Symbol outputs are indexed by an integer or a name, got "
                                   f"{type(index).__name__} {index!r}")
        if not -len(self._entries) <= index < len(self._entries):
            raise IndexError(f"Symbol has {len(self._entries)} outputs, no output {index}")
        return Symbol([self._entries[index]])

    # -- attributes ------------------------------------------------------------------------
    def attr(self, key):
        """The attribute ``key`` of this symbol's node (as a string), or None."""
        node = self._entries[0][0]
        value = node.attrs.get(key)
        return value if value is not None else node.attrs.get(f"__{key}__")

    def list_attr(self, recursive=False):
        """This node's attributes (``recursive=True``: every node's, keyed ``name$key``).

        Hidden attributes such as ``__lr_mult__`` are also listed as ``lr_mult``.
        """
        if recursive:
            return {f"{node.name}${key}": value for node in self._order()
                    for key, value in attribute_items(node.attrs)}
        return dict(attribute_items(self._entries[0][0].attrs))

    def attr_dict(self):
        """{node name: {attribute: value}} for every node that has attributes."""
        return {node.name: dict(attribute_items(node.attrs)) for node in self._order()
                if node.attrs}

    def _set_attr(self, **attrs):
        for key, value in attrs.items():
            if not isinstance(value, str):
                raise ValueError(f"attribute {key!r} must be a string, got {value!r}")
        self._entries[0][0].attrs.update(hide_keys(attrs))

    # -- composition -----------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """A copy with variables replaced: ``net(data=other)`` feeds ``other`` as ``data``."""
        result = self.__copy__()
        result._compose(*args, **kwargs)
        return result

    def _compose(self, *args, name=None, **kwargs):
        arguments = self.list_arguments()
        if args and kwargs:
            raise MXNetError("compose: give inputs either by position or by name, not both")
        replacements = dict(zip(arguments, args)) if args else kwargs
        for key, value in replacements.items():
            if not isinstance(value, Symbol) or len(value) != 1:
                raise MXNetError(f"compose: input {key!r} must be a single-output Symbol")
            if key not in arguments:
                raise MXNetError(f"compose: no argument named {key!r}; arguments are {arguments}")
        for node in self._order():
            node.inputs = [replacements[source.name]._entries[0]
                           if source.is_variable and source.name in replacements else (source, i)
                           for source, i in node.inputs]
        self._entries = [replacements[node.name]._entries[0]
                         if node.is_variable and node.name in replacements else (node, i)
                         for node, i in self._entries]
        self._forget_walks()
        if name and len(self._entries) == 1:
            self._entries[0][0].name = name

    def __copy__(self):
        """A deep copy of the graph (variables and operator nodes are new objects)."""
        return Symbol(_copy_entries(self._entries))

    def __deepcopy__(self, memo):
        return self.__copy__()

    # -- inference -------------------------------------------------------------------------
    def infer_shape(self, *args, **kwargs):
        """(argument shapes, output shapes, auxiliary shapes) from the known input shapes.

        Returns ``(None, None, None)`` if some shape cannot be inferred, with MXNet's
        warning naming the arguments whose shape stays unknown.
        """
        result = self.infer_shape_partial(*args, **kwargs)
        unknown = _is_unknown_np if is_np_shape() else _is_unknown_legacy
        if not any(unknown(shape) for group in result for shape in group):
            return result
        missing = [f"{name}: {shape}" for name, shape in zip(self.list_arguments(), result[0])
                   if unknown(shape)]
        warnings.warn("Cannot decide shape for the following arguments (0s in shape means "
                      "unknown dimensions). Consider providing them as input:\n\t"
                      + "\n\t".join(missing[:10] + (["..."] if len(missing) > 10 else [])),
                      stacklevel=2)
        return None, None, None

    def infer_shape_partial(self, *args, **kwargs):
        """Like ``infer_shape``, with what stays unknown marked: ``()`` for a shape and
        ``0`` for a size, or, under ``mx.np_shape()``, ``None`` and ``-1``."""
        known = self._known(args, kwargs, "infer_shape")
        _, shapes = inference.infer_shapes(self._entries, known, self._order())
        if is_np_shape():
            return self._grouped(shapes, lambda shape: None if shape is None else tuple(shape))
        return self._grouped(shapes, lambda shape: () if shape is None else tuple(shape))

    def infer_type(self, *args, **kwargs):
        """(argument dtypes, output dtypes, auxiliary dtypes), as numpy types (np.float32);
        ``(None, None, None)`` when some dtype stays unknown."""
        result = self.infer_type_partial(*args, **kwargs)
        if any(dtype is None for group in result for dtype in group):
            return None, None, None
        return result

    def infer_type_partial(self, *args, **kwargs):
        """Like ``infer_type``, with None for each dtype that stays unknown."""
        known = self._known(args, kwargs, "infer_type")
        _, dtypes = inference.infer_types(self._entries, known, self._order())
        return self._grouped(dtypes, lambda dtype: None if dtype is None else dtype.type)

    def _known(self, args, kwargs, method):
        arguments = self.list_arguments()
        if len(args) > len(arguments):
            raise MXNetError(f"{method}: {len(args)} positional values for arguments {arguments}")
        known = {key: value for key, value in zip(arguments, args) if value is not None}
        names = set(self.list_inputs())
        for key, value in kwargs.items():
            if key not in names:
                raise MXNetError(f"{method}: no input named {key!r}; inputs are {sorted(names)}")
            if value is not None:
                known[key] = value
        return known

    def _grouped(self, values, convert):
        arguments, auxiliary = self._variables()
        return ([convert(values.get((node, 0))) for node in arguments],
                [convert(values.get(entry)) for entry in self._entries],
                [convert(values.get((node, 0))) for node in auxiliary])

    def reshape(self, *shape, **kwargs):
        """``Reshape`` of this symbol: ``s.reshape((2, -1))`` or ``s.reshape(shape=(2, -1))``."""
        from . import op
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        if shape:
            kwargs["shape"] = tuple(shape)
        return op.Reshape(self, **kwargs)

    def split_v2(self, indices_or_sections, axis=0, squeeze_axis=False):
        """``sym.split_v2(self, ...)``: one output per part."""
        from .functions import split_v2
        return split_v2(self, indices_or_sections, axis=axis, squeeze_axis=squeeze_axis)

    def as_np_ndarray(self):
        """This graph as an np Symbol: ``mx.np``'s functions and operators apply to it."""
        from .numpy import as_np_symbol
        return as_np_symbol(self)

    def as_nd_ndarray(self):
        """This graph as a plain Symbol (``nd``'s operators)."""
        return Symbol(self._entries)

    def astype(self, dtype):
        """``Cast`` of this symbol to ``dtype``."""
        from . import op
        return op.Cast(self, dtype=dtype)

    # -- running: see minimx/executor ------------------------------------------------------
    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None,
             group2ctx=None, shared_exec=None):
        """An Executor computing this symbol with the given argument arrays."""
        from ..executor import bind
        return bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def simple_bind(self, ctx=None, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """An Executor with arrays allocated from the given input shapes."""
        from ..executor import simple_bind
        return simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx,
                           shared_arg_names, shared_exec, shared_buffer, **kwargs)

    def eval(self, ctx=None, **kwargs):
        """Bind to ``kwargs`` and run forward once: the outputs as NDArrays."""
        from ..context import current_context
        return self.bind(ctx or current_context(), kwargs).forward()

    # -- saving ----------------------------------------------------------------------------
    def tojson(self):
        """MXNet 1.x JSON of the graph."""
        return json_format.to_json(self._entries)

    def save(self, fname, remove_amp_cast=True):
        """Write ``tojson()`` to ``fname`` (conventionally ``*-symbol.json``)."""
        _check_file_name(fname, "save")
        with open(fname, "w", encoding="utf-8") as handle:
            handle.write(self.tojson())

    def debug_str(self):
        """One line per node: ``name = Op(inputs, params)``, readable top to bottom."""
        lines = []
        for node in self._order():
            if node.is_variable:
                lines.append(f"Variable:{node.name}")
                continue
            inputs = ", ".join(source.output_name(i) for source, i in node.inputs)
            params = ", ".join(f"{k}={v}" for k, v in node.attrs.items())
            lines.append(f"{node.name} = {node.op.name}({inputs}{', ' if params else ''}{params})")
        return "\n".join(lines)

    def __repr__(self):
        kind = type(self).__name__            # ``_Symbol`` for an np Symbol, as MXNet's
        if len(self._entries) == 1:
            return f"<{kind} {self.name}>"
        return f"<{kind} group [{', '.join(node.name for node, _ in self._entries)}]>"

    __str__ = __repr__

    # -- arithmetic: see arithmetic.py -------------------------------------------------------
    def __add__(self, other):
        return _arith.binary(self, other, "add")

    def __radd__(self, other):
        return _arith.binary(self, other, "add")

    def __sub__(self, other):
        return _arith.binary(self, other, "sub")

    def __rsub__(self, other):
        return _arith.binary(self, other, "rsub")

    def __mul__(self, other):
        return _arith.binary(self, other, "mul")

    def __rmul__(self, other):
        return _arith.binary(self, other, "mul")

    def __truediv__(self, other):
        return _arith.binary(self, other, "div")

    def __rtruediv__(self, other):
        return _arith.binary(self, other, "rdiv")

    def __mod__(self, other):
        return _arith.binary(self, other, "mod")

    def __rmod__(self, other):
        return _arith.binary(self, other, "rmod")

    def __pow__(self, other):
        return _arith.binary(self, other, "pow")

    def __rpow__(self, other):
        return _arith.binary(self, other, "rpow")

    def __neg__(self):
        return _arith.binary(self, -1.0, "mul")

    def __abs__(self):
        from . import op
        return op.abs(self)

    def __eq__(self, other):
        return _arith.binary(self, other, "eq")

    def __ne__(self, other):
        return _arith.binary(self, other, "ne")

    def __gt__(self, other):
        return _arith.binary(self, other, "gt")

    def __ge__(self, other):
        return _arith.binary(self, other, "ge")

    def __lt__(self, other):
        return _arith.binary(self, other, "lt")

    def __le__(self, other):
        return _arith.binary(self, other, "le")

    def __hash__(self):
        return id(self)


def _copy_entries(entries):
    memo = {}
    for node in topo_order(entries):
        clone = Node(node.op, node.name, node.attrs,
                     [(memo[id(source)], index) for source, index in node.inputs],
                     node.subgraphs)
        memo[id(node)] = clone
    return [(memo[id(node)], index) for node, index in entries]


def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
             stype=None, **kwargs):
    """A named input of a graph: data, a label or a parameter.

    ``shape``, ``dtype``, ``lr_mult``, ``wd_mult``, ``init`` and ``stype`` ('default',
    'row_sparse' or 'csr') are stored as the attributes MXNet uses (``__shape__``,
    ``__storage_type__`` ...), so they survive JSON.
    """
    if not isinstance(name, str):
        raise InvalidTypeError(f"Variable: name must be a string, got {name!r}")
    attrs = hide_keys(attribute.current().get(attr))
    if shape is not None:       # stored as given, as MXNet does (even a mistyped (1.2))
        attrs["__shape__"] = str(tuple(shape)) if isinstance(shape, (list, tuple)) else str(shape)
    if dtype is not None:
        attrs["__dtype__"] = str(DTYPE_TO_FLAG[normalize_dtype(dtype)])
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        attrs[STORAGE_TYPE_KEY] = str(storage_type_id(stype, "Variable"))
    for key, value in kwargs.items():
        if not (key.startswith("__") and key.endswith("__")):
            raise InvalidParameterError(f"Variable: unknown argument {key!r}; extra attributes "
                                        f"must look like __name__")
        attrs[key] = str(value)
    return Symbol([(Node(None, name, attrs), 0)])


var = Variable


def Group(symbols):
    """One Symbol whose outputs are the outputs of ``symbols``, in order."""
    if not symbols or not all(isinstance(s, Symbol) for s in symbols):
        raise MXNetError("Group: expected a non-empty list of Symbols")
    return Symbol([entry for symbol in symbols for entry in symbol._entries])


def _check_file_name(fname, what):
    if not isinstance(fname, str):
        raise InvalidTypeError(f"Symbol {what}: the file name must be a string, got "
                               f"{type(fname).__name__}")


def load_json(json_str):
    """A Symbol from MXNet 1.x JSON text."""
    return Symbol(json_format.from_json(json_str))


def load(fname):
    """A Symbol from a ``*-symbol.json`` file written by minimx or MXNet 1.x."""
    _check_file_name(fname, "load")
    with open(fname, encoding="utf-8") as handle:
        return Symbol(json_format.from_json(handle.read(), source=fname))


def compose_op(op_cls, args, kwargs, hint):
    """Build the node of one operator call: ``sym.FullyConnected(data=d, num_hidden=4)``.

    Missing inputs become new variables named ``<node name>_<input>`` (the
    weights and biases MXNet creates implicitly); as in MXNet, they carry a copy
    of the node's attributes, and ops may add an ``__init__`` hint to their inputs.
    """
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    symbols, params = _split(op_cls, args, kwargs)
    kept = {key: params.pop(key) for key in MXNET_ONLY_PARAMS & set(params)}
    extra_attrs = _node_attributes(params, op_cls)
    instance = op_cls.create(**params)
    node_name = naming.current().get(name, hint)
    attrs = hide_keys(attribute.current().get(attr))
    attrs.update(extra_attrs)
    attrs.update({key: _attr_string(value) for key, value in {**params, **kept}.items()})
    input_names = op_call(instance, len(symbols) if op_cls.variadic else None).input_names
    entries = []
    for position, input_name in enumerate(input_names):
        given = symbols[position] if op_cls.variadic else symbols.get(input_name)
        if given is None:
            given = Symbol([(Node(None, f"{node_name}_{input_name}", attrs), 0)])
        if len(given) != 1:
            raise MXNetError(f"operator {op_cls.name}: input '{input_name}' must be a "
                             f"single-output Symbol, got {len(given)} outputs")
        entries.append(given._entries[0])
    node = Node(op_cls, node_name, attrs, entries)
    node._instance = instance
    set_input_init_hints(node)
    return Symbol([(node, index) for index in range(instance.num_visible())])


def _attr_string(value):
    if isinstance(value, str):
        return value
    if hasattr(value, "dtype") and hasattr(value, "name"):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name               # np.float64 -> "float64", as MXNet writes it
    return str(value)


def _split(op_cls, args, kwargs):
    if op_cls.variadic:
        params = dict(kwargs)
        if "num_args" in op_cls.params:
            params.setdefault("num_args", len(args))
        return list(args), params
    symbols = {}
    params = {}
    positional = list(args)
    for input_name in op_cls.inputs:
        if positional and isinstance(positional[0], Symbol):
            symbols[input_name] = positional.pop(0)
        elif positional and positional[0] is None:
            positional.pop(0)           # an optional input left out, as in MXNet's signature
    for key, value in zip(op_cls.params, positional):
        params[key] = value
    for key, value in kwargs.items():
        if key in op_cls.inputs:
            if value is not None:
                symbols[key] = value
        elif isinstance(value, Symbol) and not op_cls.inputs:
            continue    # as MXNet: an operator without inputs ignores a Symbol given to it
        else:
            params[key] = value
    return symbols, params


def _node_attributes(params, op_cls):
    """Take the graph attributes out of a call's parameters: ``__layout__``-style keys and
    MXNet's hidden keys (``lr_mult=0`` is stored as ``__lr_mult__``).  ``stype`` is a
    parameter of the operators that declare it (``cast_storage``); for any other a node's
    storage type follows from its inputs (``symbol/storage.py``), so only 'default' is taken."""
    if "stype" not in op_cls.params:
        check_dense(params.pop("stype", None), f"sym.{op_cls.name}")
    attrs = {}
    for key in [key for key in params if is_attribute_key(key) or key in HIDDEN_KEYS]:
        value = params.pop(key)
        attrs[key if is_attribute_key(key) else f"__{key}__"] = str(value)
    return attrs


from . import arithmetic as _arith  # noqa: E402  (arithmetic needs Symbol defined first)
