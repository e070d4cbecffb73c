"""The NDArray, Context and lazy-evaluation examples of the two seed lecture notes, as tests.

Symbol, Executor and Gluon examples arrive with their issues.
"""
import time

import numpy as np
import pytest

import minimx as mx
from minimx import backend, nd
from minimx.base import ContextMismatchError


@pytest.fixture
def two_stand_in_gpus():
    with backend.stand_in_gpus(2):
        yield


def test_basic_operations_match_numpy():
    np_array = np.arange(10, dtype=np.float32).reshape((2, 5))
    mx_array = nd.arange(10, dtype=np.float32).reshape((2, 5))
    np.testing.assert_array_equal(mx_array.asnumpy(), np_array)
    np.testing.assert_allclose(nd.dot(mx_array, mx_array.T).asnumpy(), np_array.dot(np_array.T))


def test_numpy_round_trip():
    from_np_array = nd.array(np.ones(shape=(2, 2)), dtype=np.float32)
    assert from_np_array.dtype == np.float32
    from_mx_array = nd.ones(shape=(2, 2), dtype=np.float32).asnumpy()
    assert isinstance(from_mx_array, np.ndarray) and from_mx_array.sum() == 4


def test_cpu_plus_gpu_is_an_error(two_stand_in_gpus):
    mx_cpu = nd.ones(shape=(2, 2), ctx=mx.cpu(0))
    mx_gpu = nd.ones(shape=(2, 2), ctx=mx.gpu(0))
    with pytest.raises(ContextMismatchError, match=r"cpu\(0\).*gpu\(0\)"):
        print(mx_cpu + mx_gpu)


def test_moving_and_copying_between_devices(two_stand_in_gpus):
    mx_cpu = nd.ones(shape=(2, 2), ctx=mx.cpu(0))
    host_to_gpu = mx_cpu.as_in_context(mx.gpu(0))
    assert host_to_gpu.context == mx.gpu(0)
    mx_gpu = nd.ones(shape=(2, 2), ctx=mx.gpu(0))
    assert (mx_cpu.as_in_context(mx.gpu(0)) + mx_gpu).asnumpy().tolist() == [[2, 2], [2, 2]]
    mx_gpu_0 = nd.ones(shape=(2, 2), ctx=mx.gpu(0))
    mx_gpu_1 = nd.zeros(shape=(2, 2), ctx=mx.gpu(1))
    mx_gpu_0.copyto(mx_gpu_1)
    assert mx_gpu_1.context == mx.gpu(1)
    assert mx_gpu_1.asnumpy().tolist() == [[1, 1], [1, 1]]


def test_imperative_fully_connected():
    data = nd.ones(shape=(1, 2), dtype=np.float32)
    weight = nd.random.normal(shape=(12, 2))
    bias = nd.random.normal(shape=(12,))
    fc = nd.FullyConnected(data, weight=weight, bias=bias, num_hidden=12)
    assert fc.shape == (1, 12)
    expected = data.asnumpy() @ weight.asnumpy().T + bias.asnumpy()
    np.testing.assert_allclose(fc.asnumpy(), expected, rtol=1e-5)


def test_lazy_a_times_b_plus_two():
    a = nd.ones((1, 2))
    b = nd.ones((1, 2))
    c = a * b + 2
    assert "[[3. 3.]]" in str(c)


def test_dot_returns_before_it_finishes():
    x = nd.random.uniform(shape=(1000, 1000))
    x.wait_to_read()
    start = time.perf_counter()
    y = nd.dot(x, x)
    queued = time.perf_counter() - start
    y.wait_to_read()
    finished = time.perf_counter() - start
    assert queued < finished
    np.testing.assert_allclose(y.asnumpy(), x.asnumpy() @ x.asnumpy(), rtol=1e-4)


def test_sync_points_from_the_seed():
    x = nd.random.uniform(shape=(200, 200))
    y = nd.dot(x, x)
    y.wait_to_read()
    z = nd.dot(x, x)
    nd.waitall()
    assert y.asnumpy().shape == (200, 200)
    assert isinstance(y.norm().asscalar(), (float, np.floating))
    np.testing.assert_allclose(y.asnumpy(), z.asnumpy())


def test_loop_with_and_without_waiting_gives_the_same_result():
    x = nd.random.uniform(shape=(50, 50))
    for _ in range(20):
        y = x + 1
        y.wait_to_read()
    first = y.asnumpy()
    for _ in range(20):
        y = x + 1
    nd.waitall()
    np.testing.assert_array_equal(first, y.asnumpy())
