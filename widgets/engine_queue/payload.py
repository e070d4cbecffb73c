"""The engine queue view's data as JSON for the browser (and for the static picture).

Lesson: 05-lazy-evaluation.  Times are milliseconds since the recording began.
Up to ``max_ops`` operations are sent one by one (with their vars and the
dependency edges); past that the run is sent as time bins, so a loop of
thousands of operations stays a few kilobytes and draws at once.  The sync points are sent
one by one in both cases (the ``max_syncs`` longest waits, if there are more).
"""
__all__ = ["build_payload", "EDGE_KINDS"]

EDGE_KINDS = ("read after write", "write after write", "write after read")


def build_payload(recording, title="", final=True, max_ops=600, max_edges=400,
                  max_points=400, bin_count=120, max_syncs=200):
    """A JSON-able dict describing ``recording`` for view.js and static.py."""
    origin = recording.origin

    def ms(time):
        return None if time is None else round((time - origin) * 1e3, 4)
    lanes = recording.lanes()
    summary = recording.summary()
    data = {
        "version": 1, "title": title, "final": final, "t_end": ms(recording.now),
        "lanes": [[lane.name, lane.kind] for lane in lanes],
        "summary": {"operations": summary["operations"],
                    "finished_ops": summary["finished_ops"], "errors": summary["errors"],
                    "last_push_ms": summary["last_push_s"] * 1e3,
                    "finished_ms": summary["finished_s"] * 1e3,
                    "busy_ms": summary["busy_s"] * 1e3,
                    "parallelism": summary["parallelism"], "max_depth": summary["max_depth"],
                    "syncs": summary["syncs"],
                    "value_dependent_syncs": summary["value_dependent_syncs"]},
        "depth": _downsample_depth(recording.queue_depth(), ms, max_points),
        "aggregated": len(recording.ops) > max_ops,
        "ops": [], "names": [], "edges": [], "var_labels": {}, "bins": None,
        "syncs": _syncs(recording, lanes, ms, max_syncs),
    }
    if data["aggregated"]:
        data["bins"] = _bins(recording, lanes, ms, bin_count)
    else:
        _detail(data, recording, lanes, ms, max_edges)
    return data


def _detail(data, recording, lanes, ms, max_edges):
    frontend = {lane.name: i for i, lane in enumerate(lanes) if lane.kind == "frontend"}
    worker = {lane.name: i for i, lane in enumerate(lanes) if lane.kind == "worker"}
    names = {}
    position = {}
    used_vars = set()
    for index, op in enumerate(recording.ops):
        position[op.op_id] = index
        used_vars.update(op.reads)
        used_vars.update(op.writes)
        data["ops"].append([op.op_id, names.setdefault(op.name, len(names)),
                            frontend.get(op.frontend), worker.get(op.worker), ms(op.push),
                            ms(op.ready), ms(op.start), ms(op.end), list(op.reads),
                            list(op.writes), op.error])
    data["names"] = list(names)
    edges = recording.edges()
    edges.sort(key=lambda edge: not edge.blocking)       # keep the ones that made ops wait
    data["edges"] = [[position[e.src], position[e.dst], e.var, EDGE_KINDS.index(e.kind),
                      e.blocking] for e in edges[:max_edges]]
    data["edges_total"] = len(edges)
    used_vars.update(sync.var for sync in recording.syncs)
    data["var_labels"] = {str(var): label for var, label in recording.var_labels.items()
                          if var in used_vars}


def _syncs(recording, lanes, ms, limit):
    """[lane, begin, end, var, waited-for op id, its name, reason, value-dependent] per sync
    point: the ``limit`` longest waits, in time order."""
    lane_of = {lane.name: i for i, lane in enumerate(lanes) if lane.kind == "frontend"}
    kept = sorted(recording.syncs, key=lambda sync: -sync.waited)[:limit]
    rows = []
    for sync in sorted(kept, key=lambda sync: sync.begin):
        writer = recording.by_id.get(sync.waited_for)
        rows.append([lane_of.get(sync.thread), ms(sync.begin), ms(sync.end), sync.var,
                     sync.waited_for, writer.name if writer else None, sync.reason,
                     sync.value_dependent])
    return rows


def _bins(recording, lanes, ms, count):
    bins = recording.bins(count)
    width = (bins[0].end - bins[0].start) if bins else 0.0
    rows = []
    for lane in lanes:
        if lane.kind == "frontend":
            rows.append([b.pushes.get(lane.name, 0) for b in bins])
        else:
            rows.append([round(b.busy.get(lane.name, 0.0) / width, 4) if width else 0
                         for b in bins])
    return {"start": [ms(b.start) for b in bins], "width_ms": width * 1e3, "lanes": rows,
            "started": [[b.started.get(lane.name, 0) for b in bins] for lane in lanes],
            "names": [b.names.most_common(3) for b in bins],
            "depth": [b.max_depth for b in bins]}


def _downsample_depth(steps, ms, max_points):
    """At most ``max_points`` steps; each kept step carries the deepest queue it stands for."""
    if len(steps) <= max_points:
        return [[ms(time), pending, running] for time, pending, running in steps]
    first, last = steps[0][0], steps[-1][0]
    width = (last - first) / max_points or 1.0
    buckets = {}
    for time, pending, running in steps:
        key = min(max_points - 1, int((time - first) / width))
        kept = buckets.get(key)
        if kept is None:
            buckets[key] = [time, pending, running]
        else:
            kept[1] = max(kept[1], pending)
            kept[2] = max(kept[2], running)
    points = [[ms(t), p, r] for t, p, r in (buckets[key] for key in sorted(buckets))]
    points.append([ms(last), steps[-1][1], steps[-1][2]])     # end where the run ended
    return points
