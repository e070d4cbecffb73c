"""Symbols have no values: NDArray-only calls raise NotImplementedForSymbol, as in MXNet."""
import pytest

import minimx as mx
from minimx import nd
from minimx.gluon import nn

VALUE_METHODS = ["asnumpy", "asscalar", "wait_to_read", "copy", "detach", "backward"]


def test_the_error_is_an_mxnet_error_naming_the_function():
    assert issubclass(mx.base.NotImplementedForSymbol, mx.base.MXNetError)
    error = mx.base.NotImplementedForSymbol(nd.zeros, "+=", 1)
    assert str(error) == ('Function zeros (namely operator "+=") with arguments '
                          "(<class 'int'>) is not implemented for Symbol and only available "
                          "in NDArray.")


def test_truth_value_of_a_symbol_is_refused():
    x = mx.sym.var("x")
    with pytest.raises(mx.base.NotImplementedForSymbol, match='__bool__ .*"bool"'):
        bool(x)
    with pytest.raises(mx.base.NotImplementedForSymbol):
        if x.sum() > 0:
            pass
    with pytest.raises(mx.base.NotImplementedForSymbol):
        not x  # noqa: B015


@pytest.mark.parametrize("method", VALUE_METHODS)
def test_value_methods_name_themselves(method):
    with pytest.raises(mx.base.NotImplementedForSymbol, match=f"^Function {method} is not"):
        getattr(mx.sym.var("x"), method)()


@pytest.mark.parametrize("statement, name", [("y += 1", "__iadd__"), ("y -= 1", "__isub__"),
                                             ("y *= y", "__imul__"),
                                             ("y /= 2", "__itruediv__")])
def test_in_place_arithmetic_is_refused(statement, name):
    namespace = {"y": mx.sym.var("x")}
    with pytest.raises(mx.base.NotImplementedForSymbol, match=name):
        exec(statement, namespace)


def test_power_and_modulo_assignments_make_new_symbols():
    y = mx.sym.var("x")
    y **= 2
    y %= 3
    assert y.eval(x=nd.array([4.0]))[0].asnumpy().tolist() == [1.0]


def test_symbols_still_iterate_over_their_outputs():
    group = mx.sym.Group([mx.sym.var("a"), mx.sym.var("b")])
    assert len(group) == 2 and [s.name for s in group] == ["a", "b"]


class Branching(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if x.sum() > 0:
            return x * 2
        return x


class Peeking(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        x.asnumpy()
        return x


@pytest.mark.parametrize("block_class, match", [(Branching, "__bool__"),
                                                (Peeking, "asnumpy")])
def test_hybridized_blocks_that_need_values_fail_clearly(block_class, match):
    block = block_class()
    x = nd.ones((2, 3))
    assert block(x).shape == (2, 3)         # imperative: x is an NDArray, all is fine
    block.hybridize()
    with pytest.raises(mx.base.NotImplementedForSymbol, match=match):
        block(x)
