"""A background CPU load the benchmarks start and stop themselves: users' machines are busy.

``with background_load():`` runs one busy-loop process pinned to the last core this
process may use, for at most ``limit`` seconds (it ends by itself even if the benchmark
dies), and stops it when the block ends.
"""
import contextlib
import os
import subprocess
import sys
import time

BUSY_LOOP = """
import os, sys, time
try:
    os.sched_setaffinity(0, {int(sys.argv[1])})
except (AttributeError, OSError):
    pass
end = time.time() + float(sys.argv[2])
x = 0
while time.time() < end:
    for _ in range(10000):
        x += 1
"""


def _last_core():
    try:
        return max(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) - 1


@contextlib.contextmanager
def background_load(limit=1800):
    """One core kept busy by another process while the block runs."""
    process = subprocess.Popen([sys.executable, "-c", BUSY_LOOP, str(_last_core()), str(limit)])
    time.sleep(0.3)                      # let it get going
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
