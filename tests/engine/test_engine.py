"""Behaviour of the dependency engine: ordering, parallel reads, errors, switching, events.

Every test that could hang on a broken engine runs the risky part in a thread
with a timeout (``within``), so a regression fails instead of freezing the suite.
"""
import threading
import time

import numpy as np
import pytest

import minimx as mx
from minimx import engine, nd
from minimx.base import MXNetError, OperatorFailedError

TIMEOUT = 20.0


def within(function, timeout=TIMEOUT):
    """Run ``function()`` in a thread; fail if it is still running after ``timeout``."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function()
        except BaseException as error:      # noqa: BLE001 - handed to the test thread
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"still running after {timeout} s: the engine hangs"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.fixture
def threaded():
    with engine.engine_type("ThreadedEngine") as current:
        yield current


@pytest.fixture
def naive():
    with engine.engine_type("NaiveEngine") as current:
        yield current


def fail(message="boom"):
    raise ValueError(message)


def failed_array(name="deliberately_failing_op"):
    """An NDArray whose writing operation raises inside the engine."""
    x = nd.zeros((2,))
    engine.push(fail, [], [x._chunk.var], x.context, name)
    return x


# -- ordering -----------------------------------------------------------------------------
def test_reads_of_one_var_run_concurrently(threaded):
    barrier = threading.Barrier(2, timeout=5)
    var = engine.new_var()
    passed = []

    def reader():
        barrier.wait()          # both readers must be inside at once to get past
        passed.append(True)

    engine.push(lambda: time.sleep(0.01), [], [var], mx.cpu(), "writer")
    engine.push(reader, [var], [], mx.cpu(), "reader_a")
    engine.push(reader, [var], [], mx.cpu(), "reader_b")
    within(engine.wait_all)
    assert passed == [True, True]


def test_write_waits_for_every_earlier_read_and_write(threaded):
    var = engine.new_var()
    gate = threading.Event()
    log = []

    def step(label, wait=False):
        def run():
            if wait:
                gate.wait(5)
            log.append(label)
        return run

    engine.push(step("write1", wait=True), [], [var], mx.cpu(), "write1")
    engine.push(step("read1"), [var], [], mx.cpu(), "read1")
    engine.push(step("read2"), [var], [], mx.cpu(), "read2")
    engine.push(step("write2"), [], [var], mx.cpu(), "write2")
    engine.push(step("read3"), [var], [], mx.cpu(), "read3")
    time.sleep(0.05)
    assert log == []                       # everything waits for write1
    gate.set()
    within(engine.wait_all)
    assert log[0] == "write1"
    assert sorted(log[1:3]) == ["read1", "read2"]
    assert log[3:] == ["write2", "read3"]


def test_in_place_updates_run_in_program_order(threaded):
    x = nd.zeros((1,))
    for _ in range(1000):
        x += 1
    assert within(x.asscalar) == 1000


def test_read_after_write_sees_the_write(threaded):
    x = nd.ones((3,))
    snapshots = []
    for step in range(20):
        x *= 2
        snapshots.append(x + 0)            # reads x between two writes
    expected = [2.0 ** (step + 1) for step in range(20)]
    assert [s.asnumpy()[0] for s in snapshots] == expected


def test_push_returns_before_the_operation_runs(threaded):
    gate = threading.Event()
    var = engine.new_var()
    engine.push(lambda: gate.wait(5), [], [var], mx.cpu(), "blocked")
    assert engine.pending_count() >= 1     # push came back while the op still waits
    gate.set()
    within(engine.wait_all)
    assert engine.pending_count() == 0


# -- errors ----------------------------------------------------------------------------------
SYNC_POINTS = {
    "wait_to_read": lambda x: x.wait_to_read(),
    "asnumpy": lambda x: x.asnumpy(),
    "asscalar": lambda x: x[0].asscalar(),
    "waitall": lambda x: nd.waitall(),
    "repr": repr,
    "print": lambda x: print(x),
}


@pytest.mark.parametrize("sync", sorted(SYNC_POINTS))
def test_operator_error_raises_at_the_sync_point(threaded, sync):
    x = failed_array("my_failing_op")
    with pytest.raises(MXNetError, match="my_failing_op") as caught:
        within(lambda: SYNC_POINTS[sync](x))
    assert isinstance(caught.value, OperatorFailedError)
    assert isinstance(caught.value.__cause__, ValueError)


def test_error_is_raised_once_and_the_engine_keeps_working(threaded):
    x = failed_array()
    with pytest.raises(MXNetError):
        within(x.wait_to_read)
    within(x.wait_to_read)                 # raised once, as MXNet does
    within(nd.waitall)
    y = nd.ones((2,)) + 1
    assert within(y.asnumpy).tolist() == [2.0, 2.0]


def test_operations_computed_from_a_failed_array_fail_too(threaded):
    x = failed_array("first_failure")
    y = (x + 1) * 2
    with pytest.raises(MXNetError, match="first_failure"):
        within(y.asnumpy)


def test_in_place_write_on_a_failed_array_fails(threaded):
    x = failed_array("poisoned")
    x += 1
    with pytest.raises(MXNetError, match="poisoned"):
        within(x.asnumpy)


def test_nd_operator_failing_inside_the_engine(threaded):
    x = nd.ones((2,))
    engine.push(lambda: setattr(x._chunk, "data", "not an array"), [], [x._chunk.var],
                x.context, "corrupt")
    y = x.exp()
    with pytest.raises(MXNetError, match="exp"):
        within(y.asnumpy)


def test_waitall_raises_the_first_error_then_is_clean(threaded):
    failed_array("early")
    failed_array("late")
    with pytest.raises(MXNetError, match="early"):
        within(nd.waitall)
    within(nd.waitall)


def test_naive_engine_raises_at_the_call(naive):
    x = nd.zeros((2,))
    with pytest.raises(MXNetError, match="raised_now"):
        engine.push(fail, [], [x._chunk.var], x.context, "raised_now")
    x.wait_to_read()                       # already reported at the call
    assert (nd.ones((2,)) + 1).asnumpy().tolist() == [2.0, 2.0]


# -- switching engines ---------------------------------------------------------------------------
def test_switching_engines_with_pending_work():
    previous = engine.get_engine().name
    try:
        engine.set_engine("ThreadedEngine")
        gate = threading.Event()
        x = nd.zeros((1,))
        engine.push(lambda: gate.wait(5), [], [x._chunk.var], x.context, "slow")
        for _ in range(10):
            x += 1
        threading.Timer(0.05, gate.set).start()
        within(lambda: engine.set_engine("NaiveEngine"))
        assert engine.get_engine().name == "NaiveEngine"
        assert engine.pending_count() == 0
        x += 1                              # runs inside the call now
        assert x.asscalar() == 11
        engine.set_engine("ThreadedEngine")
        x += 1
        assert within(x.asscalar) == 12
    finally:
        engine.set_engine(previous)


def test_pending_error_survives_an_engine_switch():
    previous = engine.get_engine().name
    try:
        engine.set_engine("ThreadedEngine")
        x = failed_array("before_switch")
        within(lambda: engine.set_engine("NaiveEngine"))
        with pytest.raises(MXNetError, match="before_switch"):
            x.wait_to_read()
    finally:
        engine.set_engine(previous)


def test_engine_type_context_manager_restores():
    before = engine.get_engine().name
    with engine.engine_type("NaiveEngine") as current:
        assert current.name == "NaiveEngine"
    assert engine.get_engine().name == before
    with pytest.raises(ValueError, match="unknown engine"):
        engine.set_engine("NoSuchEngine")


# -- bulk, backpressure, events ------------------------------------------------------------------
class Recorder:
    """Collects engine events while subscribed."""

    def __init__(self):
        self.events = []

    def __enter__(self):
        engine.subscribe(self.events.append)
        return self

    def __exit__(self, *exc_info):
        engine.unsubscribe(self.events.append)

    def of_kind(self, kind):
        return [event for event in self.events if event.kind == kind]


@pytest.mark.parametrize("engine_name", ["ThreadedEngine", "NaiveEngine"])
def test_bulk_groups_operations_into_fewer_pushes(engine_name):
    with engine.engine_type(engine_name):
        x = nd.zeros((1,))
        nd.waitall()
        with Recorder() as plain:
            for _ in range(8):
                x += 1
            nd.waitall()
        with Recorder() as grouped, engine.bulk(4):
            for _ in range(8):
                x += 1
        nd.waitall()
        assert len(plain.of_kind("push")) == 8
        assert len(grouped.of_kind("push")) == 2
        assert all(event.name.startswith("bulk[4]") for event in grouped.of_kind("push"))
        assert within(x.asscalar) == 16


def test_bulk_error_names_the_failing_step(threaded):
    x = nd.zeros((1,))
    with engine.bulk(3):
        x += 1
        engine.push(fail, [], [x._chunk.var], x.context, "step_two")
        x += 1
    with pytest.raises(MXNetError, match="step_two"):
        within(x.asnumpy)


def test_backpressure_is_off_by_default(threaded):
    assert engine.set_max_pending(None) is None
    gate = threading.Event()
    for index in range(10):
        engine.push(lambda: gate.wait(5), [], [engine.new_var()], mx.cpu(), f"blocked{index}")
    assert engine.pending_count() == 10
    gate.set()
    within(engine.wait_all)


def test_max_pending_bounds_the_operations_in_flight(threaded):
    limit = 3
    gate = threading.Event()
    pushed = []
    observed = []

    def observe(event):
        observed.append(event.pending)

    def pusher():
        for index in range(12):
            engine.push(lambda: gate.wait(5), [], [engine.new_var()], mx.cpu(), f"op{index}")
            pushed.append(index)

    with engine.max_pending(limit), Recorder() as recorder:
        engine.subscribe(observe)
        thread = threading.Thread(target=pusher, daemon=True)
        thread.start()
        time.sleep(0.1)
        assert thread.is_alive()                   # blocked in push
        assert engine.pending_count() <= limit
        assert len(pushed) <= limit
        gate.set()
        thread.join(TIMEOUT)
        assert not thread.is_alive()
        within(engine.wait_all)
        engine.unsubscribe(observe)
    assert len(pushed) == 12
    assert max(event.pending for event in recorder.of_kind("start")) <= limit
    assert engine.set_max_pending(None) is None    # restored by the with block


def test_events_describe_every_operation(threaded):
    x = nd.ones((300, 300))         # above engine.SMALL_ELEMENTS: computed by a worker
    nd.waitall()
    with Recorder() as recorder:
        y = x + 1
        z = y * 2
        nd.waitall()
    by_op = {}
    for event in recorder.events:
        by_op.setdefault(event.op_id, []).append(event)
    assert len(by_op) == 2
    for events_of_op in by_op.values():
        assert [e.kind for e in events_of_op] == ["push", "ready", "start", "end"]
        times = [e.time for e in events_of_op]
        assert times == sorted(times)
        assert events_of_op[0].thread == threading.current_thread().name
        assert events_of_op[2].thread.startswith("engine-cpu(0)-worker")
        assert events_of_op[2].thread == events_of_op[3].thread
    names = [events_of_op[0].name for events_of_op in by_op.values()]
    assert sorted(names) == ["_mul_scalar", "_plus_scalar"]
    add_push, mul_push = sorted((e for e in recorder.of_kind("push")), key=lambda e: e.time)
    assert add_push.reads == (x._chunk.var.id,)
    assert add_push.writes == (y._chunk.var.id,) == mul_push.reads
    assert mul_push.writes == (z._chunk.var.id,)


def test_events_carry_the_error(threaded):
    with Recorder() as recorder:
        x = failed_array("reported_in_event")
        with pytest.raises(MXNetError):
            within(x.wait_to_read)
    (end,) = [e for e in recorder.of_kind("end") if e.name == "reported_in_event"]
    assert "reported_in_event" in end.error


def test_unsubscribed_callbacks_get_nothing(threaded):
    received = []
    engine.subscribe(received.append)
    engine.unsubscribe(received.append)
    (nd.ones((1,)) + 1).wait_to_read()
    assert received == []


def test_naive_engine_events_come_from_the_caller(naive):
    with Recorder() as recorder:
        (nd.ones((1,)) + 1).wait_to_read()
    threads = {event.thread for event in recorder.events}
    assert threads == {threading.current_thread().name}
    assert [e.kind for e in recorder.events][-4:] == ["push", "ready", "start", "end"]


def test_lazy_result_matches_numpy(threaded):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = nd.array(a)
    y = (x * 2 + 1) / 3
    np.testing.assert_allclose(within(y.asnumpy), (a * 2 + 1) / 3, rtol=1e-6)


def test_reading_a_failed_array_again_says_it_has_no_value(threaded):
    x = failed_array("lost")
    with pytest.raises(MXNetError, match="lost"):
        within(x.asnumpy)
    with pytest.raises(MXNetError, match="has no value.*lost"):
        within(x.asnumpy)
    with pytest.raises(MXNetError, match="input has no value.*lost"):
        within((x + 1).asnumpy)


def test_sleeping_waiters_are_woken_only_by_what_they_wait_for_and_never_missed(threaded):
    """``_finish`` wakes a thread in ``wait_for_var`` when that var's writer ends and one in
    ``wait_all`` when nothing is pending (not on every finished operation): both still return,
    while many unrelated operations finish."""
    ctx = mx.cpu()
    target, others = engine.new_var(), [engine.new_var() for _ in range(50)]
    for var in others:
        engine.push(lambda: time.sleep(0.001), [], [var], ctx, "unrelated")
    engine.push(lambda: time.sleep(0.02), [], [target], ctx, "awaited")
    finished = []
    waiters = [threading.Thread(target=lambda: (engine.wait_for_var(target),
                                                finished.append("var"))),
               threading.Thread(target=lambda: (engine.wait_all(), finished.append("all")))]
    for thread in waiters:
        thread.start()
    for thread in waiters:
        thread.join(timeout=10)
    assert sorted(finished) == ["all", "var"], "a waiter was never woken"
    wakes, notify_all = [], threaded.finished.notify_all

    def counted():
        wakes.append(1)
        notify_all()

    threaded.finished.notify_all = counted
    try:
        for var in others:
            engine.push(lambda: time.sleep(0.0005), [], [var], ctx, "unrelated")
        nd.waitall()
    finally:
        threaded.finished.notify_all = notify_all
    assert len(wakes) <= 2, f"{len(wakes)} wake-ups for one wait_all of 50 operations"


def test_a_small_ready_operation_runs_in_the_calling_thread(threaded):
    x = nd.ones((2, 3))
    nd.waitall()
    with Recorder() as recorder:
        y = x + 1
        assert engine.pending_count() == 0          # done before the call returned
        nd.waitall()
    kinds = [(e.kind, e.thread) for e in recorder.events]
    here = threading.current_thread().name
    assert kinds == [("push", here), ("ready", here), ("start", here), ("end", here)]
    assert y.asnumpy().tolist() == [[2.0] * 3] * 2


def test_a_small_operation_waiting_for_a_pending_one_goes_to_a_worker(threaded):
    gate = threading.Event()
    x = nd.ones((2, 3))
    nd.waitall()
    engine.push(gate.wait, [], [x._chunk.var], mx.cpu(), "gate")    # x is being written
    with Recorder() as recorder:
        y = x + 1
        assert engine.pending_count() == 2          # queued behind the gate
        gate.set()
        assert y.asnumpy().tolist() == [[2.0] * 3] * 2
    start = recorder.of_kind("start")[-1]
    assert start.name == "_plus_scalar" and start.thread.startswith("engine-cpu(0)-worker")


def test_a_worker_runs_the_chain_its_operation_readied(threaded, monkeypatch):
    """The operations a worker's operation readies run on that worker, one after the other,
    instead of going through the queue (a put wakes another worker: a hand-over per step)."""
    gate = threading.Event()
    var = engine.new_var()
    ran_on = []
    engine.push(lambda: None, [], [], mx.cpu(), "start the workers")
    nd.waitall()
    queued = []
    dispatch = threaded._dispatch
    monkeypatch.setattr(threaded, "_dispatch",
                        lambda op, pending: (queued.append(op.name), dispatch(op, pending)))

    def step(index):
        def run():
            ran_on.append((index, threading.current_thread().name))
        return run

    engine.push(gate.wait, [], [var], mx.cpu(), "gate")
    for index in range(6):          # each reads and writes the var: a chain behind the gate
        engine.push(step(index), [var], [var], mx.cpu(), f"step{index}", small=True)
    with Recorder() as recorder:
        gate.set()
        within(nd.waitall)
    assert [index for index, _ in ran_on] == list(range(6))
    assert queued == ["gate"]
    assert len({thread for _, thread in ran_on}) == 1
    assert ran_on[0][1].startswith("engine-cpu(0)-worker")
    # each still announces that it is ready before it starts (the queue views rely on it)
    kinds = [(event.kind, event.name) for event in recorder.events if event.name != "gate"]
    assert kinds == [(kind, f"step{index}") for index in range(6)
                     for kind in ("ready", "start", "end")]


def test_a_readied_operation_of_another_device_goes_to_that_devices_workers(threaded):
    gate = threading.Event()
    var = engine.new_var()
    threads = {}

    def note(name):
        def run():
            threads[name] = threading.current_thread().name
        return run

    engine.push(gate.wait, [], [var], mx.cpu(0), "gate")
    engine.push(note("cpu1"), [var], [], mx.cpu(1), "on_cpu1")
    engine.push(note("cpu0"), [var], [], mx.cpu(0), "on_cpu0")
    gate.set()
    within(nd.waitall)
    assert threads["cpu1"].startswith("engine-cpu(1)-worker")
    assert threads["cpu0"].startswith("engine-cpu(0)-worker")


def test_an_error_of_a_small_operation_still_waits_for_the_sync_point(threaded):
    bad = nd.random.normal(0, -1, shape=(2, 2))   # run at once, and returns all the same
    later = bad + 1
    with pytest.raises(MXNetError, match="normal"):
        later.asnumpy()


def test_inline_elements_zero_sends_every_operation_to_a_worker(threaded, monkeypatch):
    monkeypatch.setattr(engine, "SMALL_ELEMENTS", 0)
    x = nd.ones((2,))
    nd.waitall()
    with Recorder() as recorder:
        (x + 1).wait_to_read()
    assert recorder.of_kind("start")[0].thread.startswith("engine-cpu(0)-worker")


# -- sync points, as observers see them ----------------------------------------------------------
def gated_array():
    """An array whose writing operation waits for ``gate.set()`` (on a worker)."""
    gate = threading.Event()
    x = nd.zeros((2,))
    x.wait_to_read()
    engine.push(lambda: gate.wait(TIMEOUT), [], [x.engine_var], mx.cpu(), "gate")
    return x, gate


def test_a_sync_point_names_the_operation_it_waited_for(threaded):
    x, gate = gated_array()
    writer = x.engine_var.last_write
    heard = []
    engine.subscribe_sync(heard.append)
    try:
        threading.Timer(0.05, gate.set).start()
        within(x.wait_to_read)
        x.wait_to_read()                    # ready now: a sync point that waits for nothing
        nd.waitall()
    finally:
        engine.unsubscribe_sync(heard.append)
    assert [(s.reason, s.var, s.waited_for) for s in heard] == [
        ("wait_for_var", x.engine_var.id, writer.id), ("wait_for_var", x.engine_var.id, None),
        ("wait_all", None, None)]
    assert heard[0].end - heard[0].begin >= 0.04                 # it waited for the gate
    assert [s.thread for s in heard[1:]] == ["MainThread"] * 2   # the waiting thread


def test_a_declared_reason_marks_the_sync_points_inside(threaded):
    heard = []
    engine.subscribe_sync(heard.append)
    try:
        with engine.sync_reason(engine.VALUE_DEPENDENT):
            with engine.sync_reason("inner"):           # the outermost reason wins
                nd.ones((2,)).asnumpy()
        nd.ones((2,)).asnumpy()
    finally:
        engine.unsubscribe_sync(heard.append)
    assert [s.reason for s in heard] == [engine.VALUE_DEPENDENT, "wait_for_var"]


def test_no_sync_observer_no_sync_events(threaded):
    heard = []
    engine.subscribe_sync(heard.append)
    engine.unsubscribe_sync(heard.append)
    nd.ones((2,)).asnumpy()
    assert heard == [] and heard.append not in engine.events.sync_subscribers
