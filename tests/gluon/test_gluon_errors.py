"""Bad input to Gluon (issue 4): each mistake raises an MXNetError subclass whose message
names what is wrong and says what to do."""
import numpy as np
import pytest

import minimx as mx
from minimx import backend, nd
from minimx.base import MXNetError, NotImplementedForSymbol
from minimx.gluon import HybridBlock, nn
from minimx.gluon.parameter import DeferredInitializationError


def _two_dense(hybridize):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3), nn.Dense(2))
    net.initialize()
    if hybridize:
        net.hybridize()
    net(nd.ones((2, 4)))
    return net


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_unfit_input_names_layer_parameter_and_shapes(hybridize):
    net = _two_dense(hybridize)
    first = net[0]
    with pytest.raises(MXNetError) as info:
        net(nd.ones((2, 5)))
    message = str(info.value)
    assert f"'{first.name}'" in message
    assert first.weight.name in message
    assert "(3, 5)" in message and "(3, 4)" in message      # expected and held weight shapes
    assert "(2, 5)" in message                              # the given input
    assert "input shape" in message                         # says what to do
    assert net(nd.ones((1, 4))).shape == (1, 2)             # still works for fitting input


def test_unfit_input_to_a_conv_layer():
    conv = nn.Conv2D(3, kernel_size=3)
    conv.initialize()
    conv(nd.ones((1, 2, 5, 5)))
    with pytest.raises(MXNetError) as info:
        conv(nd.ones((1, 4, 5, 5)))
    message = str(info.value)
    for part in (f"'{conv.name}'", conv.weight.name, "(3, 4, 3, 3)", "(3, 2, 3, 3)",
                 "(1, 4, 5, 5)"):
        assert part in message


@pytest.fixture
def saved(tmp_path):
    """A saved two-layer network's file and its parameter values by structural name."""
    net = _two_dense(False)
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    return path, {key: p.data().asnumpy() for key, p in net._collect_params_with_prefix().items()}


def _fresh(units=(3, 2), in_units=4):
    net = nn.HybridSequential()
    with net.name_scope():
        for count in units:
            net.add(nn.Dense(count, in_units=in_units))
            in_units = count
    return net


def test_load_missing_entries_named_and_allow_missing(saved, tmp_path):
    path, values = saved
    bigger = _fresh(units=(3, 2, 5))
    with pytest.raises(MXNetError) as info:
        bigger.load_parameters(path)
    assert "2.weight" in str(info.value) and "2.bias" in str(info.value)
    assert "allow_missing" in str(info.value)
    bigger.initialize()
    bigger.load_parameters(path, allow_missing=True)
    np.testing.assert_array_equal(bigger[1].weight.data().asnumpy(), values["1.weight"])
    assert bigger[2].weight.data().shape == (5, 2)


def test_load_extra_entries_named_and_ignore_extra(saved):
    path, values = saved
    smaller = _fresh(units=(3,))
    with pytest.raises(MXNetError) as info:
        smaller.load_parameters(path)
    assert "1.weight" in str(info.value) and "1.bias" in str(info.value)
    assert "ignore_extra" in str(info.value)
    smaller.load_parameters(path, ignore_extra=True)
    np.testing.assert_array_equal(smaller[0].weight.data().asnumpy(), values["0.weight"])


def test_load_wrongly_shaped_entry_names_it(saved):
    path, _ = saved
    wrong = _fresh(in_units=6)
    with pytest.raises(MXNetError) as info:
        wrong.load_parameters(path)
    message = str(info.value)
    assert wrong[0].weight.name in message
    assert "(3, 6)" in message and "(3, 4)" in message


def test_reading_a_parameter_before_initialisation():
    layer = nn.Dense(3)
    with pytest.raises(MXNetError) as info:
        layer.weight.data()
    assert layer.weight.name in str(info.value) and "initialize" in str(info.value)
    layer.initialize()
    with pytest.raises(DeferredInitializationError) as info:
        layer.weight.data()
    assert "forward" in str(info.value) and "in_units" in str(info.value)
    layer(nd.ones((1, 2)))
    assert layer.weight.data().shape == (3, 2)


def test_reading_a_parameter_on_another_context():
    with backend.stand_in_gpus(1):
        layer = nn.Dense(3, in_units=2)
        layer.initialize(ctx=mx.cpu())
        with pytest.raises(MXNetError) as info:
            layer.weight.data(mx.gpu(0))
        message = str(info.value)
        assert layer.weight.name in message and "gpu(0)" in message and "cpu(0)" in message
        with pytest.raises(MXNetError):
            layer(nd.ones((1, 2), ctx=mx.gpu(0)))
        layer.reset_ctx(mx.gpu(0))
        assert layer(nd.ones((1, 2), ctx=mx.gpu(0))).context == mx.gpu(0)


class _BranchOnValue(HybridBlock):
    def hybrid_forward(self, F, x):
        if x.sum() > 0:
            return x * 2
        return x


class _UsesAsnumpy(HybridBlock):
    def hybrid_forward(self, F, x):
        return x * float(x.asnumpy().max())


@pytest.mark.parametrize("block_class, what", [(_BranchOnValue, "bool"),
                                               (_UsesAsnumpy, "asnumpy")])
def test_hybridizing_value_dependent_code(block_class, what):
    block = block_class()
    assert block(nd.ones((2,))).shape == (2,)          # fine imperatively
    block.hybridize()
    with pytest.raises(NotImplementedForSymbol) as info:
        block(nd.ones((2,)))
    assert isinstance(info.value, MXNetError)
    assert what in str(info.value) and "NDArray" in str(info.value)
