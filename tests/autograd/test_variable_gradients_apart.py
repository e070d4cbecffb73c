"""A layer's backward pushes its variables' gradients apart from the gradient of its data.

``OpDef.independent_grads`` (Convolution, Deconvolution, FullyConnected): when some of a
recorded call's gradients end at variables (a weight, a bias) and others flow on back,
autograd pushes two engine operations, so that the engine can run the first beside the rest
of the backward pass (``ndarray/dispatch.py``, ``_backward_parts``).  The gradients are the
same bits either way.
"""
import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd
from minimx.gluon import nn
from minimx.op.conv import ConvolutionBase
from minimx.op.nn import FullyConnected


def _pushes(step):
    events = []
    mx.engine.subscribe(events.append)
    try:
        step()
        nd.waitall()
    finally:
        mx.engine.unsubscribe(events.append)
    return [event.name for event in events if event.kind == "push"]


def _dense(data_in_graph):
    layer = nn.Dense(3)
    layer.initialize()
    inputs = nd.ones((2, 4))
    inputs.attach_grad()
    layer(inputs)

    def step():
        with autograd.record():
            out = layer(nd.relu(inputs) if data_in_graph else inputs)
        out.backward()
    return step


def test_a_layer_whose_data_flows_on_pushes_two_backward_operations():
    assert _pushes(_dense(True)).count("_backward_FullyConnected") == 2


def test_a_layer_whose_inputs_are_all_variables_pushes_one():
    assert _pushes(_dense(False)).count("_backward_FullyConnected") == 1


def _lenet_gradients():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, activation="relu"), nn.MaxPool2D(2, 2),
            nn.Conv2DTranspose(2, 3, strides=2), nn.Conv2D(3, 3, activation="relu"),
            nn.Dense(8, activation="relu"), nn.Dense(5))
    net.initialize(mx.init.Xavier(rnd_type="gaussian"))
    x = nd.array(np.random.RandomState(0).rand(4, 1, 12, 12).astype("float32"))
    label = nd.array([0, 1, 2, 3])
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    for _ in range(2):                      # deferred initialization on the first call
        with autograd.record():
            loss = loss_fn(net(x), label)
        loss.backward()
    return [param.grad().asnumpy() for param in net.collect_params().values()]


@pytest.mark.parametrize("engine", ["ThreadedEngine", "NaiveEngine"])
def test_the_gradients_are_the_same_bits_apart_or_together(monkeypatch, engine):
    with mx.engine.engine_type(engine):
        mx.random.seed(3)
        apart = _lenet_gradients()
        monkeypatch.setattr(ConvolutionBase, "independent_grads", False)
        monkeypatch.setattr(FullyConnected, "independent_grads", False)
        mx.random.seed(3)
        together = _lenet_gradients()
    assert len(apart) == len(together) == 10
    for index, (one, other) in enumerate(zip(apart, together)):
        assert one.tobytes() == other.tobytes(), index
