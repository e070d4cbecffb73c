"""The engine queue view's model on recorded event lists, traces and known DAGs; its drawing."""
import doctest
import json
import xml.etree.ElementTree as ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import nd
from minimx.engine import VALUE_DEPENDENT, EngineEvent, SyncEvent
from widgets.engine_queue import EngineRecording, EngineTimeline, recording_from_trace
from widgets.engine_queue import labels, model, payload, static, view

FRONT, W0, W1 = "MainThread", "engine-cpu(0)-worker0", "engine-cpu(0)-worker1"


def op_events(op_id, name, times, worker, reads=(), writes=(), error=""):
    """The four events of one operation; ``times`` = (push, ready, start, end)."""
    kinds = ("push", "ready", "start", "end")
    threads = (FRONT, FRONT, worker, worker)
    return [EngineEvent(kind, op_id, name, "cpu(0)", thread, tuple(reads), tuple(writes), time,
                        0, error if kind == "end" else "")
            for kind, thread, time in zip(kinds, threads, times)]


def recording(*ops, **kwargs):
    events = [event for op in ops for event in op]
    return EngineRecording.from_events(events[::-1], **kwargs)   # any order will do


# -- known DAGs -------------------------------------------------------------------------------
def test_two_independent_ops_overlap_on_two_workers():
    rec = recording(op_events(1, "dot", (0.0, 0.0, 0.001, 0.005), W0, [10], [11]),
                    op_events(2, "dot", (0.0005, 0.0005, 0.0015, 0.004), W1, [10], [12]),
                    origin=0.0)
    assert [(lane.name, lane.kind) for lane in rec.lanes()] == [
        (FRONT, "frontend"), (W0, "worker"), (W1, "worker")]
    assert rec.edges() == []                        # both only read var 10
    first, second = rec.ops
    assert first.start < second.end and second.start < first.end      # they overlap
    summary = rec.summary()
    assert summary["busy_s"] == pytest.approx(0.004 + 0.0025)
    assert summary["parallelism"] == pytest.approx(0.0065 / 0.005)
    assert summary["max_depth"] == 2
    overlapping = [b for b in rec.bins(10) if len(b.busy) == 2]
    assert overlapping, "some bin shows both workers busy"


def test_chain_has_edges_and_the_sum_waits_for_both_inputs():
    rec = recording(op_events(1, "_ones", (0.0, 0.0, 0.001, 0.002), W0, [], [1]),
                    op_events(2, "dot", (0.0001, 0.002, 0.002, 0.010), W0, [1], [2]),
                    op_events(3, "dot", (0.0002, 0.002, 0.003, 0.009), W1, [1], [3]),
                    op_events(4, "add", (0.0003, 0.010, 0.010, 0.011), W1, [2, 3], [4]))
    edges = {(e.src, e.dst, e.var, e.kind) for e in rec.edges()}
    assert edges == {(1, 2, 1, "read after write"), (1, 3, 1, "read after write"),
                     (2, 4, 2, "read after write"), (3, 4, 3, "read after write")}
    assert all(edge.blocking for edge in rec.edges())   # each was pushed before its input ended
    add = rec.by_id[4]
    assert add.waiting == pytest.approx(0.0097)
    assert add.queued == pytest.approx(0.0097)
    assert add.running == pytest.approx(0.001)


def test_write_after_read_and_write_after_write():
    rec = recording(op_events(1, "w1", (0.0, 0.0, 0.0, 0.1), W0, [], [7]),
                    op_events(2, "r", (0.2, 0.2, 0.2, 0.3), W0, [7], [8]),
                    op_events(3, "w2", (0.25, 0.3, 0.3, 0.4), W1, [], [7]))
    kinds = {(e.src, e.dst): (e.kind, e.blocking) for e in rec.edges()}
    assert kinds == {(1, 2): ("read after write", False),      # w1 had ended before r's push
                     (1, 3): ("write after write", False),
                     (2, 3): ("write after read", True)}


def test_reading_one_var_twice_gives_one_edge():
    rec = recording(op_events(1, "a", (0, 0, 0, 1), W0, [], [1]),
                    op_events(2, "dot", (0.5, 1, 1, 2), W0, [1, 1], [2]))
    assert len(rec.edges()) == 1


def test_states_over_time():
    op = model.OpRecord(1, "dot", push=1.0, ready=2.0, start=3.0, end=4.0)
    assert [op.state_at(t) for t in (0.5, 1.5, 2.5, 3.5, 4.5)] == [
        "unpushed", "pushed", "ready", "running", "done"]


def test_an_op_still_running_counts_as_pending_and_running():
    events = op_events(1, "dot", (0.0, 0.0, 0.1, 0.2), W0)[:3]     # no end yet
    rec = EngineRecording.from_events(events, origin=0.0, now=0.5)
    assert rec.queue_depth()[-1][1:] == (1, 1)
    assert rec.bins(5)[-1].busy[W0] == pytest.approx(0.1)       # runs until "now"


def test_failed_operation_keeps_its_error():
    rec = recording(op_events(1, "take", (0, 0, 0, 1), W0, error="index out of range"))
    assert rec.ops[0].error == "index out of range"
    assert rec.summary()["errors"] == 1
    assert "error: index out of range" in static.op_tooltip(
        payload.build_payload(rec), payload.build_payload(rec)["ops"][0])


# -- properties on random schedules -----------------------------------------------------------
@st.composite
def schedules(draw):
    count = draw(st.integers(1, 40))
    ops, push = [], 0.0
    for op_id in range(count):
        push += draw(st.floats(0, 1))
        ready = push + draw(st.floats(0, 1))
        start = ready + draw(st.floats(0, 1))
        end = start + draw(st.floats(0.001, 2))
        worker = draw(st.sampled_from([W0, W1]))
        ops.append(op_events(op_id, f"op{op_id % 3}", (push, ready, start, end), worker))
    return ops


@settings(max_examples=40, deadline=None)
@given(schedules())
def test_queue_depth_matches_counting_at_every_moment(ops):
    rec = recording(*ops, origin=0.0)
    intervals = [(o.push, o.end) for o in rec.ops]
    for time, pending, running in rec.queue_depth():
        assert pending == sum(1 for push, end in intervals if push <= time < end)
        assert running == sum(1 for o in rec.ops if o.start <= time < o.end)
    moments = [t for interval in intervals for t in interval]
    assert rec.max_depth() == max(sum(1 for p, e in intervals if p <= t < e) for t in moments)


@settings(max_examples=40, deadline=None)
@given(schedules(), st.integers(1, 50))
def test_aggregation_keeps_totals(ops, count):
    rec = recording(*ops, origin=0.0)
    bins = rec.bins(count)
    assert len(bins) == count
    assert sum(sum(b.pushes.values()) for b in bins) == len(rec.ops)
    assert sum(sum(b.started.values()) for b in bins) == len(rec.ops)
    assert sum(sum(b.names.values()) for b in bins) == len(rec.ops)
    for worker in (W0, W1):
        total = sum(o.running for o in rec.ops if o.worker == worker)
        assert sum(b.busy.get(worker, 0.0) for b in bins) == pytest.approx(total, abs=1e-9)
    assert max(b.max_depth for b in bins) == rec.max_depth()


@settings(max_examples=25, deadline=None)
@given(schedules(), st.integers(3, 30))
def test_downsampled_depth_keeps_the_deepest_queue(ops, points):
    rec = recording(*ops, origin=0.0)
    data = payload.build_payload(rec, max_points=points)
    assert max(p[1] for p in data["depth"]) == rec.max_depth()
    assert len(data["depth"]) <= max(points + 1, len(rec.queue_depth()))
    times = [p[0] for p in data["depth"]]
    assert times == sorted(times)


# -- payload and pictures ---------------------------------------------------------------------
def chain_recording(length):
    ops = [op_events(i, "_plus_scalar", (i * 1e-5, i * 1e-5 + 5e-6, i * 1e-5 + 6e-6,
                                          i * 1e-5 + 9e-6), W0 if i % 2 else W1, [i], [i + 1])
           for i in range(length)]
    return recording(*ops)


def test_long_runs_are_sent_as_bins_of_bounded_size():
    small, big = chain_recording(50), chain_recording(5000)
    detail = payload.build_payload(small, max_ops=100)
    assert not detail["aggregated"] and len(detail["ops"]) == 50
    assert len(detail["edges"]) == 49
    binned = payload.build_payload(big, max_ops=100, bin_count=80)
    assert binned["aggregated"] and binned["ops"] == []
    assert sum(binned["bins"]["lanes"][0]) == 5000            # the frontend lane's pushes
    assert len(json.dumps(binned)) < 60_000
    assert len(json.dumps(detail)) < 60_000


def test_tooltip_names_the_op_its_vars_and_durations():
    rec = recording(op_events(3, "dot", (0.0, 0.001, 0.002, 0.005), W0, [1, 2], [3]),
                    origin=0.0, var_labels={1: "x (4, 4) float32", 3: "y (4, 4) float32"})
    data = payload.build_payload(rec)
    text = static.op_tooltip(data, data["ops"][0])
    assert text.splitlines() == ["dot (op 3)", "reads: x (4, 4) float32, var 2",
                                 "writes: y (4, 4) float32",
                                 "queued 2.00 ms, waited for inputs 1.00 ms", "ran 3.00 ms"]


@pytest.mark.parametrize("length", [3, 2000])
def test_static_svg_is_well_formed_and_draws_each_op(length):
    data = payload.build_payload(chain_recording(length), max_ops=600)
    svg = static.render_svg(data)
    root = ElementTree.fromstring(svg)
    rects = root.findall("{http://www.w3.org/2000/svg}rect")
    if data["aggregated"]:
        assert len(rects) > 3
    else:
        titled = [r for r in rects if r.find("{http://www.w3.org/2000/svg}title") is not None]
        assert len(titled) == length
    assert "deepest queue" in svg



SVG = "{http://www.w3.org/2000/svg}"


def rgb(colour):
    """(r, g, b) in 0..255 of a '#rrggbb' or 'hsl(h, s%, l%)' colour."""
    import colorsys
    if colour.startswith("#"):
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    hue, sat, light = (float(v.strip(" %")) for v in colour[4:-1].split(","))
    return tuple(255 * c for c in colorsys.hls_to_rgb(hue / 360, light / 100, sat / 100))


def bars(svg):
    return [r for r in ElementTree.fromstring(svg).iter(f"{SVG}rect")
            if r.find(f"{SVG}title") is not None]


def test_similar_names_get_clearly_different_colours():
    names = ["op_a", "op_b", "op_c", "op_d", "_plus0", "_plus1"]
    rec = recording(*[op_events(i, name, (i * 1e-3, i * 1e-3, i * 1e-3, (i + 0.5) * 1e-3), W0)
                      for i, name in enumerate(names)], origin=0.0)
    fills = [rgb(bar.get("fill")) for bar in bars(static.render_svg(payload.build_payload(rec)))]
    assert len(set(fills)) == len(names)
    closest = min(sum((a - b) ** 2 for a, b in zip(p, q)) ** 0.5
                  for i, p in enumerate(fills) for q in fills[i + 1:])
    assert closest > 40                    # a hash of similar names gave near-identical hues


def test_back_to_back_runs_on_one_worker_show_a_gap():
    rec = recording(op_events(1, "dot", (0.0, 0.0, 0.001, 0.002), W0, [], [1]),
                    op_events(2, "dot", (0.0, 0.0, 0.002, 0.003), W0, [], [2]), origin=0.0)
    first, second = bars(static.render_svg(payload.build_payload(rec)))
    gap = float(second.get("x")) - (float(first.get("x")) + float(first.get("width")))
    assert gap >= 0.85                                     # 1 px, less the 0.1 px rounding


@pytest.mark.parametrize("second_worker", [W0, W1])
def test_an_edge_stays_visible_when_the_next_op_starts_as_the_first_ends(second_worker):
    rec = recording(op_events(1, "dot", (0.0, 0.0, 0.001, 0.002), W0, [1], [2]),
                    op_events(2, "add", (0.0001, 0.002, 0.002, 0.003), second_worker, [2], [3]),
                    origin=0.0)
    data = payload.build_payload(rec)
    assert data["edges"] and data["edges"][0][4]           # a blocking edge
    root = ElementTree.fromstring(static.render_svg(data))
    children = list(root)
    paths = [c for c in children if c.tag == f"{SVG}path"]
    assert len(paths) == 1
    numbers = [float(v) for v in paths[0].get("d").replace("M", " ").replace("C", " ")
               .replace(",", " ").split()]
    xs = numbers[0::2]
    assert max(xs) - min(xs) >= 8                          # not a zero-width line
    last_bar = max(children.index(bar) for bar in children if bar.find(f"{SVG}title")
                   is not None and bar.tag == f"{SVG}rect")
    assert children.index(paths[0]) > last_bar             # drawn over the bars


def test_axis_unit_does_not_overlap_the_last_tick():
    rec = recording(op_events(1, "dot", (0.0, 0.0, 0.001, 0.010), W0), origin=0.0)
    data = payload.build_payload(rec)
    assert data["t_end"] == 10.0                           # the last tick sits at the edge
    root = ElementTree.fromstring(static.render_svg(data))
    axis_y = max(float(t.get("y")) for t in root.iter(f"{SVG}text")
                 if t.text == "10")
    spans = []
    for text in root.iter(f"{SVG}text"):
        if float(text.get("y")) != axis_y:
            continue
        x, width = float(text.get("x")), 7 * len(text.text)    # 11 px font: < 7 px a char
        anchor = text.get("text-anchor", "start")
        left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
        spans.append((left, left + width, text.text))
    spans.sort()
    assert any("ms" in text for _, _, text in spans)
    for (_, right, a), (left, _, b) in zip(spans, spans[1:]):
        assert right <= left, f"{a!r} overlaps {b!r}"

# -- sync points ------------------------------------------------------------------------------
def sync_recording():
    """A product on a worker; the frontend waits for it twice: by ``nonzero`` (a value-dependent
    shape) and by ``wait_to_read``; then a wait for a value that was ready."""
    product = op_events(1, "_np_dot", (0.0, 0.0, 0.0005, 0.004), W0, [1], [2])
    syncs = [SyncEvent(VALUE_DEPENDENT, FRONT, 2, 1, 0.001, 0.004),
             SyncEvent("wait_for_var", FRONT, 2, None, 0.0045, 0.0046),
             SyncEvent("wait_all", "Thread-9", None, None, 0.005, 0.005)]
    return recording(product, origin=0.0, var_labels={2: "product (9, 9) float32"},
                     syncs=syncs[::-1])


def test_sync_points_are_kept_and_value_dependent_ones_told_apart():
    rec = sync_recording()
    assert [(s.reason, s.value_dependent) for s in rec.syncs] == [
        (VALUE_DEPENDENT, True), ("wait_for_var", False), ("wait_all", False)]
    assert [lane.name for lane in rec.lanes()] == [FRONT, "Thread-9", W0]   # a waiting lane
    summary = rec.summary()
    assert (summary["syncs"], summary["value_dependent_syncs"]) == (3, 1)
    data = payload.build_payload(rec)
    assert data["syncs"][0] == [0, 1.0, 4.0, 2, 1, "_np_dot", VALUE_DEPENDENT, True]
    assert [sync[0] for sync in data["syncs"]] == [0, 0, 1]
    assert static.sync_tooltip(data, data["syncs"][0]).splitlines() == [
        "sync point: value-dependent shape (the result's shape needs the input's values)",
        "waited 3.00 ms for product (9, 9) float32", "until _np_dot (op 1) finished"]
    assert static.sync_tooltip(data, data["syncs"][2]).splitlines()[1:] == [
        "waited 0 us for every pushed operation", "nothing was pending"]


def test_the_static_picture_marks_value_dependent_sync_points_distinctly():
    svg = static.render_svg(payload.build_payload(sync_recording()))
    root = ElementTree.fromstring(svg)
    syncs = [node for node in root.iter() if "mmx-sync" in (node.get("class") or "").split()]
    value = [node for node in syncs if "mmx-sync-value" in node.get("class").split()]
    assert len(syncs) == 3 and len(value) == 1
    assert value[0].get("fill") == static.VALUE_DEPENDENT_COLOUR != syncs[1].get("fill")
    assert len([n for n in root.iter(f"{SVG}path") if n.get("class") == "mmx-sync-mark"]) == 1
    assert "sync points: 3" in svg and "value-dependent: 1" in svg


def test_only_the_longest_waits_are_sent_when_there_are_many():
    syncs = [SyncEvent("wait_for_var", FRONT, None, None, i * 1e-3, i * 1e-3 + i * 1e-6)
             for i in range(50)]
    data = payload.build_payload(EngineRecording([], origin=0.0, syncs=syncs), max_syncs=10)
    assert [round(sync[1]) for sync in data["syncs"]] == list(range(40, 50))


def test_a_live_recording_holds_its_sync_points(engine):
    x = nd.ones((300, 300))
    x.wait_to_read()
    with EngineTimeline(display=False) as timeline:
        y = nd.dot(x, x)
        with mx.engine.sync_reason(VALUE_DEPENDENT):
            y.asnumpy()
        y.wait_to_read()
    syncs = timeline.recording.syncs
    assert [(s.reason, s.var) for s in syncs] == [(VALUE_DEPENDENT, y.engine_var.id),
                                                  ("wait_for_var", y.engine_var.id)]
    assert syncs[1].waited_for is None and syncs[0].thread == syncs[1].thread
    if engine == "ThreadedEngine" and syncs[0].waited_for is not None:
        dot = timeline.recording.by_id[syncs[0].waited_for]
        assert dot.name == "dot" and syncs[0].end >= dot.end
    assert timeline._record_sync not in mx.engine.events.sync_subscribers


# -- live recordings --------------------------------------------------------------------------
def test_timeline_records_a_real_run(engine):
    x = nd.ones((300, 300))
    x.wait_to_read()
    with EngineTimeline(display=False) as timeline:
        a = nd.dot(x, x)
        b = nd.dot(x, x)
        c = a + b                                    # noqa: F841 (labelled from the namespace)
    rec = timeline.recording
    assert [op.name for op in rec.ops] == ["dot", "dot", "broadcast_add"]
    for op in rec.ops:
        assert op.push <= op.ready <= op.start <= op.end
    assert rec.ops[0].push >= rec.origin
    edges = {(rec.by_id[e.src].name, rec.by_id[e.dst].name) for e in rec.edges()}
    assert edges == {("dot", "broadcast_add")}
    assert "c (300, 300) float32" in rec.var_labels.values()
    workers = {lane.name for lane in rec.lanes() if lane.kind == "worker"}
    if engine == "NaiveEngine":
        assert workers == {"MainThread"}
    else:
        assert all(name.startswith("engine-cpu(0)-worker") for name in workers)
    assert timeline._record not in mx.engine.events.subscribers     # unsubscribed on exit


def test_exit_waits_for_pushed_work_without_raising():
    data = nd.arange(4)
    with EngineTimeline(display=False) as timeline:
        picked = data[nd.array([7], dtype="int32")]
    failed = [op for op in timeline.recording.ops if op.error]
    assert failed and all(op.end is not None for op in timeline.recording.ops)
    with pytest.raises(mx.MXNetError):
        picked.asnumpy()


def test_live_refresh_is_throttled():
    with EngineTimeline(display=False, live=True, interval=0.05) as timeline:
        y = nd.ones((1,))
        for _ in range(300):
            y = y + 1
        nd.waitall()
        import time
        time.sleep(0.3)
    refresher = timeline.refresher
    assert 1 <= refresher.calls <= 0.35 / 0.05 + 2
    assert timeline.payload()["final"]
    # folding events in refresh by refresh gives what folding them all at once gives
    at_once = EngineRecording.from_events(timeline._events)
    assert timeline.recording.ops == at_once.ops and len(at_once.ops) == 301


def test_from_a_saved_profiler_trace(tmp_path):
    path = tmp_path / "trace.json"
    mx.profiler.set_config(profile_all=True, filename=str(path))
    x = nd.ones((20, 20))
    nd.waitall()
    mx.profiler.set_state("run")
    y = nd.dot(x, x) * 0.5
    z = nd.dot(y, y)                                                 # noqa: F841
    nd.waitall()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    mx.profiler.set_config(filename="profile.json")
    rec = recording_from_trace(str(path))
    assert sorted(op.name for op in rec.ops) == ["_mul_scalar", "dot", "dot"]
    assert all(op.push is not None and op.push <= op.start for op in rec.ops)
    assert all(op.waiting is None for op in rec.ops)       # the trace has no 'ready' times
    chain = {(rec.by_id[e.src].name, rec.by_id[e.dst].name) for e in rec.edges()}
    assert chain == {("dot", "_mul_scalar"), ("_mul_scalar", "dot")}
    shown = EngineTimeline.from_trace(path, title="trace").payload()
    assert shown["summary"]["operations"] == 3 and shown["title"] == "trace"


def test_trace_push_made_before_tracing_is_not_matched():
    trace = {"traceEvents": [
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 0,
         "args": {"name": "Main (frontend)"}},
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": W0}},
        {"name": "dot", "cat": "operator", "ph": "X", "pid": 1, "tid": 1, "ts": 5.0, "dur": 10.0,
         "args": {"op_id": 4, "reads": [1], "writes": [2], "ctx": "cpu(0)"}},
        {"name": "dot", "cat": "push", "ph": "i", "s": "t", "pid": 1, "tid": 0, "ts": 8.0},
        {"name": "dot", "cat": "operator", "ph": "X", "pid": 1, "tid": 1, "ts": 20.0,
         "dur": 10.0, "args": {"op_id": 5, "reads": [2], "writes": [3], "ctx": "cpu(0)"}}]}
    rec = recording_from_trace(trace)
    assert rec.by_id[4].push is None
    assert rec.by_id[5].push == pytest.approx(8e-6) and rec.by_id[5].frontend == "Main"


def test_var_labels_from_a_namespace():
    weights = [nd.ones((2, 3)), nd.zeros((4,), dtype="int32")]
    found = labels.var_labels({"weights": weights, "_hidden": nd.ones((1,)), "n": 3})
    assert sorted(found.values()) == ["weights[0] (2, 3) float32", "weights[1] (4,) int32"]


def test_var_labels_of_np_arrays():
    """An ``mx.np`` array's dtype is a ``numpy.dtype`` (NumPy's rule), not a scalar type."""
    found = labels.var_labels({"mask": mx.np.ones(2) > 0, "x": mx.np.zeros(3, dtype="int32")})
    assert sorted(found.values()) == ["mask (2,) bool", "x (3,) int32"]


def test_mime_bundle_outside_a_kernel_is_the_static_picture():
    view_ = EngineTimeline.from_events(
        op_events(1, "dot", (0.0, 0.0, 0.001, 0.002), W0), title="t")
    bundle = view_._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert "<svg" in bundle["text/html"] and "1 operations" in bundle["text/plain"]


def test_docstring_examples():
    globs = {"nd": nd, "mx": mx, "EngineTimeline": EngineTimeline}
    failures, _ = doctest.testmod(view, extraglobs=globs)
    assert failures == 0


# -- the browser side agrees with the static picture -------------------------------------------
def test_javascript_tooltips_colours_and_states_match_python(run_js):
    rec = recording(op_events(3, "dot", (0.0, 0.001, 0.002, 0.005), W0, [1, 2], [3]),
                    op_events(4, "add", (0.0005, 0.005, 0.006, 0.007), W1, [3], [4],
                              error="boom"),
                    origin=0.0, var_labels={1: "x (4, 4) float32"})
    data = payload.build_payload(rec)
    moments = [0.0, 0.0008, 0.0015, 0.003, 0.0055, 0.0065, 0.008]
    edges = [[200.0, 32, 200.0, 58], [200.0, 58, 350.5, 32], [300.25, 32, 302.0, 32],
             [180.0, 6, 400.0, 6]]
    result = run_js("engine_queue/view.js",
                    ["eqTooltip", "eqState", "mmxCategoryColor", "mmxTicks", "eqEdgePath",
                     "eqBarWidth"],
                    f"out({{tips: DATA.ops.map((op) => eqTooltip(DATA, op)),"
                    f" states: DATA.ops.map((op) => {[t * 1e3 for t in moments]}"
                    f".map((t) => eqState(op, t))),"
                    f" colours: [...Array(30).keys()].map(mmxCategoryColor),"
                    f" ticks: mmxTicks(0, 7.3, 6),"
                    f" edges: {edges}.map((e) => eqEdgePath(...e)),"
                    f" widths: [0.2, 1, 1.5, 40.25].map(eqBarWidth)}});", data)
    assert result["tips"] == [static.op_tooltip(data, op) for op in data["ops"]]
    expected = [[op.state_at(t) for t in moments] for op in rec.ops]
    assert result["states"] == expected
    from widgets._common.svg import category_color, nice_ticks
    assert result["colours"] == [category_color(index) for index in range(30)]
    assert result["ticks"] == pytest.approx(nice_ticks(0, 7.3, 6))
    def numbers(path):      # toFixed rounds an exact half up, Python to even: 0.1 apart
        return [float(v) for v in path.replace("M", " ").replace("C", " ")
                .replace(",", " ").split()]
    for js_path, edge in zip(result["edges"], edges, strict=True):
        assert numbers(js_path) == pytest.approx(numbers(static.edge_path(*edge)), abs=0.11)
    assert result["widths"] == [static.bar_width(w) for w in (0.2, 1, 1.5, 40.25)]


def test_javascript_sync_tooltips_match_python(run_js):
    data = payload.build_payload(sync_recording())
    result = run_js("engine_queue/view.js", ["eqSyncTooltip"],
                    "out(DATA.syncs.map((sync) => eqSyncTooltip(DATA, sync)));", data)
    assert result == [static.sync_tooltip(data, sync) for sync in data["syncs"]]


def test_an_exception_in_the_body_propagates_and_unsubscribes():
    timeline = EngineTimeline(display=False)
    with pytest.raises(ValueError):
        with timeline:
            nd.ones((2,)) + 1
            raise ValueError("from the body")
    assert timeline._record not in mx.engine.events.subscribers
    assert timeline.payload()["final"] and timeline.recording.ops
