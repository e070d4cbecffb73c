"""op/meeting.py: operations pushed one by one that exchange values (SyncBatchNorm's devices).

The first arrivals wait inside their operations on workers, with a stand-in worker
serving the queue meanwhile; the last arrival combines and wakes them.  Pushing never
blocks the pushing thread.
"""
import time

import pytest

from minimx import cpu, engine
from minimx.op import meeting
from minimx.op.meeting import meet
from minimx.base import MXNetError


def _push_meeting(key, values, results, ctx=cpu(0)):
    """Push one operation per value, each handing its value to meeting ``key``."""
    for index, value in enumerate(values):
        var = engine.new_var()

        def call(index=index, value=value):
            results[index] = meet(key, len(values), value, sum, f"test {key}")

        engine.push(call, [], [var], ctx, f"meet{index}")


@pytest.mark.parametrize("workers", [1, 3])
def test_every_call_gets_the_combined_value_on_one_queue(workers):
    results = {}
    with engine.engine_type("ThreadedEngine"), engine.threads(workers=workers):
        begin = time.perf_counter()
        _push_meeting("one queue", [1, 2, 3], results)
        pushed = time.perf_counter() - begin
        engine.wait_all()
    assert results == {0: 6, 1: 6, 2: 6}
    assert pushed < 1.0           # the pushing thread did not wait for the meeting


def test_meetings_of_one_key_follow_each_other():
    """A key's second meeting after its first has closed (as a layer's next forward call).
    Calls are matched by arrival only, so the two meetings must not overlap: pushed on two
    queues at once, a call of the second could arrive before the first has filled."""
    results_a, results_b = {}, {}
    with engine.engine_type("ThreadedEngine"):
        _push_meeting("again", [1, 2], results_a, cpu(1))
        engine.wait_all()
        _push_meeting("again", [10, 20], results_b, cpu(2))
        engine.wait_all()
    assert results_a == {0: 3, 1: 3} and results_b == {0: 30, 1: 30}


def test_a_meeting_that_never_fills_fails_after_the_timeout(monkeypatch):
    monkeypatch.setattr(meeting, "TIMEOUT", 0.1)
    with engine.engine_type("ThreadedEngine"):
        _push_meeting("lonely", [1], {})         # a meeting of 1 closes at once
        engine.push(lambda: meet("lonely", 2, 1, sum, "lonely call"), [],
                    [engine.new_var()], cpu(0), "lonely")
        with pytest.raises(MXNetError, match="lonely call: only 1 of 2 calls arrived"):
            engine.wait_all()


def test_naive_engine_refuses_to_wait():
    with engine.engine_type("NaiveEngine"):
        with pytest.raises(MXNetError, match="naive call: this call must wait for the "
                                             "other 1 of 2"):
            engine.push(lambda: meet("naive", 2, 1, sum, "naive call"), [],
                        [engine.new_var()], cpu(0), "naive")
