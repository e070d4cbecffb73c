"""``mx.image.imresize`` of a 180x200 RGB uint8 image to 224x224, every interpolation mode.

    python bench/imresize_bench.py

The same code runs on minimx and on MXNet 1.9.1 (OpenCV underneath), each in a fresh
process, in alternating rounds; each figure is the best of its rounds (milliseconds per
call).  minimx computes nearest with two gathers and the other OpenCV modes (Lanczos too)
as two passes of a few weighted taps per axis, cached per size
(``minimx/op/resize_kernels.py``).
"""
import json

from _util import fmt, print_table, ratio, run_minimx, run_mxnet

MODES = {0: "nearest", 1: "bilinear", 2: "bicubic", 3: "area", 4: "lanczos"}
ROUNDS = 3
WORKLOAD = """
import json, time
import numpy as np
from {lib} import nd, image
img = nd.array(np.random.RandomState(0).randint(0, 256, (180, 200, 3)), dtype='uint8')
times = {{}}
for interp in range(5):
    image.imresize(img, 224, 224, interp=interp).wait_to_read()     # warm-up
    best = float('inf')
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(20):
            out = image.imresize(img, 224, 224, interp=interp)
        out.wait_to_read()
        best = min(best, (time.perf_counter() - start) / 20 * 1e3)
    times[interp] = best
print(json.dumps(times))
"""


def main():
    ours, theirs = {}, {}
    for _ in range(ROUNDS):
        mine = json.loads(run_minimx(WORKLOAD.format(lib="minimx"), "ThreadedEngine")
                          .strip().splitlines()[-1])
        other = run_mxnet(WORKLOAD.format(lib="mxnet"))
        for key, value in mine.items():
            ours[int(key)] = min(ours.get(int(key), float("inf")), value)
        for key, value in (json.loads(other) if other else {}).items():
            theirs[int(key)] = min(theirs.get(int(key), float("inf")), value)
    rows = [(f"imresize 180x200 -> 224x224, {name}", fmt(ours.get(mode), " ms"),
             fmt(theirs.get(mode), " ms"), ratio(ours.get(mode), theirs.get(mode)), "<= 5x")
            for mode, name in MODES.items()]
    print_table("imresize, best of rounds", ("measure", "minimx", "MXNet 1.9.1", "ratio",
                                              "target"), rows)
    return rows


if __name__ == "__main__":
    main()
