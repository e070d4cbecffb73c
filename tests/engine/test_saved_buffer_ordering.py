"""A backward step reads the input buffers its forward saved: a later in-place write to an
input must wait for it, on the ThreadedEngine too (MXNet's engine orders them the same way).

Each test holds the backward step behind a gate (it reads the head gradient, which a blocked
operation writes), writes the input in place meanwhile, and then opens the gate: the gradient
must be the one of the data the forward saw.
"""
import threading

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, engine, nd


@pytest.fixture
def gated_head():
    """(head gradient array, open()): the array is written by an operation blocked on a gate."""
    gate = threading.Event()
    with engine.engine_type("ThreadedEngine"):
        head = nd.ones((1, 2))
        engine.push(lambda: gate.wait(10), [], [head._chunk.var], mx.cpu(), "gate")
        yield head, gate.set
        gate.set()
        nd.waitall()


def test_executor_backward_reads_the_data_the_forward_saw(gated_head):
    head, release = gated_head
    x, w = mx.sym.var("x"), mx.sym.var("w")
    executor = mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=2).bind(
        mx.current_context(), {"x": nd.ones((1, 3)), "w": nd.ones((2, 3))},
        args_grad={"x": nd.zeros((1, 3)), "w": nd.zeros((2, 3))})
    executor.forward(is_train=True)
    executor.backward([head])
    executor.arg_dict["x"][:] = 100            # the next batch, written in place
    release()
    np.testing.assert_array_equal(executor.grad_dict["w"].asnumpy(), np.ones((2, 3)))


def test_hybridized_backward_reads_the_data_the_forward_saw(gated_head):
    head, release = gated_head
    net = mx.gluon.nn.Dense(2, use_bias=False, in_units=3, weight_initializer="ones")
    net.initialize()
    net.hybridize()
    x = nd.ones((1, 3))
    with autograd.record():
        y = net(x)
    y.backward(head)
    x[:] = 100
    release()
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), np.ones((2, 3)))
