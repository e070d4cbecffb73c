"""After backward() without retain_graph, the arrays of that graph are constants (MXNet 1.x).

Course code relies on it: a recurrent model keeps its state between batches and calls
``state.detach()`` without keeping the result; in MXNet the state simply stops gradients
once its graph was back-propagated.  Differentiating through the freed graph itself
still fails, as it does in MXNet.
"""
import gc
import weakref

import numpy as np
import pytest

from minimx import autograd, nd
from minimx.base import GradientError


def test_a_state_carried_over_from_a_freed_graph_is_a_constant():
    w = nd.array([2.0])
    w.attach_grad()
    state = nd.array([3.0])
    for step, expected in enumerate([3.0, 6.0, 12.0]):
        state.detach()                      # the book's idiom: the result is not kept
        with autograd.record():
            state = state * w
            loss = state.sum()
        loss.backward()
        assert w.grad.asscalar() == expected, step     # d(state * w)/dw = the old state


def test_an_intermediate_of_a_freed_graph_is_a_constant():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
        z = y * y
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [8.0, 16.0])
    with autograd.record():
        u = y * x                            # y = 2x, but y is a constant now
    u.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 4.0])


def test_backward_through_the_freed_graph_itself_still_fails():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        z = (x * 2) * x
    z.backward()
    with pytest.raises(GradientError, match="freed by an earlier backward"):
        z.backward()
    with autograd.record():
        c = x * x
    autograd.grad(c, [x])
    with pytest.raises(GradientError, match="freed"):
        autograd.grad(c, [x])


def test_retain_graph_keeps_it_differentiable():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        a = x * 3
        b = a * a
    b.backward(retain_graph=True)
    b.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [18.0, 36.0])


def test_a_hybridized_block_on_a_freed_state():
    from minimx.gluon import nn
    net = nn.Dense(1, in_units=1, use_bias=False)
    net.initialize()
    net.weight.set_data(nd.array([[2.0]]))
    net.hybridize()
    state = nd.array([[1.0]])
    state.attach_grad()
    with autograd.record():
        hidden = net(state)
    hidden.backward()
    with autograd.record():
        again = net(hidden)                  # hidden's graph is freed: a constant input
    again.backward()
    np.testing.assert_allclose(net.weight.grad().asnumpy(), [[2.0]])


class _Square(autograd.Function):
    def forward(self, x):
        y = x * x
        self.save_for_backward(x, y)            # saves its own output: output -> node -> self
        return y

    def backward(self, dy):
        x, _ = self.saved_tensors
        return 2 * x * dy


@pytest.mark.parametrize("hybridize", [False, True])
def test_a_freed_graph_lets_its_saved_arrays_go_without_the_cycle_collector(hybridize):
    """A freed node drops what its function saved.  The outputs link to the node, and a
    CachedOp call (or a Function that saved its output) would otherwise wait, with every
    activation it kept, for Python's cycle collector: the heap grew by ~400 MB a step on a
    hybridized ResNet-18 until it ran."""
    from minimx.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    if hybridize:
        net.hybridize()
    x = nd.ones((3, 5))
    x.attach_grad()
    gc.collect()
    gc.disable()
    try:
        with autograd.record():
            y = net(x) if hybridize else _Square()(net(x))
            loss = y.sum()
        function = weakref.ref(y._autograd[0].function)     # the _Backward or the _Square
        loss.backward()
        y.wait_to_read()
        del y, loss
        assert function() is None
    finally:
        gc.enable()
