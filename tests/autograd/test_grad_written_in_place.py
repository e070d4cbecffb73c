"""``backward()`` writes a variable's gradient straight into its ``.grad`` (MXNet's
``req='write'``) when one recorded call computes it: no fresh array and no copy after.

The values must be those of the copying path (``autograd.grad`` still returns fresh arrays),
a failed backward must leave every ``.grad`` as it was, and a ``.grad`` the graph itself
reads must still be read before it is written.
"""
import numpy as np
import pytest

import minimx as mx
from minimx import autograd, engine, gluon, nd
from minimx.base import GradientError


def small_net(hybridize):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(5, activation="relu"), gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    return net


@pytest.mark.parametrize("hybridize", [False, True])
def test_backward_writes_each_parameters_gradient_without_a_copy(hybridize):
    net = small_net(hybridize)
    x = nd.array(np.random.RandomState(0).rand(4, 6))
    params = list(net.collect_params().values())
    with autograd.record():
        loss = (net(x) ** 2).sum()
    nd.waitall()
    events = []
    engine.subscribe(events.append)
    try:
        loss.backward(retain_graph=True)
        nd.waitall()
    finally:
        engine.unsubscribe(events.append)
    names = [event.name for event in events if event.kind == "push"]
    assert not [name for name in names if name.startswith("_copyto")]
    expected = autograd.grad(loss, [p.data() for p in params])      # fresh arrays, copied
    for param, grad in zip(params, expected):
        np.testing.assert_array_equal(param.grad().asnumpy(), grad.asnumpy())


def test_a_variable_read_twice_or_differentiated_as_a_head_gets_the_whole_gradient():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x + x * 3
    y.backward()
    assert x.grad.asnumpy().tolist() == [5.0, 7.0]
    x.backward()
    assert x.grad.asnumpy().tolist() == [1.0, 1.0]


def test_grad_req_add_still_accumulates():
    x = nd.array([1.0, 2.0])
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with autograd.record():
            y = x * 4
        y.backward()
    assert x.grad.asnumpy().tolist() == [8.0, 8.0]


def test_a_failed_backward_leaves_every_grad_as_it_was():
    x, z = nd.array([1.0, 2.0]), nd.array([1.0])
    x.attach_grad()
    z.attach_grad()
    with autograd.record():
        freed = z * 3
    freed.backward()                                 # frees the graph of ``freed``
    for heads in ([lambda: x * 5, freed], [freed, lambda: x * 5]):
        with autograd.record():
            heads = [head() if callable(head) else head for head in heads]
        with pytest.raises(GradientError, match="freed"):
            autograd.backward(heads)                 # x's step first, then the freed graph
        nd.waitall()
        assert x.grad.asnumpy().tolist() == [0.0, 0.0]   # not the 5 of the fresh graph


def test_a_grad_the_graph_reads_is_read_before_it_is_written():
    """MXNet 1.9.1 prints the same: [6, 12] then [12, 48] (the second backward reads the
    gradient the first one wrote)."""
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    x.grad[:] = 3
    with autograd.record():
        y = x * x * x.grad
    y.backward(retain_graph=True)
    assert x.grad.asnumpy().tolist() == [6.0, 12.0]
    y.backward()
    assert x.grad.asnumpy().tolist() == [12.0, 48.0]


def test_one_array_as_the_grad_of_two_variables_keeps_the_copying_order():
    """MXNet 1.9.1 prints the same: [5, 5], then [2, 2]."""
    a, b, g = nd.array([1.0, 2.0]), nd.array([3.0, 4.0]), nd.zeros((2,))
    autograd.mark_variables([a, b], [g, g])
    with autograd.record():
        y = a * 2 + b * 5
    y.backward()
    assert g.asnumpy().tolist() == [5.0, 5.0]
    with autograd.record():
        y = b * 5 + a * 2
    y.backward()
    assert g.asnumpy().tolist() == [2.0, 2.0]
