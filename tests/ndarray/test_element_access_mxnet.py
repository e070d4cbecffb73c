"""Element access in a Python loop, ``nd`` and ``np`` against MXNet 1.9.1: d2l's ``corr2d``
(``Y[i, j] = (X[i:i + h, j:j + w] * K).sum()``), reads ``x[i, j]`` and the numbers they give
(``float``, ``int``, ``item``/``asscalar``).

MXNet's rule for a basic key of several ints and slices: where the part is contiguous the
result is a view (a later write to the array shows through it, a write to it shows in the
array); a strided part is a copy.  An index out of range, or too many of them, is an
IndexError.
"""
from same_program import on_minimx, on_mxnet

PROGRAM = """
import json
nd, np, npx = mx.nd, mx.np, mx.npx


def corr2d(X, K, zeros):
    h, w = K.shape
    Y = zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


def run(zeros, array, to_float, to_int, numpy):
    found = {}
    X = array([[float((8 * i + j) % 5) for j in range(8)] for i in range(6)])
    K = array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
    Y = corr2d(X, K, zeros)
    found["corr2d"] = [list(Y.shape), Y.asnumpy().tolist()]
    found["numbers"] = [to_float(X.sum()), to_int(X[1, 2]), to_float(X[2, 3]),
                        to_float(X[5, 7]), to_int(X[-1, -2])]
    x = zeros((3, 4, 2))
    parts = {"one": x[1, 2, 0], "row": x[1, 2], "tail": x[1, 2, 1:], "rows": x[1, 1:3],
             "strided": x[0:2, 1], "block": x[1:3, 1:3, 0], "stepped": x[1, ::2],
             "negative": x[-1, -1, -2]}
    if numpy:                           # legacy shapes have no zero-size part
        parts["empty"] = x[1, 3:1]
    found["shapes"] = {name: list(part.shape) for name, part in parts.items()}
    x[1, 2, 0] = 5.0
    x[1, 1, 1] = 6.0
    x[0, 1, 1] = 7.0
    x[2, 3, 0] = 8.0
    found["after write to x"] = {name: part.asnumpy().tolist() for name, part in parts.items()}
    parts["rows"][:] = 2.0
    parts["strided"][:] = 9.0
    found["after write to parts"] = x.asnumpy().tolist()
    errors = {}
    for key in ((3, 0), (0, -5), (0, 0, 2), (0, 0, 0, 0), (1, 2, 0, 0)):
        try:
            x[key]
            errors[str(key)] = "no error"
        except Exception as error:
            errors[str(key)] = "IndexError" if isinstance(error, IndexError) else \\
                type(error).__name__
    found["errors"] = errors
    return found


results = {}
try:
    npx.reset_np()
    # MXNet's nd arrays have no float() or int(): asscalar() gives the number
    results["nd"] = run(nd.zeros, nd.array, lambda a: float(a.asscalar()),
                        lambda a: int(a.asscalar()), False)
    npx.set_np()
    results["np"] = run(np.zeros, np.array, float, int, True)
    results["np item"] = [np.ones((2, 3)).sum().item(), np.arange(6).reshape(2, 3)[1, 2].item()]
finally:
    npx.reset_np()
print(json.dumps(results))
"""


def test_element_access_matches_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, PROGRAM)
    got = on_minimx(PROGRAM)
    for frontend in ("nd", "np"):
        for key, value in expected[frontend].items():
            assert got[frontend][key] == value, (frontend, key)


def test_element_access_runs_without_mxnet():
    """The same program on minimx alone: the values a student's loop computes."""
    got = on_minimx(PROGRAM)
    for frontend, scalar_shape in (("nd", [1]), ("np", [])):
        found = got[frontend]
        assert found["corr2d"][0] == [4, 6]
        assert found["shapes"]["one"] == scalar_shape and found["shapes"]["row"] == [2]
        assert found["after write to x"]["one"] in (5.0, [5.0])      # a view: shows through
        assert found["after write to x"]["strided"] == [[0.0, 0.0], [0.0, 0.0]]  # a copy
        assert found["errors"]["(3, 0)"] == "IndexError"
