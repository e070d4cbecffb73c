"""Run a Symbol's graph op by op through ``nd``: what the Executor does in one push.

Lesson: 08-executors (the baseline the planned executor is measured against).
Each node becomes one ``nd.<op>`` call, so every step is its own engine push
and autograd records it.  ``test_utils.check_numeric_gradient`` uses this to
check a Symbol's gradient; ``bench/executor_bench.py`` uses it as the op-by-op
baseline.
"""
from .. import ndarray as nd
from ..base import MXNetError
from .graph import topo_order

__all__ = ["run_imperative"]


def run_imperative(symbol, arrays):
    """The outputs of ``symbol`` (a list of NDArrays) for ``arrays``: {input name: NDArray}."""
    values = {}
    for node in topo_order(symbol._entries):
        if node.is_variable:
            if node.name not in arrays:
                raise MXNetError(f"run_imperative: no array given for input {node.name!r}")
            values[(node, 0)] = arrays[node.name]
            continue
        params = {key: value for key, value in node.attrs.items() if key in node.op.params}
        result = getattr(nd.op, node.op.name)(*[values[entry] for entry in node.inputs],
                                              **params)
        outputs = result if isinstance(result, (list, tuple)) else [result]
        values.update(((node, index), output) for index, output in enumerate(outputs))
    return [values[entry] for entry in symbol._entries]
