"""``group2ctx``: which context each array of an executor belongs to (MXNet's model
parallelism, the ``PlaceDevice`` pass of ``src/executor/graph_executor.cc``).

Lesson: 08-executors.  Nodes made inside ``with mx.AttrScope(ctx_group='dev1'):`` carry the
attribute ``__ctx_group__``; ``group2ctx={'dev1': mx.cpu(1)}`` then puts that group's
variables (their arrays and gradients) and outputs on ``cpu(1)``, everything else on the
executor's own context.  minimx runs a whole graph as one engine operation over one array
library, so the groups' contexts must be of the executor's device type: ``cpu(1)`` beside
``cpu(0)`` is a label on the same host memory (as in MXNet, where every ``cpu(i)`` is the
host), while a ``gpu`` group in a ``cpu`` graph is refused.
"""
from ..base import MXNetError

__all__ = ["check_group2ctx", "context_of", "group2ctx_per_device", "variable_contexts"]


def check_group2ctx(ctx, group2ctx, what):
    """Refuse a group on another device type than ``ctx``, naming the contexts."""
    others = sorted({str(c) for c in (group2ctx or {}).values()
                     if c.device_type != ctx.device_type})
    if others:
        raise MXNetError(f"{what}: group2ctx places node groups on {others}, but minimx runs "
                         f"a graph on one device type ({ctx.device_type}); model parallelism "
                         f"across device types is not supported")


def context_of(node, ctx, group2ctx):
    """The context of ``node``'s arrays: its group's, or the executor's ``ctx``."""
    group = node.attrs.get("__ctx_group__")
    return (group2ctx or {}).get(group, ctx) if group is not None else ctx


def variable_contexts(symbol, ctx, group2ctx):
    """{variable name: the context of its arrays}."""
    return {node.name: context_of(node, ctx, group2ctx)
            for node in symbol._order() if node.is_variable}


def group2ctx_per_device(group2ctxs, count):
    """A Module's ``group2ctxs`` as one mapping per device: a list holds one per device; in
    a dict each group names one context for all devices, or a list of one or one per
    device (as MXNet's ``_prepare_group2ctxs``)."""
    if group2ctxs is None:
        return [None] * count
    if isinstance(group2ctxs, (list, tuple)):
        if len(group2ctxs) != count:
            raise MXNetError(f"group2ctxs: {len(group2ctxs)} mappings for {count} devices")
        return list(group2ctxs)
    per_device = [{} for _ in range(count)]
    for group, contexts in group2ctxs.items():
        contexts = list(contexts) if isinstance(contexts, (list, tuple)) else [contexts]
        if len(contexts) == 1:
            contexts = contexts * count
        if len(contexts) != count:
            raise MXNetError(f"group2ctxs[{group!r}]: {len(contexts)} contexts for {count} "
                             f"devices")
        for mapping, context in zip(per_device, contexts):
            mapping[group] = context
    return per_device
