"""Device handling without a GPU: ``backend.use_stand_in_gpu`` runs ``mx.gpu(i)`` on numpy.

Checks what DESIGN.md promises for contexts: arrays and results keep their
context, mixing contexts in one operator fails naming both, copies move values
between devices, and without a GPU ``mx.gpu(0)`` fails at the call with a clear
message.
"""
import numpy as np
import pytest

import minimx as mx
from minimx import autograd, backend, nd
from minimx.base import ContextMismatchError, DeviceUnavailableError


@pytest.fixture
def stand_in_gpus():
    with backend.stand_in_gpus(2):
        try:
            yield
        finally:
            nd.waitall()


@pytest.fixture
def no_gpu():
    with backend.stand_in_gpus(0):
        if backend.num_gpus() > 0:
            pytest.skip("a real GPU is present")
        yield


def test_stand_in_reports_two_gpus(stand_in_gpus):
    assert mx.context.num_gpus() == 2
    assert mx.num_gpus() == 2


def test_arrays_created_on_a_gpu_report_it(stand_in_gpus):
    assert nd.ones((2, 3), ctx=mx.gpu(0)).context == mx.gpu(0)
    assert nd.array([1.0, 2.0], ctx=mx.gpu(1)).context == mx.gpu(1)
    with mx.gpu(1):
        assert nd.zeros((2,)).context == mx.gpu(1)


def test_operators_keep_the_context(stand_in_gpus):
    x = nd.array(np.arange(6.0).reshape(2, 3), ctx=mx.gpu(1))
    results = [x * 2 + 1, nd.broadcast_maximum(x, x), nd.zeros_like(x), x[1], -x]
    for result in results:
        assert result.context == mx.gpu(1)
    np.testing.assert_allclose((x * 2 + 1).asnumpy(), np.arange(6.0).reshape(2, 3) * 2 + 1)


def test_gradients_live_on_the_arrays_device(stand_in_gpus):
    x = nd.array([1.0, 2.0, 3.0], ctx=mx.gpu(0))
    x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward()
    assert x.grad.context == mx.gpu(0)
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 4.0, 6.0])


@pytest.mark.parametrize("other", [mx.cpu(0), mx.gpu(1)], ids=str)
def test_mixing_contexts_names_both(stand_in_gpus, other):
    a = nd.ones((2,), ctx=mx.gpu(0))
    b = nd.ones((2,), ctx=other)
    with pytest.raises(ContextMismatchError) as caught:
        a + b
    message = str(caught.value)
    assert "gpu(0)" in message and str(other) in message and "broadcast_add" in message


@pytest.mark.parametrize("source, target", [
    (mx.cpu(0), mx.gpu(0)), (mx.gpu(0), mx.gpu(1)), (mx.gpu(1), mx.cpu(0)), (mx.gpu(0), mx.gpu(0)),
], ids=str)
def test_copies_move_values_between_devices(stand_in_gpus, source, target):
    values = np.random.uniform(size=(3, 2)).astype(np.float32)
    x = nd.array(values, ctx=source)
    moved = x.as_in_context(target)
    assert moved.context == target
    np.testing.assert_array_equal(moved.asnumpy(), values)
    copied = x.copyto(target)
    assert copied.context == target and (copied is not x)
    into = nd.zeros((3, 2), ctx=target)
    x.copyto(into)
    np.testing.assert_array_equal(into.asnumpy(), values)
    x[:] = 0                                  # a copy does not share the source's buffer
    np.testing.assert_array_equal(copied.asnumpy(), values)


def test_a_gpu_beyond_the_stand_ins_is_unavailable(stand_in_gpus):
    with pytest.raises(DeviceUnavailableError, match=r"gpu\(2\)"):
        nd.ones((2,), ctx=mx.gpu(2))


def test_no_gpus_after_the_stand_in_is_removed(no_gpu):
    backend.use_stand_in_gpu(2)
    backend.use_stand_in_gpu(0)
    assert mx.context.num_gpus() == 0


@pytest.mark.parametrize("make", [
    lambda: nd.ones((2,), ctx=mx.gpu(0)),
    lambda: nd.array([1.0, 2.0], ctx=mx.gpu(0)),
    lambda: nd.ones((2,)).copyto(mx.gpu(0)),
    lambda: nd.ones((2,)).as_in_context(mx.gpu(0)),
], ids=["ones", "array", "copyto", "as_in_context"])
def test_without_a_gpu_the_call_itself_fails_clearly(no_gpu, make):
    with pytest.raises(DeviceUnavailableError) as caught:
        make()
    message = str(caught.value)
    assert "gpu(0)" in message and "no GPU" in message and "mx.cpu()" in message
    nd.waitall()                              # nothing failed later, at a sync point


def test_setitem_copies_a_value_from_another_device():
    with backend.stand_in_gpus(1):
        target = mx.nd.zeros((2,), ctx=mx.gpu(0))
        target[:] = mx.nd.array([1.0, 2.0], ctx=mx.cpu())
        assert target.context == mx.gpu(0)
        assert target.asnumpy().tolist() == [1.0, 2.0]
