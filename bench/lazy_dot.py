"""Lazy evaluation: ``nd.dot`` of two 2000x2000 arrays returns long before it finishes.

The seed's demo.  The call only pushes the operation to the engine ("queued"); the
result is computed by a worker, and ``wait_to_read`` is where the frontend waits for
it ("finished").  Same code on minimx and on MXNet 1.9.1.
"""
import os
import subprocess
import sys

from _util import REPO, fmt, print_table, run_mxnet

WORKLOAD = """
import time
from {lib} import nd
x = nd.random.uniform(shape=(2000, 2000))
nd.waitall()
nd.dot(x, x).wait_to_read()                # warm-up
queued, finished = [], []
for _ in range(3):
    start = time.perf_counter()
    y = nd.dot(x, x)
    queued.append(time.perf_counter() - start)
    y.wait_to_read()
    finished.append(time.perf_counter() - start)
print(min(queued), min(finished))
"""


def measure(lib):
    code = WORKLOAD.format(lib=lib)
    if lib == "mxnet":
        output = run_mxnet(code)
    else:
        env = dict(os.environ, PYTHONPATH=REPO)
        output = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                text=True, check=True).stdout.strip()
    return (None, None) if output is None else tuple(float(v) for v in output.split())


def main():
    figures = {"minimx": measure("minimx"), "MXNet 1.9.1": measure("mxnet")}
    rows = []
    for name, (queued, finished) in figures.items():
        share = None if queued is None else queued / finished * 100
        rows.append((name, fmt(queued and queued * 1e3, " ms"),
                     fmt(finished and finished * 1e3, " ms"), fmt(share, " %")))
    print_table("nd.dot of two 2000x2000 arrays: time to return vs time to finish (best of 3)",
                ("framework", "queued", "finished", "queued/finished"), rows)
    return figures


if __name__ == "__main__":
    main()
