"""``check_symbolic_forward`` and ``check_symbolic_backward``: test a Symbol through an Executor.

Lesson: 08-executors.  Mirrors the functions of the same names in MXNet's
``python/mxnet/test_utils.py``, with their semantics (bind, forward, compare
with expected arrays; ``grad_req`` 'write', 'add' and 'null').  They are
exported as ``mx.test_utils.check_symbolic_forward``/``_backward``, where
``symbol_adapter`` also lets ``check_numeric_gradient`` take a Symbol.
"""
import numpy as np

from .. import ndarray as nd
from ..symbol import inference
from ..symbol.imperative import run_imperative
from ..symbol.storage import infer_storage_types
from ..symbol.symbol import Symbol

__all__ = ["check_symbolic_forward", "check_symbolic_backward", "is_symbol", "symbol_adapter"]


def _as_nd(value, ctx, dtype):
    """A numpy array becomes an NDArray in ``dtype`` (its own for 'asnumpy'); NDArrays stay."""
    if isinstance(value, nd.NDArray):
        return value
    value = np.asarray(value)
    return nd.array(value, ctx=ctx, dtype=value.dtype if dtype == "asnumpy" else dtype)


def _by_name(names, given, what):
    """``given`` (list in ``names`` order, or dict) as a dict; a dict must name every input."""
    if isinstance(given, dict):
        if set(given) != set(names):
            raise ValueError(f"{what}: the symbol's names {sorted(names)} and the given keys "
                             f"{sorted(given)} do not match")
        return dict(given)
    return dict(zip(names, given))


def _parse_location(sym, location, ctx, dtype):
    location = _by_name(sym.list_arguments(), location, "location")
    return {name: _as_nd(value, ctx, dtype) for name, value in location.items()}


def _parse_aux_states(sym, aux_states, ctx, dtype):
    if aux_states is None:
        return None
    aux_states = _by_name(sym.list_auxiliary_states(), aux_states, "aux_states")
    return {name: _as_nd(value, ctx, dtype) for name, value in aux_states.items()}


def _context(ctx):
    from . import default_context
    return ctx or default_context()


def check_symbolic_forward(sym, location, expected, rtol=1e-4, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=np.float32):
    """Bind ``sym`` to ``location``, run forward (not training) and compare with ``expected``.

    ``location``: the arguments (list in ``list_arguments()`` order, or dict);
    numpy arrays become NDArrays of ``dtype`` (``'asnumpy'``: their own dtype).
    ``expected``: a list of arrays, or a dict by output name.  Returns the
    executor's outputs.
    """
    from . import assert_almost_equal
    ctx = _context(ctx)
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[name] for name in sym.list_outputs()]
    executor = sym.bind(ctx=ctx, args=location, aux_states=aux_states)
    outputs = executor.forward(is_train=False)
    for name, wanted, output in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(wanted, output, rtol, atol, names=(f"EXPECTED_{name}",
                            f"FORWARD_{name}"), equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=1e-5, atol=None,
                            aux_states=None, grad_req="write", ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=np.float32):
    """Bind ``sym``, run forward (training) and backward with ``out_grads``, compare gradients.

    ``expected``: gradients by argument (list in ``list_arguments()`` order, or
    dict; only these arguments get a gradient buffer, of the storage type ``grad_stypes``
    names, else dense).  Buffers start filled with random values, so ``grad_req='add'`` must add to them and ``'null'``
    must leave them alone.  Returns the gradient NDArrays by name.
    """
    from . import assert_almost_equal
    ctx = _context(ctx)
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    initial = {name: np.random.normal(size=np.shape(value)) for name, value in expected.items()}
    grads = {name: nd.array(value, ctx=ctx, dtype=np.asarray(expected[name]).dtype
                            if dtype == "asnumpy" else dtype) for name, value in initial.items()}
    for name, stype in (grad_stypes or {}).items():      # gradient buffers of those storages
        if name in grads and stype != "default":
            grads[name] = grads[name].tostype(stype)
    if isinstance(grad_req, str):
        grad_req = {name: grad_req for name in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(sym.list_arguments(), grad_req))
    executor = sym.bind(ctx=ctx, args=location, args_grad=grads, grad_req=grad_req,
                        aux_states=aux_states)
    executor.forward(is_train=True)
    if isinstance(out_grads, dict):
        out_grads = [out_grads[name] for name in sym.list_outputs()]
    if out_grads is not None:
        out_grads = [_as_nd(grad, ctx, dtype) for grad in out_grads]
    executor.backward(out_grads)
    for name, wanted in expected.items():
        names = (f"EXPECTED_{name}", f"BACKWARD_{name}")
        req = grad_req.get(name, "null")
        if req == "write":
            assert_almost_equal(wanted, grads[name], rtol, atol, names=names, equal_nan=equal_nan)
        elif req == "add":
            assert_almost_equal(wanted, grads[name].asnumpy() - initial[name], rtol, atol,
                                names=names, equal_nan=equal_nan)
        elif req == "null":
            assert_almost_equal(initial[name], grads[name], rtol, atol, names=names,
                                equal_nan=equal_nan)
        else:
            raise ValueError(f"grad_req for {name!r} must be write, add or null, got {req!r}")
    return grads


def is_symbol(function):
    return isinstance(function, Symbol)


def symbol_adapter(symbol, location, aux_states):
    """``check_numeric_gradient`` on a Symbol: run its graph op by op, recorded by autograd.
    The inputs' storage types go through the graph's storage inference first, as MXNet's
    ``bind`` runs it: an operator refusing them raises here (the check itself computes on
    dense copies)."""
    location = _by_name(symbol.list_arguments(), location, "location")
    if aux_states is not None:
        aux_states = _by_name(symbol.list_auxiliary_states(), aux_states, "aux_states")
    _infer_storage_types(symbol, {**location, **(aux_states or {})})

    def function(**arrays):
        return run_imperative(symbol, arrays)
    return function, location, aux_states


def _infer_storage_types(symbol, arrays):
    stypes = {name: value.stype for name, value in arrays.items()
              if getattr(value, "stype", "default") != "default"}
    if stypes:
        shapes = {name: tuple(value.shape) if hasattr(value, "shape") else np.shape(value)
                  for name, value in arrays.items()}
        infer_storage_types(symbol._entries, inference.infer_shapes(symbol._entries,
                                                                   shapes)[1], stypes)
