"""Property: any program of reads and writes gives the same results on both engines.

NaiveEngine runs each operation at its push, in program order: it is the
specification.  The ThreadedEngine may run operations in any order the Var
invariant allows, so every value an operation sees, and every final value,
must match.
"""
import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import engine

TIMEOUT = 30.0


@st.composite
def programs(draw):
    """(number of vars, ops, bulk size, thread budget); an op is (reads, writes, sleep,
    work: the multiply-adds it declares, which decide its BLAS threads)."""
    num_vars = draw(st.integers(1, 5))
    var_ids = st.integers(0, num_vars - 1)
    ops = draw(st.lists(
        st.tuples(st.lists(var_ids, max_size=3), st.lists(var_ids, max_size=2),
                  st.sampled_from([0.0, 0.0, 0.0005]), st.sampled_from([0, 0, 10 ** 8])),
        min_size=1, max_size=25))
    bulk_size = draw(st.sampled_from([1, 1, 3]))
    budget = draw(st.sampled_from([(None, None), (1, "auto"), (3, "auto"), (2, 1), (1, 2)]))
    return num_vars, ops, bulk_size, budget


def run_program(engine_name, num_vars, ops, bulk_size, budget=(None, None)):
    """Run the program on ``engine_name``; return (what each op saw, final values)."""
    values = [1] * num_vars
    seen = {}
    engine_vars = [engine.new_var() for _ in range(num_vars)]

    def make_step(index, reads, writes, pause):
        def step():
            if pause:
                time.sleep(pause)        # shuffles the order in which workers finish
            inputs = tuple(values[v] for v in reads)
            seen[index] = inputs
            mixed = (index * 7919 + sum((k + 3) * x for k, x in enumerate(inputs))) % 100003
            for v in writes:
                values[v] = (values[v] * 31 + mixed) % 1000003
        return step

    with engine.engine_type(engine_name), engine.threads(*budget), engine.bulk(bulk_size):
        for index, (reads, writes, pause, work) in enumerate(ops):
            engine.push(make_step(index, reads, writes, pause),
                        [engine_vars[v] for v in reads], [engine_vars[v] for v in writes],
                        mx.cpu(), f"step{index}", work)
        engine.wait_all()
    return seen, values


def run_with_timeout(*args):
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=run_program(*args)),
                              daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), "the engine deadlocked"
    return result["value"]


@settings(max_examples=60, deadline=None)
@given(programs())
def test_threaded_engine_matches_naive_engine(program):
    num_vars, ops, bulk_size, budget = program
    expected = run_with_timeout("NaiveEngine", num_vars, ops, bulk_size)
    actual = run_with_timeout("ThreadedEngine", num_vars, ops, bulk_size, budget)
    assert actual == expected


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from(["add", "mul", "copy", "read"]), min_size=1, max_size=30))
def test_ndarray_in_place_programs_match(steps):
    from minimx import nd

    def program():
        x = nd.ones((2,))
        y = nd.zeros((2,))
        reads = []
        for step in steps:
            if step == "add":
                x += y + 1
            elif step == "mul":
                y *= 0.5
            elif step == "copy":
                y[:] = x
            else:
                reads.append(x * 1)
        return [r.asnumpy().tolist() for r in reads] + [x.asnumpy().tolist(),
                                                        y.asnumpy().tolist()]

    def on(engine_name):
        result = {}

        def target():
            with engine.engine_type(engine_name):
                result["value"] = program()

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "the engine deadlocked"
        return result["value"]

    assert on("ThreadedEngine") == on("NaiveEngine")
