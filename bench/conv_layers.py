"""3x3 convolutions, forward and backward: minimx's Winograd path, its plain im2col path, MXNet.

    python bench/conv_layers.py [rounds]

The layers are ResNet-18's at 96 px (the course workload) and two of a 224 px ResNet, batch
64, float32, NCHW, pad 1, no bias.  The same code runs on minimx (twice: with its fast
paths, Winograd's F(2x2, 3x3) of ``minimx/op/winograd.py`` and the tap-by-tap products of
``minimx/op/conv_taps.py``, and with both switched off, so that every layer takes the plain
im2col kernels) and on MXNet 1.9.1 (oneDNN), each in a fresh process,
in alternating rounds, on one thread (``OMP_NUM_THREADS=1``: one BLAS or oneDNN thread, one
engine worker), so that the figures compare the kernels' work per core, what a program gets
on a busy machine.  Each figure is the best wall time of each round's repeats and of the
rounds.
"""
import json
import os
import sys

from _util import FORWARD_BACKWARD_MS, fmt, print_table, ratio, run_minimx, run_mxnet

SHAPES = [  # label, input shape, filters, stride
    ("ResNet-18 96 px stage 1", (64, 64, 24, 24), 64, 1),
    ("ResNet-18 96 px stage 2", (64, 128, 12, 12), 128, 1),
    ("ResNet-18 96 px stage 3", (64, 256, 6, 6), 256, 1),
    ("ResNet-18 96 px stage 4", (64, 512, 3, 3), 512, 1),
    ("ResNet-18 96 px stage 2 entry", (64, 64, 24, 24), 128, 2),
    ("ResNet-18 96 px stage 4 entry", (64, 256, 6, 6), 512, 2),
    ("ResNet 224 px stage 3", (32, 256, 14, 14), 256, 1),
    ("ResNet 224 px stage 4", (32, 512, 7, 7), 512, 1),
]
WORKLOAD = FORWARD_BACKWARD_MS.replace("{", "{{").replace("}", "}}") + """
import json, time
import numpy as np
from {lib} import nd, autograd
if {plain}:
    import minimx.op.conv_taps, minimx.op.winograd
    minimx.op.winograd.suits = minimx.op.conv_taps.suits = lambda *args: False
times = {{}}
rng = np.random.default_rng(0)
for label, shape, filters, s in {shapes}:
    x = nd.array(rng.standard_normal(shape).astype("float32"))
    w = nd.array((rng.standard_normal((filters, shape[1], 3, 3)) * 0.05).astype("float32"))
    x.attach_grad()
    w.attach_grad()
    times[label] = forward_backward_ms(
        lambda: nd.Convolution(x, w, kernel=(3, 3), stride=(s, s), pad=(1, 1),
                               num_filter=filters, no_bias=True),
        [x, w], time.perf_counter)
print(json.dumps(times))
"""


def _merge(best, line):
    for label, times in json.loads(line).items():
        best[label] = [min(a, b) for a, b in zip(best.get(label, times), times)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    rounds = int(argv[0]) if argv else 3
    one_thread = {"OMP_NUM_THREADS": "1", "MXNET_CPU_WORKER_NTHREADS": "1"}
    before = {name: os.environ.get(name) for name in one_thread}
    os.environ.update(one_thread)           # for the child processes of this benchmark
    try:
        return _measure(rounds)
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _measure(rounds):
    """{label: [minimx, minimx im2col only, MXNet] forward + backward ms}, printed."""
    code = {name: WORKLOAD.format(lib=lib, plain=plain, shapes=repr(SHAPES))
            for name, lib, plain in (("winograd", "minimx", False), ("plain", "minimx", True),
                                     ("mxnet", "mxnet", False))}
    best = {"winograd": {}, "plain": {}, "mxnet": {}}
    for _ in range(rounds):
        for name in ("winograd", "plain"):
            _merge(best[name], run_minimx(code[name], "ThreadedEngine").strip().splitlines()[-1])
        other = run_mxnet(code["mxnet"])
        if other:
            _merge(best["mxnet"], other)
    rows, totals_of = [], {}
    for label, shape, filters, s in SHAPES:
        figures = [best[name].get(label) for name in ("winograd", "plain", "mxnet")]
        totals = [sum(f) if f else None for f in figures]
        totals_of[label] = totals
        rows.append((f"{label} {'x'.join(map(str, shape))} -> {filters}, stride {s}",)
                    + tuple("-" if f is None else f"{f[0]:.3g} / {f[1]:.3g}" for f in figures)
                    + (ratio(totals[0], totals[2]), fmt(totals[0], " ms")))
    print_table("3x3 convolution on one thread, forward / backward, ms, best of rounds",
                ("layer", "minimx", "minimx im2col only", "MXNet 1.9.1", "ratio (f+b)",
                 "minimx f+b"), rows)
    return totals_of


if __name__ == "__main__":
    main()
