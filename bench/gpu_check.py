"""Check minimx on a real GPU: the registry-generated operator tests on gpu(0), then timings.

Lesson: 15-gpus-with-cupy.  One command: ``python bench/gpu_check.py``.  Without CuPy or a
GPU it says so and exits 0.  With one it runs ``tests/op/test_registry.py`` with
``MINIMX_TEST_CTX=gpu`` (every generated case on gpu(0)), then times a
4096x4096 ``dot``, a chain of element-wise operations on 4096x4096 arrays, and
the per-operation overhead of tiny operations, on gpu(0) and on the CPU.
``--stand-in`` runs the same path on numpy standing in for the GPU (to test
this script where there is no GPU; the timings then mean nothing).
"""
import argparse
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import minimx as mx  # noqa: E402
from minimx import backend, nd  # noqa: E402


def synchronize(ctx):
    """Wait for the engine, then for the device's queued kernels."""
    nd.waitall()
    if ctx.device_type == "gpu" and not backend._gpu_is_stand_in:
        backend.get_xp(ctx).cuda.runtime.deviceSynchronize()


def seconds_per_call(function, ctx, repeat):
    function()                                   # warm up: kernels compiled, memory pooled
    synchronize(ctx)
    start = time.perf_counter()
    for _ in range(repeat):
        function()
    synchronize(ctx)
    return (time.perf_counter() - start) / repeat


def run_operator_tests(stand_in):
    env = dict(os.environ, MINIMX_TEST_CTX="gpu")
    if stand_in:
        env["MINIMX_TEST_STAND_IN_GPUS"] = "1"
    command = [sys.executable, "-m", "pytest", "tests/op/test_registry.py",
               "-p", "no:cacheprovider", "--tb=no", "-rfE"]
    print(f"$ MINIMX_TEST_CTX=gpu {' '.join(command[1:])}", flush=True)
    started = time.perf_counter()
    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    lines = (finished.stdout + finished.stderr).strip().splitlines()
    print("\n".join(lines[-60:]))
    print(f"operator tests on gpu(0): exit code {finished.returncode} "
          f"in {time.perf_counter() - started:.1f} s\n", flush=True)
    return finished.returncode == 0


def benchmark_dot(contexts, size):
    if not hasattr(nd, "dot"):
        print("dot: nd.dot is not registered yet; skipped")
        return
    for ctx in contexts:
        a = nd.random_normal(shape=(size, size), ctx=ctx) if hasattr(nd, "random_normal") \
            else nd.ones((size, size), ctx=ctx)
        b = nd.ones((size, size), ctx=ctx)
        repeat = 20 if ctx.device_type == "gpu" else 3
        elapsed = seconds_per_call(lambda: nd.dot(a, b), ctx, repeat)
        flops = 2 * size ** 3 / elapsed / 1e12
        print(f"dot {size}x{size} float32 on {ctx}: {elapsed * 1e3:9.2f} ms  "
              f"({flops:.2f} TFLOP/s)")


def benchmark_elementwise(contexts, size, length=10):
    for ctx in contexts:
        x = nd.ones((size, size), ctx=ctx)

        def chain():
            y = x
            for _ in range(length):
                y = y * 1.0001 + 0.5
            return y

        repeat = 20 if ctx.device_type == "gpu" else 2
        elapsed = seconds_per_call(chain, ctx, repeat)
        gigabytes = 2 * length * 2 * size * size * 4 / 1e9      # read + write per op
        print(f"element-wise chain ({2 * length} ops) {size}x{size} on {ctx}: "
              f"{elapsed * 1e3:9.2f} ms  ({gigabytes / elapsed:.0f} GB/s)")


def benchmark_tiny_ops(contexts, count=2000):
    for ctx in contexts:
        x = nd.ones((1,), ctx=ctx)

        def many():
            y = x
            for _ in range(count):
                y = y + 1
            return y

        elapsed = seconds_per_call(many, ctx, 1)
        print(f"tiny-op overhead on {ctx}: {elapsed / count * 1e6:7.1f} us per operation "
              f"(engine {mx.engine.get_engine().name})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stand-in", action="store_true",
                        help="numpy stands in for the GPU (tests this script without one)")
    parser.add_argument("--skip-tests", action="store_true", help="only run the timings")
    parser.add_argument("--size", type=int, default=4096, help="matrix size for the timings")
    options = parser.parse_args()
    if options.stand_in:
        backend.use_stand_in_gpu(1)
    if mx.context.num_gpus() == 0:
        print("gpu_check: no GPU available (CuPy is not installed or finds no device); "
              "nothing to check.")
        return 0
    gpu = mx.gpu(0)
    if not options.stand_in:
        cupy = backend.get_xp(gpu)
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        name = name.decode() if isinstance(name, bytes) else name
        print(f"GPU: {name}, CuPy {cupy.__version__}, {mx.context.num_gpus()} device(s)\n")
    tests_passed = True if options.skip_tests else run_operator_tests(options.stand_in)
    contexts = [gpu, mx.cpu()]
    benchmark_dot(contexts, options.size)
    benchmark_elementwise(contexts, options.size)
    benchmark_tiny_ops(contexts)
    if not tests_passed:
        print("\ngpu_check: some operator tests FAILED on gpu(0) (see above)")
        return 1
    print("\ngpu_check: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
