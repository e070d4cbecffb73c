"""tools/mxnet_suite/numpy1_names.py gives MXNet's test files the NumPy 1 names they call on
host NumPy, with NumPy 1's meaning (checked in a subprocess: it changes the numpy module)."""
import pathlib
import subprocess
import sys

SUITE_TOOLS = pathlib.Path(__file__).resolve().parents[1] / "tools" / "mxnet_suite"

PROGRAM = """
import numpy as np
import numpy1_names
numpy1_names.apply()
print(np.round_(np.array([1.26]), 1).tolist())
print(np.percentile([1, 2, 3, 4], 50, interpolation="lower"))
print(np.quantile([1, 2, 3, 4], 0.5, interpolation="higher"))
print([a.tolist() for a in np.nonzero(np.array(3))], [a.tolist() for a in np.nonzero([0, 2])])
print(np.unique(np.array([[3, 1], [1, 2]]), return_inverse=True)[1].tolist())
print(bool(np.sometrue([0, 1])), bool(np.alltrue([0, 1])), int(np.product([2, 3])),
      np.cumproduct([2, 3]).tolist(), np.float is float, np.int is int,
      np.isnan(np.NaN), np.NINF == -np.inf, np.arange(-2, 5, 2, dtype=np.uint8).tolist())
a = np.array([[[2.0, 0.0], [0.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]]])
print(np.linalg.solve(a, np.array([[2.0, 4.0], [3.0, 4.0]])).tolist(),
      np.linalg.solve(a, np.array([[[2.0], [4.0]], [[3.0], [4.0]]])).shape)
"""


def test_numpy1_names_answer_as_numpy_1():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SUITE_TOOLS), "PATH": "/usr/bin:/bin"},
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == ["[1.3]", "2", "3", "[[0]] [[1]]", "[2, 0, 0, 1]",
                     "True False 6 [2, 6] True True True True [254, 0, 2, 4]", "[[1.0, 1.0], [3.0, 2.0]] (2, 2, 1)"]
