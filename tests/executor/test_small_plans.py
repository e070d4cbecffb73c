"""Small plans run in the pushing thread (``plan.plan_is_small``), with the same results."""
import threading

import numpy as np
import pytest

import minimx as mx
from minimx import engine, nd


def _mlp(batch):
    x = mx.sym.var("data")
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=256, name="fc1"), act_type="relu")
    x = mx.sym.FullyConnected(x, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(x, name="softmax"), (batch, 784)


def _bound(symbol, shape):
    executor = symbol.simple_bind(mx.cpu(), data=shape)
    rng = np.random.RandomState(0)
    for name, array in executor.arg_dict.items():
        array[:] = (rng.randint(0, 10, array.shape) if name.endswith("label")
                    else rng.standard_normal(array.shape).astype("float32") * 0.1)
    return executor


def _step_threads(executor):
    """The threads that ran one training step's forward and backward."""
    nd.waitall()
    starts = []
    engine.subscribe(starts.append)
    try:
        executor.forward(is_train=True)
        executor.backward()
        nd.waitall()
    finally:
        engine.unsubscribe(starts.append)
    return {e.name: e.thread for e in starts if e.kind == "start"}


@pytest.fixture
def threaded():
    with engine.engine_type("ThreadedEngine") as current:
        yield current


def test_a_batch_one_mlp_plan_is_small_and_runs_in_the_calling_thread(threaded):
    executor = _bound(*_mlp(1))
    assert executor._plan(True).small and executor._plan(False).small
    here = threading.current_thread().name
    assert _step_threads(executor) == {"executor_forward": here, "executor_backward": here}


def test_a_batch_sixty_four_mlp_plan_goes_to_a_worker(threaded):
    executor = _bound(*_mlp(64))       # 64 * 784 * 256 multiply-adds: over SMALL_WORK
    assert not executor._plan(True).small
    threads = _step_threads(executor)
    assert all(name.startswith("engine-cpu(0)-worker") for name in threads.values())


def test_a_large_weight_read_without_a_product_makes_a_plan_large():
    """An Embedding's weight gradient is a pass over the whole weight: its elements count."""
    symbol = mx.sym.Embedding(mx.sym.var("data"), input_dim=5000, output_dim=20, name="emb")
    executor = symbol.simple_bind(mx.cpu(), data=(2,))
    assert not executor._plan(True).small
    assert mx.sym.Embedding(mx.sym.var("data"), input_dim=50, output_dim=20).simple_bind(
        mx.cpu(), data=(2,))._plan(True).small


def test_inline_and_worker_runs_give_identical_results(threaded, monkeypatch):
    def trained():
        executor = _bound(*_mlp(1))
        for _ in range(2):
            executor.forward(is_train=True)
            executor.backward()
        return [a.asnumpy() for a in executor.outputs + executor.grad_arrays]

    inline = trained()
    monkeypatch.setattr(engine, "SMALL_ELEMENTS", 0)    # every operation to a worker
    for a, b in zip(inline, trained()):
        np.testing.assert_array_equal(a, b)


def test_a_small_hybridized_block_runs_in_the_calling_thread(threaded):
    """A CachedOp's pushes (lowered forward, recorded forward, backward) use Plan.small too."""
    net = mx.gluon.nn.Dense(3)
    net.initialize()
    net.hybridize()
    x = nd.ones((1, 4))
    x.attach_grad()
    net(x)
    nd.waitall()
    starts = []
    engine.subscribe(starts.append)
    try:
        net(x)
        with mx.autograd.record():
            y = net(x)
        y.backward()
        nd.waitall()
    finally:
        engine.unsubscribe(starts.append)
    threads = {(e.name, e.thread) for e in starts if e.kind == "start"
               and e.name.startswith("CachedOp")}
    here = threading.current_thread().name
    assert threads == {("CachedOp", here), ("CachedOp_backward", here)}
    weight = net.weight.data().asnumpy()
    np.testing.assert_allclose(x.grad.asnumpy(), weight.sum(axis=0, keepdims=True), rtol=1e-6)
