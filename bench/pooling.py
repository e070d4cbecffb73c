"""Max pooling, forward and backward, on the d2l books' pooling layers (float32, NCHW).

    python bench/pooling.py [rounds]

The same code runs on minimx and on MXNet 1.9.1, each in a fresh process, in alternating
rounds: ``nd.Pooling`` under ``autograd.record`` and its backward, CPU time of the process
(MXNet's threads included), the best of each round's repeats and of the rounds.  Overlapping
2-D windows (3x3/2, 3x3/1) go through the stride phases of ``minimx/op/pool_kernels.py``;
LeNet's 2x2/2 windows lie apart and take the plain tap path.
"""
import json
import sys

from _util import FORWARD_BACKWARD_MS, fmt, print_table, ratio, run_minimx, run_mxnet

SHAPES = [  # label, input shape, kernel, stride, pad
    ("ResNet-18 stem (96 px)", (64, 64, 48, 48), 3, 2, 1),
    ("ResNet-18 stem (224 px)", (32, 64, 112, 112), 3, 2, 1),
    ("AlexNet/NiN pool 1", (128, 96, 54, 54), 3, 2, 0),
    ("AlexNet/NiN pool 2", (128, 256, 26, 26), 3, 2, 0),
    ("NiN pool 3", (128, 384, 12, 12), 3, 2, 0),
    ("GoogLeNet b1 (96 px)", (128, 64, 48, 48), 3, 2, 1),
    ("GoogLeNet b2", (128, 192, 24, 24), 3, 2, 1),
    ("GoogLeNet inception 3x3/1", (128, 256, 12, 12), 3, 1, 1),
    ("LeNet pool 1", (256, 6, 24, 24), 2, 2, 0),
    ("LeNet pool 2", (64, 16, 8, 8), 2, 2, 0),
]
WORKLOAD = FORWARD_BACKWARD_MS.replace("{", "{{").replace("}", "}}") + """
import json, time
import numpy as np
from {lib} import nd, autograd
times = {{}}
for label, shape, k, s, p in {shapes}:
    x = nd.array(np.random.default_rng(0).standard_normal(shape).astype("float32"))
    x.attach_grad()
    times[label] = forward_backward_ms(
        lambda: nd.Pooling(x, kernel=(k, k), stride=(s, s), pad=(p, p), pool_type="max"),
        [x], time.process_time)
print(json.dumps(times))
"""


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    rounds = int(argv[0]) if argv else 3
    code = {lib: WORKLOAD.format(lib=lib, shapes=repr(SHAPES)) for lib in ("minimx", "mxnet")}
    ours, theirs = {}, {}
    for _ in range(rounds):
        for label, times in json.loads(run_minimx(code["minimx"], "ThreadedEngine")
                                       .strip().splitlines()[-1]).items():
            ours[label] = [min(a, b) for a, b in zip(ours.get(label, times), times)]
        other = run_mxnet(code["mxnet"])
        for label, times in (json.loads(other) if other else {}).items():
            theirs[label] = [min(a, b) for a, b in zip(theirs.get(label, times), times)]
    rows = []
    for label, shape, k, s, p in SHAPES:
        mine, other = ours.get(label), theirs.get(label)
        total, other_total = sum(mine) if mine else None, sum(other) if other else None
        rows.append((f"{label} {'x'.join(map(str, shape))} {k}x{k}/{s} pad {p}",
                     "-" if mine is None else f"{mine[0]:.3g} / {mine[1]:.3g} ms",
                     "-" if other is None else f"{other[0]:.3g} / {other[1]:.3g} ms",
                     ratio(total, other_total), fmt(total, " ms")))
    print_table("max pooling, forward / backward, CPU ms, best of rounds",
                ("layer", "minimx", "MXNet 1.9.1", "ratio (f+b)", "minimx f+b"), rows)
    return rows


if __name__ == "__main__":
    main()
