"""``Block.summary(*inputs)``: one line per layer with its output shape and parameter count.

Lesson: 09-gluon.  Mirrors ``Block.summary`` in MXNet 1.x: forward hooks record
what each leaf layer returns while the inputs run through the model once.
"""
import math

from ..ndarray import NDArray
from .parameter import shape_is_known

__all__ = ["print_summary"]

_WIDTH = 80


def _shape_text(value):
    if isinstance(value, NDArray):
        return str(value.shape)
    if isinstance(value, (list, tuple)):
        return ", ".join(_shape_text(v) for v in value)
    return str(value)


def _count(param):
    return math.prod(param.shape) if shape_is_known(param.shape) else 0


def print_summary(block, inputs):
    """Run ``inputs`` through ``block`` once and print the layer table."""
    rows, seen, counters = [("Input", _shape_text(list(inputs)), 0)], set(), {}
    shared = [0]

    def record(layer, _inputs, outputs):
        kind = type(layer).__name__
        counters[kind] = counters.get(kind, 0) + 1
        total = 0
        for param in layer.params.values():
            if id(param) in seen:
                shared[0] += _count(param)
            seen.add(id(param))
            total += _count(param)
        rows.append((f"{kind}-{counters[kind]}", _shape_text(outputs), total))

    handles = [leaf.register_forward_hook(record) for leaf in block._walk()
               if not leaf._children or leaf.params.keys()]
    try:
        block(*inputs)
    finally:
        for handle in handles:
            handle.detach()
    params = block.collect_params().values()
    trainable = sum(_count(p) for p in params if p.grad_req != "null")
    unique = sum(_count(p) for p in params)
    header = f"{'Layer (type)':>20}{'Output Shape':>42}{'Param #':>16}"
    lines = ["-" * _WIDTH, header, "=" * _WIDTH]
    lines += [f"{name:>20}{shape:>42}{count:>16}" for name, shape, count in rows]
    total = sum(count for _, _, count in rows)
    lines += ["=" * _WIDTH, "Parameters in forward computation graph, duplicate included",
              f"   Total params: {total}", f"   Trainable params: {trainable}",
              f"   Non-trainable params: {total - trainable}",
              f"Shared params in forward computation graph: {shared[0]}",
              f"Unique parameters in model: {unique}", "-" * _WIDTH]
    print("\n".join(lines))
