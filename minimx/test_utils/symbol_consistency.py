"""``check_consistency`` for Symbols: one graph (or one per configuration) run on several
contexts and dtypes, with the same random inputs and head gradients, compared with
the most precise run.

Lesson: 08-executors.  Mirrors MXNet's ``check_consistency(sym, ctx_list)`` in
``python/mxnet/test_utils.py``: each ``ctx_list`` entry is a dict with ``ctx``, the input
shapes by name (``'data': (2, 3)``) and optionally ``type_dict``.  ``check_consistency``
in ``__init__.py`` sends Symbols here and keeps its own mode for callables.
"""
import numpy as np

from .. import ndarray as nd
from .comparisons import assert_almost_equal
from .tolerances import FLOAT_ATOLS, FLOAT_RTOLS

__all__ = ["check_symbol_consistency"]

_PRECISION = {"float16": 0, "float32": 1, "float64": 2}


def _shapes_and_types(config):
    shapes = {key: value for key, value in config.items() if key not in ("ctx", "type_dict")}
    return shapes, dict(config.get("type_dict") or {})


def _random_values(names, arrays, scale, use_uniform, rand_type, given):
    """One value per name: ``given`` where it says, else random numbers of the array's shape."""
    values = {}
    for name, array in zip(names, arrays):
        if given and name in given:
            values[name] = np.asarray(given[name].asnumpy() if isinstance(given[name], nd.NDArray)
                                      else given[name])
        elif use_uniform:
            values[name] = np.random.uniform(-scale, scale, array.shape).astype(rand_type)
        else:
            values[name] = (np.random.normal(size=array.shape) * scale).astype(rand_type)
    return values


def _bind(sym, config, grad_req):
    shapes, types = _shapes_and_types(config)
    known = set(sym.list_inputs())
    shapes = {name: shape for name, shape in shapes.items() if name in known}
    return sym.simple_bind(config["ctx"], grad_req=grad_req, type_dict=types, **shapes)


def _tolerance(table, dtypes, given):
    if given is not None:
        return given
    return max(table.get(np.dtype(dtype).name, 0) for dtype in dtypes)


def check_symbol_consistency(syms, ctx_list, scale=1.0, grad_req="write", arg_params=None,
                             aux_params=None, rtol=None, atol=None, raise_on_err=True,
                             ground_truth=None, equal_nan=False, use_uniform=False,
                             rand_type=np.float64):
    """Bind each symbol with its configuration, run forward and backward on the same
    inputs, and compare outputs and gradients with the most precise run.  Returns the
    executors."""
    if not ctx_list:
        raise ValueError("check_consistency: ctx_list must name at least one configuration")
    if not isinstance(syms, (list, tuple)):
        syms = [syms] * len(ctx_list)
    if len(syms) != len(ctx_list):
        raise ValueError(f"check_consistency: {len(syms)} symbols for {len(ctx_list)} "
                         f"configurations")
    executors = [_bind(sym, config, grad_req) for sym, config in zip(syms, ctx_list)]
    first = executors[0]
    args = _random_values(syms[0].list_arguments(), first.arg_arrays, scale, use_uniform,
                          rand_type, arg_params)
    aux = _random_values(syms[0].list_auxiliary_states(), first.aux_arrays, scale,
                         use_uniform, rand_type, aux_params)
    for executor in executors:
        for name, array in executor.arg_dict.items():
            array[:] = args[name].astype(array.dtype)
        for name, array in executor.aux_dict.items():
            array[:] = aux[name].astype(array.dtype)
    outputs = [executor.forward(is_train=grad_req != "null") for executor in executors]
    heads = [np.random.normal(size=out.shape).astype(rand_type) for out in outputs[0]]
    if grad_req != "null":
        for executor, outs in zip(executors, outputs):
            executor.backward([nd.array(head, ctx=out.context, dtype=out.dtype)
                               for head, out in zip(heads, outs)])
    reference = _reference_index(executors, ground_truth)
    errors = []
    for position, executor in enumerate(executors):
        if position == reference:
            continue
        pairs = [(f"output {i}", out, outputs[reference][i])
                 for i, out in enumerate(outputs[position])]
        if grad_req != "null":
            truth = executors[reference].grad_dict
            pairs += [(f"grad {name!r}", grad, truth[name])
                      for name, grad in executor.grad_dict.items()
                      if grad is not None and truth.get(name) is not None]
        for label, value, expected in pairs:
            dtypes = (value.dtype, expected.dtype)
            try:
                assert_almost_equal(value.asnumpy(), expected.asnumpy(),
                                    _tolerance(FLOAT_RTOLS, dtypes, rtol),
                                    _tolerance(FLOAT_ATOLS, dtypes, atol),
                                    equal_nan=equal_nan,
                                    names=(f"{label} of configuration {position}",
                                           f"configuration {reference}"))
            except AssertionError as error:
                errors.append(str(error))
    if errors and raise_on_err:
        raise AssertionError("\n".join(errors))
    return executors


def _reference_index(executors, ground_truth):
    """The configuration to compare with: the given one, else the most precise."""
    if isinstance(ground_truth, int):
        return ground_truth
    ranks = [max((_PRECISION.get(np.dtype(a.dtype).name, 0) for a in e.arg_arrays), default=0)
             for e in executors]
    return ranks.index(max(ranks))
