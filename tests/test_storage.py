"""The host memory pool (minimx/storage.py): on by default, off with MXNet's variable."""
import os
import subprocess
import sys

import pytest

CHECK = "import minimx.storage as s, minimx; print(s.host_pool_active())"


def _pool_state(**env):
    environment = {k: v for k, v in os.environ.items() if "MEM_POOL_TYPE" not in k}
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                          env=environment, timeout=120, check=True)
    return done.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_pool_is_on_by_default_and_unpooled_turns_it_off():
    assert _pool_state() == "True"
    assert _pool_state(MXNET_CPU_MEM_POOL_TYPE="Unpooled") == "False"
    assert _pool_state(MINIMX_CPU_MEM_POOL_TYPE="unpooled") == "False"


UNPOOLED = """
import numpy as np, minimx.storage as s, minimx
from minimx.profiler import resident_memory_mb as rss
blocks = [np.ones(2**22) for _ in range(16)]      # 512 MB, then freed: the pool keeps it
del blocks
kept = rss()
with s.unpooled():
    released = rss()
print(kept - released)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_unpooled_gives_the_kept_memory_back():
    done = subprocess.run([sys.executable, "-c", UNPOOLED], capture_output=True, text=True,
                          timeout=120, check=True)
    assert float(done.stdout.strip()) > 400



WORKER_KEEPS = """
import threading, numpy as np, minimx
from minimx.profiler import resident_memory_mb as rss
def churn():
    block = np.ones(2**24)                # 128 MB: an activation, made by an engine worker
    del block
before = rss()
thread = threading.Thread(target=churn)
thread.start(); thread.join()
print(rss() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_buffer_freed_in_a_worker_thread_stays_in_the_pool():
    # Threads share the main heap (M_ARENA_MAX = 1): a thread's own heap would map a
    # large buffer afresh and hand it back at once, to be zero-filled again next step.
    done = subprocess.run([sys.executable, "-c", WORKER_KEEPS], capture_output=True,
                          text=True, timeout=120, check=True)
    assert float(done.stdout.strip()) > 100
    environment = dict(os.environ, MINIMX_CPU_MEM_POOL_TYPE="Unpooled")
    done = subprocess.run([sys.executable, "-c", WORKER_KEEPS], capture_output=True,
                          text=True, timeout=120, check=True, env=environment)
    assert float(done.stdout.strip()) < 30
