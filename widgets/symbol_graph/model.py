"""What the symbol-graph view draws, as plain data: the graph as traced and after planning.

Lesson: 07-symbolic-programming, 08-executors, 10-hybridize.  ``graph_model(source)`` reads a
Symbol, a hybridized block's cached graph or an Executor, and returns dicts and
lists only (JSON-ready): the traced nodes and edges with their shapes and
parameter counts, and the executor's plan for the same graph: fused steps as one
box, identities removed, folded constants marked, and every intermediate buffer
with its lifetime and the memory slot it can share.  Nothing here draws.
"""
import math

import numpy as np

from minimx.executor import Executor
from minimx.executor.plan import build_plan
from minimx.gluon import HybridBlock
from minimx.symbol import Symbol, inference
from minimx.viz import parameter_count

__all__ = ["graph_model", "traced_graph", "planned_graph", "buffer_lifetimes", "assign_slots",
           "plan_of", "key_attrs"]

# variables whose names mark them as weights or statistics (drawn apart from data inputs)
WEIGHT_ENDINGS = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                  "_running_var", "_running_mean")


def graph_model(source, shape=None, dtype=None, is_train=False):
    """``{"title", "traced", "planned"}`` for a Symbol, a hybridized HybridBlock or an Executor.

    ``shape`` (input name -> shape) is needed for a Symbol's plan; a block that has
    run once and an Executor bring their own shapes and plans.  ``planned`` is None
    when the shapes are unknown (a plan without shapes can neither fuse nor size
    buffers).
    """
    symbol, plan, shapes, dtypes = plan_of(source, shape, dtype, is_train)
    return {"title": _title(source, symbol),
            "traced": traced_graph(symbol, shapes, dtypes),
            "planned": None if plan is None else planned_graph(symbol, plan, shapes, dtypes)}


def _title(source, symbol):
    if isinstance(source, HybridBlock):
        return f"{source.name} (hybridized)"
    kind = "executor" if isinstance(source, Executor) else "symbol"
    return f"{kind}: {', '.join(symbol.list_outputs())}"


def plan_of(source, shape=None, dtype=None, is_train=False):
    """(symbol, plan or None, shapes, dtypes) of what ``source`` runs (read-only)."""
    if isinstance(source, Executor):
        info = source.plan_info(is_train)       # builds (and caches) the plan it would run
        return source.symbol, info.plan, info.shapes, info.dtypes
    if isinstance(source, HybridBlock):
        return _block_plan(source, shape, dtype, is_train)
    if not isinstance(source, Symbol):
        raise TypeError(f"graph_model: expected a Symbol, HybridBlock or Executor, "
                        f"got {type(source).__name__}")
    return _symbol_plan(source, shape, dtype, is_train)


def _block_plan(block, shape, dtype, is_train):
    symbol = block.cached_graph()
    if symbol is None:
        raise ValueError(f"{block.name}: hybridize() the block and call it once, so that it "
                         f"has a cached graph to draw")
    matching = [info for info in block.cached_plans() if info.is_train == is_train]
    if shape is None and matching:
        info = matching[-1]                       # the plan of the latest input signature
        return symbol, info.plan, info.shapes, info.dtypes
    return _symbol_plan(symbol, shape, dtype, is_train)


def _symbol_plan(symbol, shape, dtype, is_train):
    _, shapes = inference.infer_shapes(symbol.entries, dict(shape or {}))
    given = dict(dtype or {})
    for name in symbol.list_inputs():
        given.setdefault(name, "float32")
    _, dtypes = inference.infer_types(symbol.entries, given)
    known = all(shapes.get((node, 0)) is not None for node in symbol.nodes())
    if not known:
        return symbol, None, shapes, dtypes
    return symbol, build_plan(symbol.entries, shapes, dtypes, is_train, np), shapes, dtypes


# -- the graph as traced ------------------------------------------------------------------------
def _node_ids(symbol):
    """A unique id per node (names can repeat), in topological order."""
    return {id(node): f"n{position}" for position, node in enumerate(symbol.nodes())}


def _shape(shapes, key):
    shape = shapes.get(key)
    return None if shape is None else [int(size) for size in shape]


def _dtype(dtypes, key):
    dtype = dtypes.get(key)
    return None if dtype is None else np.dtype(dtype).name


def _bytes(shapes, dtypes, key):
    shape, dtype = shapes.get(key), dtypes.get(key)
    if shape is None or dtype is None:
        return None
    return int(math.prod(shape)) * np.dtype(dtype).itemsize


def _kind(node):
    if not node.is_variable:
        return "op"
    return "weight" if node.name.endswith(WEIGHT_ENDINGS) else "input"


def key_attrs(node):
    """The operator parameters that differ from their defaults (what a label should show)."""
    if node.is_variable:
        return {}
    instance, result = node.instance, {}
    for key, param in node.op.params.items():
        value = getattr(instance, key, None)
        if key in node.attrs and (param.required or value != param.default):
            result[key] = node.attrs[key]
    return result


def _node_record(node, node_id, shapes, dtypes):
    outputs = range(node.num_visible())
    return {"id": node_id, "name": node.name, "op": node.op_name(), "kind": _kind(node),
            "attrs": dict(node.attrs), "key_attrs": key_attrs(node),
            "outputs": [node.output_name(i) for i in outputs],
            "shapes": [_shape(shapes, (node, i)) for i in outputs],
            "dtypes": [_dtype(dtypes, (node, i)) for i in outputs],
            "params": 0 if node.is_variable else parameter_count(node, shapes)}


def traced_graph(symbol, shapes=None, dtypes=None):
    """``{"nodes", "edges", "outputs", "params"}`` of the graph exactly as built or traced.

    An edge runs from the node producing a value to the node reading it, with the
    value's shape, dtype and size when known.
    """
    shapes, dtypes = shapes or {}, dtypes or {}
    ids = _node_ids(symbol)
    order = symbol.nodes()
    nodes = [_node_record(node, ids[id(node)], shapes, dtypes) for node in order]
    edges = []
    for node in order:
        for position, (source, index) in enumerate(node.inputs):
            key = (source, index)
            edges.append({"source": ids[id(source)], "target": ids[id(node)],
                          "input": node.input_names()[position],
                          "value": source.output_name(index),
                          "shape": _shape(shapes, key), "dtype": _dtype(dtypes, key),
                          "bytes": _bytes(shapes, dtypes, key)})
    outputs = [{"source": ids[id(node)], "value": node.output_name(index)}
               for node, index in symbol.entries]
    return {"nodes": nodes, "edges": edges, "outputs": outputs,
            "params": sum(node["params"] for node in nodes)}


# -- the graph after the executor's passes -------------------------------------------------------
def buffer_lifetimes(plan):
    """{value key: (first step, last step)}: when each buffer a step writes is alive.

    A buffer exists from the step that writes it until the step after which the
    plan releases it (``plan.release_after``); one never released (an output, or
    any value in training, where backward reads it) lives to the last step.
    Both ends are inclusive: a step's inputs and outputs are alive together.
    """
    released = {key: index for index, keys in plan.release_after.items() for key in keys}
    last_step = len(plan.steps) - 1
    return {key: (index, released.get(key, last_step))
            for index, step in enumerate(plan.steps) for key in step.outputs}


def assign_slots(buffers):
    """Slot per buffer, so buffers alive at the same step never share one.

    ``buffers``: list of ``(first, last, bytes)``.  Buffers are taken in order of
    birth; each reuses a free slot (one whose buffer died before this one is born),
    preferring the smallest free slot large enough, else the largest free one
    (which grows), else a new slot.  Returns (slot per buffer, bytes per slot).
    """
    order = sorted(range(len(buffers)), key=lambda i: (buffers[i][0], i))
    slot_of, slot_end, slot_bytes = [None] * len(buffers), [], []
    for index in order:
        first, last, size = buffers[index]
        free = [s for s, end in enumerate(slot_end) if end < first]
        if free:
            fitting = [s for s in free if slot_bytes[s] >= size]
            slot = (min(fitting, key=lambda s: slot_bytes[s]) if fitting
                    else max(free, key=lambda s: slot_bytes[s]))
            slot_end[slot] = last
            slot_bytes[slot] = max(slot_bytes[slot], size)
        else:
            slot = len(slot_end)
            slot_end.append(last)
            slot_bytes.append(size)
        slot_of[index] = slot
    return slot_of, slot_bytes


def _box(step, index, ids, shapes, outputs):
    kind = "constant" if step.constant is not None else "fused" if len(step.nodes) > 1 else "op"
    return {"id": f"s{index}", "step": index, "kind": kind, "label": step.label,
            "nodes": [ids[id(node)] for node in step.nodes],
            "names": [node.name for node in step.nodes],
            "ops": [node.op.name for node in step.nodes],
            "attrs": {node.name: dict(node.attrs) for node in step.nodes},
            "key_attrs": {node.name: key_attrs(node) for node in step.nodes},
            "params": sum(parameter_count(node, shapes) for node in step.nodes),
            "is_output": any(key in outputs for key in step.outputs)}


def _buffers(plan, outputs, shapes, dtypes, producers):
    lifetimes = buffer_lifetimes(plan)
    keys = list(lifetimes)
    sizes = [_bytes(shapes, dtypes, key) or 0 for key in keys]
    slots, slot_bytes = assign_slots([(*lifetimes[k], size) for k, size in zip(keys, sizes)])
    buffers = [{"value": key[0].output_name(key[1]), "producer": producers[key],
                "shape": _shape(shapes, key), "dtype": _dtype(dtypes, key), "bytes": size,
                "first": lifetimes[key][0], "last": lifetimes[key][1], "slot": slot,
                "is_output": key in outputs}
               for key, size, slot in zip(keys, sizes, slots)]
    slot_list = [{"slot": s, "bytes": size,
                  "values": [b["value"] for b in buffers if b["slot"] == s]}
                 for s, size in enumerate(slot_bytes)]
    return keys, buffers, slot_list


def planned_graph(symbol, plan, shapes, dtypes):
    """``{"boxes", "edges", "buffers", "slots", "removed", "variables", "memory", "passes"}``.

    A box is one plan step (several nodes when fused); an edge carries one value
    from the step or variable producing it to the step reading it, and names the
    buffer (and so the slot) it lives in.
    """
    ids = _node_ids(symbol)
    outputs = {plan.resolve(entry) for entry in symbol.entries}
    boxes = [_box(step, i, ids, shapes, outputs) for i, step in enumerate(plan.steps)]
    producers = {key: f"s{i}" for i, step in enumerate(plan.steps) for key in step.outputs}
    keys, buffers, slots = _buffers(plan, outputs, shapes, dtypes, producers)
    buffer_index = {key: position for position, key in enumerate(keys)}
    edges, variables = [], {}
    for index, step in enumerate(plan.steps):
        for key in step.inputs:
            source = producers.get(key)
            if source is None:
                variables[ids[id(key[0])]] = key[0]
                source = ids[id(key[0])]
            edges.append({"source": source, "target": f"s{index}",
                          "value": key[0].output_name(key[1]),
                          "buffer": buffer_index.get(key), "shape": _shape(shapes, key),
                          "bytes": _bytes(shapes, dtypes, key)})
    in_steps = {id(node) for step in plan.steps for node in step.nodes}
    removed = [{"id": ids[id(node)], "name": node.name, "op": node.op.name,
                "replaced_by": plan.resolve((node, 0))[0].output_name(
                    plan.resolve((node, 0))[1])}
               for node in symbol.nodes()
               if not node.is_variable and id(node) not in in_steps]
    report = plan.report
    return {"boxes": boxes, "edges": edges, "buffers": buffers, "slots": slots,
            "removed": removed,
            "variables": [_node_record(node, node_id, shapes, dtypes)
                          for node_id, node in variables.items()],
            "outputs": [producers.get(key, ids[id(key[0])]) for key in
                        (plan.resolve(e) for e in symbol.entries)],
            "memory": {"planned": int(report.memory_planned),
                       "unplanned": int(report.memory_unplanned),
                       "slots": int(sum(slot["bytes"] for slot in slots))},
            "passes": {name: list(changes) for name, changes in report.passes.items()},
            "nodes_before": report.nodes_before, "steps_after": report.steps_after}
