"""Where a LeNet Trainer step's time goes, operator by operator, beside MXNet 1.9.1's profiler.

    python bench/lenet_breakdown.py [rounds]

The step is bench/gluon_bench.py's LeNet row (batch 64, 1x28x28, ``Trainer('sgd')``,
``SoftmaxCrossEntropyLoss``), imperative and hybridized.  For each mode it prints, per
operator, microseconds per step:

* minimx on the ThreadedEngine: each operation's start to end (engine events), as it runs
  on a worker while the frontend pushes the next ones;
* minimx on the NaiveEngine: the same, with nothing running beside it;
* MXNet: its profiler's aggregate operator time (``profiler.set_config(aggregate_stats=True)``).

and below them the wall time per step (without observers), and minimx's *frontend*: the
NaiveEngine's step minus its operations, the Python that builds the graph, records the tape,
walks it backward and calls the optimizer.  On the ThreadedEngine that Python holds the GIL
while a worker runs the operations; the worker needs the GIL between numpy calls, so the
frontend's time adds to the step rather than overlapping it (a busy loop of 1 ms per step in
the frontend made the step 1.4-1.7 ms longer, December 2026).

Each framework runs in a fresh process; they take turns and every figure is the best of
its rounds.  Operations are timed cache-cold, as they run inside the step: a small
Python-heavy operation (``pick`` on a (64, 10) array) costs 13 us alone and 70-100 us there.
"""
import sys

from _util import best_of_rounds, mxnet_python, print_table
from gluon_bench import TRAINING

STEPS = 40

WORKLOAD = TRAINING + """
import collections, json
RESULT = {{}}

def wall_us(step):
    gc.collect()
    start = time.perf_counter()
    for _ in range({steps}):
        step()
    nd.waitall()
    return (time.perf_counter() - start) / {steps} * 1e6

def minimx_ops(step, prefix):
    '''Per operation name, its start-to-end time per step; and the step's wall time.'''
    events = []
    mx.engine.subscribe(events.append)
    start = time.perf_counter()
    for _ in range({steps}):
        step()
    nd.waitall()
    wall = (time.perf_counter() - start) / {steps} * 1e6
    mx.engine.unsubscribe(events.append)
    began, spent = {{}}, collections.defaultdict(float)
    for event in events:
        if event.kind == "start":
            began[event.op_id] = event
        elif event.kind == "end" and event.op_id in began:
            spent[event.name] += event.time - began.pop(event.op_id).time
    for name, seconds in spent.items():
        RESULT[prefix + name] = seconds / {steps} * 1e6
    return wall, sum(spent.values()) / {steps} * 1e6

for hybrid in (False, True):
    mode = "hybridized" if hybrid else "imperative"
    step = make_step(lenet, hybrid, warmup=3)[0]
    RESULT[mode + " wall"] = wall_us(step)
    if "{lib}" == "minimx":
        minimx_ops(step, mode + " threaded ")
        with mx.engine.engine_type("NaiveEngine"):
            step()
            RESULT[mode + " naive-wall"] = wall_us(step)
            wall, in_ops = minimx_ops(step, mode + " naive ")
            RESULT[mode + " frontend"] = wall - in_ops
    else:
        mx.profiler.set_config(profile_all=True, aggregate_stats=True,
                               filename="/tmp/lenet_breakdown_profile.json")
        mx.profiler.set_state("run")
        wall_us(step)
        mx.profiler.set_state("stop")
        stats = json.loads(mx.profiler.dumps(reset=True, format="json"))
        for name, figures in stats["Time"].get("operator", {{}}).items():
            RESULT[mode + " threaded " + name] = figures["Total"] * 1e3 / {steps}
print(json.dumps(RESULT))
"""


def main(rounds=3):
    ours, theirs = best_of_rounds(WORKLOAD.replace("{steps}", str(STEPS)), rounds)
    for mode in ("imperative", "hybridized"):
        prefixes = (mode + " threaded ", mode + " naive ")
        names = sorted({key.split(" ", 2)[2] for key in list(ours) + list(theirs)
                        if key.startswith(prefixes)},
                       key=lambda name: -ours.get(f"{mode} threaded {name}",
                                                  theirs.get(f"{mode} threaded {name}", 0)))
        rows = []
        for name in names:
            figures = (ours.get(f"{mode} threaded {name}"), ours.get(f"{mode} naive {name}"),
                       theirs.get(f"{mode} threaded {name}"))
            rows.append((name,) + tuple("-" if f is None else f"{f:.0f}" for f in figures))
        totals = [sum(v for k, v in side.items() if k.startswith(prefix))
                  for side, prefix in ((ours, f"{mode} threaded "), (ours, f"{mode} naive "),
                                       (theirs, f"{mode} threaded "))]
        rows.append(("all operations",) + tuple(f"{t:.0f}" if t else "-" for t in totals))
        rows.append(("frontend (naive step minus its operations)", "",
                     f"{ours.get(mode + ' frontend', 0):.0f}", ""))
        wall = (ours.get(f"{mode} wall"), ours.get(f"{mode} naive-wall"),
                theirs.get(f"{mode} wall"))
        rows.append(("wall per step (no observers)",)
                    + tuple("-" if w is None else f"{w:.0f}" for w in wall))
        print_table(f"LeNet batch 64, {mode}: us per step (best of {rounds})",
                    ("operator", "minimx threaded", "minimx naive",
                     "MXNet 1.9.1" if mxnet_python() else "MXNet (absent)"), rows)
    return ours, theirs


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
