"""Iterating a zero-dimensional mx.np array: an empty sequence, as in MXNet 1.9.1, so code
that asks "is this a sequence?" by iterating (matplotlib's unit check) takes it for a number."""
import pytest

from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
np = mx.np
mean = np.mean(np.array([1.0, 2.0, 6.0]))
rows = [float(v) for v in np.array([1.0, 2.0])]
print(json.dumps({"scalar": list(mean), "ndim": mean.ndim, "rows": rows,
                  "matrix": [r.shape for r in np.ones((2, 3))]}))
"""


def test_zero_dim_iterates_as_an_empty_sequence_as_on_mxnet(mxnet_python):
    assert on_minimx(PROGRAM) == on_mxnet(mxnet_python, PROGRAM) == {
        "scalar": [], "ndim": 0, "rows": [1.0, 2.0], "matrix": [[3], [3]]}


def test_matplotlib_takes_a_zero_dim_mean_for_a_number():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import minimx as mx
    xs = mx.np.array([1.0, 2.0, 6.0])
    figure = plt.figure()
    try:
        line = plt.axvline(x=mx.np.mean(xs), linestyle="--")
        assert float(line.get_xdata()[0]) == pytest.approx(3.0)
    finally:
        plt.close(figure)
