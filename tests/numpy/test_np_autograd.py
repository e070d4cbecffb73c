"""Gradients through mx.np arrays: the same tape as nd, NumPy's semantics on top."""
import numpy as onp
import pytest

from minimx import autograd, nd, np, npx


def _grad(function, value):
    x = np.array(value)
    x.attach_grad()
    with autograd.record():
        y = function(x)
    y.backward()
    return y, x.grad


def test_a_full_sum_is_zero_dimensional_and_differentiable():
    y, grad = _grad(lambda x: (x * x).sum(), [[1.0, 2.0], [3.0, 4.0]])
    assert y.shape == () and float(y) == 30.0
    assert isinstance(grad, np.ndarray)
    onp.testing.assert_allclose(grad.asnumpy(), [[2, 4], [6, 8]])


def test_gradient_through_an_element_and_a_reduction():
    y, grad = _grad(lambda x: x[1] * 3 + np.exp(x).sum(), [1.0, 2.0, 3.0])
    assert y.shape == ()
    onp.testing.assert_allclose(grad.asnumpy(), onp.exp([1.0, 2.0, 3.0]) + [0, 3, 0],
                                rtol=1e-6)


def test_gradient_through_mean_dot_and_broadcasting():
    weights = np.array([1.0, -1.0, 2.0])
    y, grad = _grad(lambda x: np.dot(x + np.ones((2, 1)), weights).mean(),
                    [[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]])
    onp.testing.assert_allclose(grad.asnumpy(), onp.tile([0.5, -0.5, 1.0], (2, 1)))


@pytest.mark.parametrize("function, expected", [
    (lambda x: np.cumsum(x).sum(), [3.0, 2.0, 1.0]),
    (lambda x: np.einsum("i,i->", x, x), [2.0, 4.0, 6.0]),
    (lambda x: np.matmul(np.ones((2, 1, 3)), x.reshape(3, 1)).sum(), [2.0, 2.0, 2.0]),
    (lambda x: np.linalg.norm(x) ** 2, [2.0, 4.0, 6.0]),
    (lambda x: np.linalg.solve(np.array([[2.0, 0, 0], [0, 4.0, 0], [0, 0, 1.0]]), x).sum(),
     [0.5, 0.25, 1.0]),
    (lambda x: npx.relu(x - 2).sum(), [0.0, 0.0, 1.0]),
    (lambda x: np.where(x > 1.5, x, np.zeros_like(x)).sum(), [0.0, 1.0, 1.0]),
])
def test_gradients_of_composed_functions(function, expected):
    _, grad = _grad(function, [1.0, 2.0, 3.0])
    onp.testing.assert_allclose(grad.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_nd_and_np_views_share_one_buffer_and_one_tape():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = (x.as_np_ndarray() ** 2).sum()
    y.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), [2.0, 4.0])


SETITEM_WHILE_RECORDING = """
import json
np, npx, autograd = mx.np, mx.npx, mx.autograd
npx.set_np()
outcomes = {}
def case(name, body):
    try:
        body()
        outcomes[name] = "ran"
    except mx.MXNetError:
        outcomes[name] = "refused"
def outside_the_graph():
    x = np.ones(3)
    with autograd.record():
        x[0] = 2
        x[:] = 3
def into_a_variable():
    x = np.ones(3)
    x.attach_grad()
    with autograd.record():
        x[0] = 2
def a_part_from_the_graph():
    x = np.ones(3)
    x.attach_grad()
    with autograd.record():
        z = np.zeros(3)
        z[0] = (x * 2)[1]
for name, body in [("outside", outside_the_graph), ("variable", into_a_variable),
                   ("part", a_part_from_the_graph)]:
    case(name, body)
npx.reset_np()
print(json.dumps(outcomes))
"""


@pytest.mark.mxnet
def test_setitem_while_recording_follows_mxnet(mxnet_python):
    """x[k] = v while recording: refused into the graph, allowed outside it (as nd)."""
    from same_program import on_minimx, on_mxnet
    theirs = on_mxnet(mxnet_python, SETITEM_WHILE_RECORDING)
    assert theirs == {"outside": "ran", "variable": "refused", "part": "refused"}
    assert on_minimx(SETITEM_WHILE_RECORDING) == theirs


@pytest.mark.parametrize("dtype", ["float16", "int8", "int32", "float64"])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_reduction_gradient_ignores_a_narrower_result_dtype(reduction, dtype):
    # MXNet's test_np_mean/test_np_sum: d mean / dx is 1/N in x's dtype, whatever dtype= says
    x = np.array(onp.linspace(-1, 1, 12).reshape(4, 3), dtype="float32")
    x.attach_grad()
    with autograd.record():
        y = getattr(x, reduction)(axis=1, dtype=dtype)
    y.backward()
    assert y.dtype == onp.dtype(dtype)
    scale = 3 if reduction == "mean" else 1   # 1/3 is not a float16
    onp.testing.assert_array_equal(x.grad.asnumpy(), onp.ones((4, 3), "float32") / scale)
