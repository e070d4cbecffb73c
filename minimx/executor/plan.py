"""Planning a graph once: the passes an Executor runs before the first forward.

Lesson: 08-executors.  Mirrors ``src/executor/graph_executor.cc`` and the nnvm
passes it calls.  Each pass is a small function over the list of steps and
records what it changed in the ``PlanReport``, so a lesson can show the graph
before and after:

1. ``remove_identities``: at inference, ops that pass data through unchanged
   (Dropout, BlockGrad, identity) disappear.
2. ``fold_constants``: nodes that depend on no variable are computed once now.
3. ``fuse_elementwise``: chains of single-input, same-shape ops whose
   intermediate results nobody else reads become one step.
4. ``plan_memory``: each intermediate buffer is released right after its last
   reader, and the peak of live bytes is compared with keeping them all.

A plan also knows whether it is *small* (``plan_is_small``): cheap enough that the engine
runs it in the pushing thread rather than handing it to a worker.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from .. import engine
from ..op.call import op_call
from ..symbol.graph import topo_order

__all__ = ["Step", "Plan", "PlanReport", "PlanInfo", "build_plan"]


@dataclass
class Step:
    """One unit of work: an operator node, or a fused chain of them.

    ``inputs``: value keys read; ``outputs``: value keys written (for a fused
    chain, the last node's); a key is an entry ``(node, index)``.
    """

    nodes: list
    inputs: list
    outputs: list
    constant: object = None       # folded value(s), computed at plan time

    @property
    def label(self):
        return "+".join(node.name for node in self.nodes)


@dataclass
class PlanReport:
    """What each pass did: lines of text plus the memory figures (bytes)."""

    passes: dict = field(default_factory=dict)     # pass name -> list of changes
    nodes_before: int = 0
    steps_after: int = 0
    memory_unplanned: int = 0
    memory_planned: int = 0

    def __str__(self):
        lines = [f"graph: {self.nodes_before} operator nodes -> {self.steps_after} steps"]
        for name, changes in self.passes.items():
            lines.append(f"{name}: {len(changes)} change(s)")
            lines += [f"    {change}" for change in changes]
        lines.append(f"memory: {_size(self.memory_planned)} planned peak vs "
                     f"{_size(self.memory_unplanned)} if every intermediate were kept")
        return "\n".join(lines)


def _size(count):
    for unit, scale in (("MB", 1e6), ("KB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


@dataclass
class Plan:
    steps: list
    release_after: dict       # step index -> value keys to drop after that step
    report: PlanReport
    aliases: dict             # value key removed by a pass -> the key that replaces it
    constants: list = field(default_factory=list)   # folded arrays, shared by every run
    work: int = 0             # multiply-adds of the plan's largest product (thread budget)
    small: bool = False       # run in the pushing thread when ready (``plan_is_small``)
    forward_schedule: list = None                             # run.forward_schedule's
    backward_schedules: dict = field(default_factory=dict)   # run.backward_schedule's
    random_nodes: list = field(default_factory=list)   # nodes that draw (a seed per call)

    def resolve(self, key):
        """The value key that holds ``key``'s value after the passes removed nodes."""
        return _resolve(self.aliases, key)


@dataclass(frozen=True)
class PlanInfo:
    """One plan an Executor or a hybridized block runs, for reading (lessons, the views).

    ``plan``: the steps after the passes (``plan.report`` says what each pass did);
    ``shapes``/``dtypes``: value key ``(node, index)`` -> shape / dtype, from inference;
    ``is_train``: the mode it was built for; ``signature``: the input shapes and dtypes
    it serves (a hybridized block builds one plan per signature).
    """

    plan: Plan
    shapes: dict
    dtypes: dict
    is_train: bool
    signature: tuple = ()


def build_plan(entries, shapes, dtypes, is_train, xp, order=None):
    """The steps that compute ``entries``; ``shapes``/``dtypes`` come from inference;
    ``order``: the entries' ``topo_order`` if known."""
    order = [node for node in (topo_order(entries) if order is None else order)
             if not node.is_variable]
    report = PlanReport(nodes_before=len(order))
    aliases = {}
    steps = [Step([node], list(node.inputs), [(node, i) for i in range(node.num_outputs())])
             for node in order]
    if not is_train:
        steps = remove_identities(steps, aliases, report)
    steps = fold_constants(steps, shapes, xp, report)
    outputs = {_resolve(aliases, entry) for entry in entries}
    steps = fuse_elementwise(steps, shapes, outputs, is_train, report)
    release_after = plan_memory(steps, shapes, dtypes, outputs, is_train, report)
    report.steps_after = len(steps)
    constants = [value for step in steps if step.constant is not None for value in step.constant]
    works = node_works(steps, shapes)
    random = [node for step in steps if step.constant is None for node in step.nodes
              if node.call().random]
    return Plan(steps, release_after, report, aliases, constants, max(works, default=0),
                plan_is_small(steps, shapes, works), random_nodes=random)


def node_works(steps, shapes):
    """The multiply-adds of each node's matrix product (0 for the others).  The largest is
    the plan's ``work``: the whole plan runs as one engine operation, which gets BLAS
    threads by it."""
    works = []
    for step in steps:
        for node in step.nodes:
            call = node.call()
            if call.uses_blas and all(shapes.get(key) is not None for key in node.inputs):
                works.append(call.work([shapes[key] for key in node.inputs]))
    return works


def plan_is_small(steps, shapes, works):
    """Whether the whole plan is an engine ``small`` operation (``engine.is_small``): its
    matrix products together, and the values its other nodes read or compute together,
    stay under the limits one imperative operator is measured by.  (Backward writes a
    gradient of each value: a product's inputs get theirs from products of the same
    work, an Embedding's weight a pass over all of it.)  Such a plan (a batch-1 MLP)
    runs in the pushing thread when its inputs are ready: handing it to a Python worker
    and back cost more than the plan itself (0.37 against 0.20 ms per training step of
    bench/executor_bench.py's batch-1 MLP).  A plan with an operator that ``meets``
    others is never small."""
    keys = {}
    for step in steps:
        for node in step.nodes if step.constant is None else ():
            if node.op.meets:
                return False
            keys.update(dict.fromkeys((node, i) for i in range(node.num_outputs())))
            if not node.call().uses_blas:
                keys.update(dict.fromkeys(node.inputs))
    values = [shapes.get(key) for key in keys]
    return None not in values and engine.is_small(values, sum(works))


def _resolve(aliases, key):
    while key in aliases:
        key = aliases[key]
    return key


def _rewire(steps, aliases):
    for step in steps:
        step.inputs = [_resolve(aliases, key) for key in step.inputs]


def remove_identities(steps, aliases, report):
    """Drop ops that only pass their input through when not training."""
    kept, changes = [], []
    for step in steps:
        node = step.nodes[0]
        if node.instance.identity_at_inference and node.inputs:
            aliases[(node, 0)] = node.inputs[0]
            changes.append(f"removed {node.name} ({node.op.name}): identity at inference")
            continue
        kept.append(step)
    _rewire(kept, aliases)
    report.passes["remove_identities"] = changes
    return kept


def fold_constants(steps, shapes, xp, report):
    """Compute now every step whose inputs are all constants (no variable upstream)."""
    constants, changes = {}, []
    for step in steps:
        node = step.nodes[0]
        if all(key in constants for key in step.inputs) and not node.call().random:
            instance = node.instance.with_inferred_shapes([shapes.get(k) for k in step.outputs])
            arrays = [constants[key] for key in step.inputs]
            result = op_call(instance, len(arrays)).forward(xp, arrays)
            constants.update(zip(step.outputs, result))
            step.constant = result
            changes.append(f"folded {node.name} ({node.op.name}) into a constant")
    report.passes["fold_constants"] = changes
    return steps


def _fusable(step, shapes):
    """A step of single-input, single-output ops that keep the shape."""
    return step.constant is None and all(
        len(node.inputs) == 1 and node.num_outputs() == 1 and not node.op.aux
        and not node.call().random
        and shapes.get(node.inputs[0]) == shapes.get((node, 0)) for node in step.nodes)


def fuse_elementwise(steps, shapes, outputs, is_train, report):
    """Merge chains a -> b -> c of same-shape, single-input ops into one step."""
    readers = {}
    for step in steps:
        for key in step.inputs:
            readers[key] = readers.get(key, 0) + 1
    fused, changes = [], []
    for step in steps:
        previous = fused[-1] if fused else None
        if (previous is not None and _fusable(step, shapes) and _fusable(previous, shapes)
                and step.inputs[0] == previous.outputs[0] and readers[step.inputs[0]] == 1
                and previous.outputs[0] not in outputs):
            previous.nodes.append(step.nodes[0])
            previous.outputs = step.outputs
            continue
        fused.append(step)
    for step in fused:
        if len(step.nodes) > 1:
            changes.append(f"fused {len(step.nodes)} ops into one step: {step.label}")
    report.passes["fuse_elementwise"] = changes
    return fused


def _bytes(shapes, dtypes, key):
    shape, dtype = shapes.get(key), dtypes.get(key)
    if shape is None or dtype is None:
        return 0
    return math.prod(shape) * np.dtype(dtype).itemsize


def plan_memory(steps, shapes, dtypes, outputs, is_train, report):
    """When to release each intermediate: after its last reader (kept if backward needs it)."""
    last_reader = {}
    for index, step in enumerate(steps):
        for key in step.inputs:
            last_reader[key] = index
    release_after, live, peak, total = {}, 0, 0, 0
    changes = []
    for index, step in enumerate(steps):
        for key in step.outputs:
            size = _bytes(shapes, dtypes, key)
            live += size
            total += size
        peak = max(peak, live)
        if is_train:
            continue      # backward reads saved values: nothing is released early
        for key in step.inputs:
            if last_reader.get(key) == index and key not in outputs and _is_intermediate(key):
                release_after.setdefault(index, []).append(key)
                live -= _bytes(shapes, dtypes, key)
                changes.append(f"release {key[0].output_name(key[1])} after {step.label}")
    report.memory_unplanned = total
    report.memory_planned = peak if not is_train else total
    report.passes["plan_memory"] = changes
    return release_after


def _is_intermediate(key):
    return not key[0].is_variable
