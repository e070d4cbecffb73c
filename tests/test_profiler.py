"""The profiler: MXNet's API, a valid Chrome trace built from engine events, the stats table."""
import json

import pytest

import minimx as mx
from minimx import engine, nd, profiler


@pytest.fixture
def trace_file(tmp_path):
    path = tmp_path / "profile.json"
    profiler.set_config(profile_all=True, aggregate_stats=True, filename=str(path))
    profiler.dumps(reset=True)
    yield path
    profiler.set_state("stop")
    profiler.dump()             # flush what the test left, so no later trace contains it
    profiler.set_config(aggregate_stats=False, filename="profile.json")


def run_ops(count):
    x = nd.ones((300, 300))         # large enough to be computed by the engine's workers
    for _ in range(count):
        x = nd.dot(x, x) * 0.5
    nd.waitall()


@pytest.mark.parametrize("engine_name", ["ThreadedEngine", "NaiveEngine"])
def test_trace_has_one_complete_event_per_operation(trace_file, engine_name):
    with engine.engine_type(engine_name):
        nd.waitall()
        profiler.set_state("run")
        run_ops(3)
        profiler.set_state("stop")
        profiler.dump()
    trace = json.loads(trace_file.read_text())
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    names = sorted(e["name"] for e in complete)
    assert names == sorted(["_ones"] + ["dot", "_mul_scalar"] * 3)
    assert all(e["dur"] >= 0 for e in complete)
    assert all({"pid", "tid", "ts", "dur", "name"} <= set(e) for e in complete)
    thread_names = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert all(e["tid"] in thread_names for e in events if e["ph"] in ("X", "i"))
    pushes = [e for e in events if e.get("cat") == "push"]
    assert len(pushes) == 7
    frontend = {e["tid"] for e in pushes}
    assert len(frontend) == 1
    assert "frontend" in thread_names[frontend.pop()]
    if engine_name == "ThreadedEngine":
        workers = {thread_names[e["tid"]] for e in complete}
        assert all(name.startswith("engine-cpu(0)-worker") for name in workers)


def test_the_trace_marks_operators_that_compute_on_the_host(trace_file):
    """``host_compute`` operators (``gamma``: SciPy; ``box_nms``: a greedy loop) say so in
    the trace, their backward too; the others do not."""
    x = nd.array([[0, 0.2, 0.1, 0.1, 0.4, 0.4], [0, 0.9, 0.1, 0.1, 0.3, 0.3]])
    x.attach_grad()
    profiler.set_state("run")
    with mx.autograd.record():
        y = nd.contrib.box_nms(nd.gamma(x + 1)) * 2
    y.backward()
    nd.waitall()
    profiler.set_state("stop")
    profiler.dump()
    events = json.loads(trace_file.read_text())["traceEvents"]
    marked = {e["name"] for e in events if e["ph"] == "X" and e["args"].get("host_compute")}
    assert marked == {"gamma", "_backward_gamma", "_contrib_box_nms",
                      "_backward__contrib_box_nms"}


def test_operations_start_after_their_push(trace_file):
    profiler.set_state("run")
    run_ops(2)
    profiler.set_state("stop")
    profiler.dump()
    events = json.loads(trace_file.read_text())["traceEvents"]
    pushed = {}
    for e in events:
        if e.get("cat") == "push":
            pushed.setdefault(e["name"], []).append(e["ts"])
    for e in (e for e in events if e["ph"] == "X"):
        assert min(pushed[e["name"]]) <= e["ts"]


def test_nothing_is_recorded_while_stopped_or_paused(trace_file):
    run_ops(1)
    profiler.set_state("run")
    profiler.pause()
    run_ops(1)
    profiler.resume()
    (nd.ones((1,)) + 1).wait_to_read()
    profiler.set_state("stop")
    run_ops(1)
    profiler.dump()
    complete = [e["name"] for e in json.loads(trace_file.read_text())["traceEvents"]
                if e["ph"] == "X"]
    assert sorted(complete) == ["_ones", "_plus_scalar"]


def test_dumps_table_counts_operations(trace_file):
    profiler.set_state("run")
    run_ops(3)
    profiler.set_state("stop")
    table = profiler.dumps()
    rows = {line.split()[0]: line.split() for line in table.splitlines() if line.strip()}
    assert rows["dot"][1] == "3"
    assert rows["_mul_scalar"][1] == "3"
    stats = json.loads(profiler.dumps(format="json", reset=True))
    assert stats["Time"]["operator"]["dot"]["Count"] == 3
    assert stats["Time"]["operator"]["dot"]["Min"] <= stats["Time"]["operator"]["dot"]["Max"]
    assert "dot" not in profiler.dumps()          # reset forgot them


def test_dumps_is_empty_without_aggregate_stats(trace_file):
    profiler.set_config(aggregate_stats=False)
    profiler.set_state("run")
    run_ops(1)
    profiler.set_state("stop")
    assert profiler.dumps() == ""


def test_bad_arguments_are_rejected():
    with pytest.raises(mx.MXNetError, match="bogus"):
        profiler.set_config(bogus=1)
    with pytest.raises(ValueError, match="walk"):
        profiler.set_state("walk")
    with pytest.raises(ValueError, match="sort_by"):
        profiler.dumps(sort_by="fastest")


def test_user_annotations_appear_in_the_trace(trace_file):
    domain = profiler.Domain("lesson")
    profiler.set_state("run")
    with profiler.Task(domain, "epoch"):
        run_ops(1)
    counter = domain.new_counter("batches", 0)
    counter += 2
    domain.new_marker("checkpoint").mark()
    profiler.set_state("stop")
    profiler.dump()
    events = json.loads(trace_file.read_text())["traceEvents"]
    (task,) = [e for e in events if e["name"] == "lesson::epoch"]
    assert task["ph"] == "X" and task["dur"] >= 0
    assert [e["args"]["batches"] for e in events if e["ph"] == "C"] == [0, 2]
    assert [e["name"] for e in events if e.get("cat") == "marker"] == ["lesson::checkpoint"]


def test_profiling_stops_listening_to_the_engine(trace_file):
    profiler.set_state("run")
    profiler.set_state("stop")
    assert profiler._profiler.events.append not in engine.events.subscribers


def test_continuous_dumps_grow_the_file_and_stats_report_memory(trace_file):
    profiler.set_state("run")
    sizes = []
    for _ in range(3):
        run_ops(1)
        profiler.dump(finished=False)
        sizes.append(trace_file.stat().st_size)
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    stats = json.loads(profiler.dumps(format="json", sort_by="max"))
    assert stats["Unit"] == {"Time": "ms", "Memory": "kB"}
    (row,) = stats["Memory"]["cpu/0"].values()
    assert 0 < row["Min"] <= row["Avg"] <= row["Max"] and row["Count"] >= 1


@mx.operator.register("_profiled_square")
class _ProfiledSquareProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _ProfiledSquare()


class _ProfiledSquare(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * in_data[0] + nd.zeros(in_data[0].shape))


def test_a_custom_operator_is_timed_in_its_own_domain(trace_file):
    profiler.set_state("run")
    nd.Custom(nd.ones((3,)), op_type="_profiled_square").wait_to_read()
    nd.waitall()
    times = json.loads(profiler.dumps(format="json"))["Time"]
    assert "_profiled_square::pure_python" in times["Custom Operator"]
    assert "_profiled_square::_zeros" in times["Custom Operator"]    # run inside its body
    assert "Custom" in times["operator"]                             # the op itself


def test_the_mean_of_equal_samples_is_their_value():
    """Rounding in the sum and the division put the average of three equal memory samples
    one ulp below their minimum (703045.632 -> 703045.6319999999), and the check above
    failed now and then."""
    from minimx.profiler import _memory_stats
    for count in range(1, 12):
        (row,) = _memory_stats([703045.632] * count).values()
        assert row["min"] <= row["avg"] <= row["max"] and row["avg"] == 703045.632
