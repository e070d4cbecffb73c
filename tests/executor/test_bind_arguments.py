"""simple_bind and bind take every MXNet argument, each with MXNet's meaning or a clear refusal."""
import numpy as np
import pytest

import minimx as mx
from minimx.base import MXNetError


def fc():
    return mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")


def test_shared_arg_names_share_the_arrays_of_shared_exec():
    first = fc().simple_bind(mx.cpu(), data=(4, 3))
    first.arg_dict["fc_weight"][:] = 1
    buffer = {}
    second = fc().simple_bind(mx.cpu(), data=(5, 3), shared_arg_names=["fc_weight", "fc_bias"],
                              shared_exec=first, shared_buffer=buffer)
    assert second.arg_dict["fc_weight"].asnumpy().sum() == 6
    first.arg_dict["fc_weight"][:] = 2
    first.grad_dict["fc_weight"][:] = 3
    assert second.arg_dict["fc_weight"].asnumpy().sum() == 12      # the same array
    assert second.grad_dict["fc_weight"].asnumpy().sum() == 18
    # as in MXNet, the arguments that were not shared went into the buffer (by its keys)
    assert sorted(buffer) == ["data", "grad of data"]
    assert second.arg_dict["data"].shape == (5, 3)


def test_a_shared_buffer_is_reused_when_the_shape_fits():
    buffer = {}
    first = fc().simple_bind(mx.cpu(), data=(4, 3), shared_buffer=buffer)
    again = fc().simple_bind(mx.cpu(), data=(4, 3), shared_buffer=buffer)
    other = fc().simple_bind(mx.cpu(), data=(6, 3), shared_buffer=buffer)
    assert again.arg_dict["data"] is first.arg_dict["data"]
    assert other.arg_dict["data"] is not first.arg_dict["data"]
    assert buffer["data"].shape == (6, 3)
    assert again.arg_dict["fc_weight"] is first.arg_dict["fc_weight"]


def test_a_shared_name_of_another_shape_gets_its_own_array():
    first = fc().simple_bind(mx.cpu(), data=(4, 3))
    wider = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    second = wider.simple_bind(mx.cpu(), data=(4, 5), shared_arg_names=["fc_weight"],
                               shared_exec=first)
    assert second.arg_dict["fc_weight"].shape == (2, 5)


def test_stype_dict_gives_arguments_their_storage_and_refuses_unknown_ones():
    # MXNet 1.9.1 binds a csr argument (FullyConnected reads it through its dense fallback)
    fc().simple_bind(mx.cpu(), data=(4, 3), stype_dict={"data": "default"})
    bound = fc().simple_bind(mx.cpu(), data=(4, 3), stype_dict={"data": "csr"})
    assert bound.arg_dict["data"].stype == "csr"
    with pytest.raises(MXNetError, match=r"unknown storage type 'cs'"):
        fc().simple_bind(mx.cpu(), data=(4, 3), stype_dict={"data": "cs"})


@pytest.mark.parametrize("how", ["simple_bind", "bind"])
def test_group2ctx_on_cpus_runs_and_on_another_device_type_is_refused(how):
    x = mx.nd.ones((4, 3), ctx=mx.cpu())                        # groups of cpu devices
    w, b = mx.nd.ones((2, 3), ctx=mx.cpu()), mx.nd.zeros((2,), ctx=mx.cpu())

    def make(group2ctx):
        if how == "simple_bind":
            return fc().simple_bind(mx.cpu(), data=(4, 3), group2ctx=group2ctx)
        return fc().bind(mx.cpu(), {"data": x, "fc_weight": w, "fc_bias": b},
                         group2ctx=group2ctx)

    executor = make({"dev1": mx.cpu(0), "dev2": mx.cpu(1)})     # MXNet 1.9.1 runs this too
    if how == "bind":
        np.testing.assert_allclose(executor.forward()[0].asnumpy(), np.full((4, 2), 3.0))
    with pytest.raises(MXNetError, match=rf"{how}: group2ctx places node groups on \['gpu\(0\)'\]"):
        make({"dev1": mx.cpu(0), "dev2": mx.gpu(0)})


def test_bind_with_shared_exec_computes_the_same():
    args = {"data": mx.nd.ones((4, 3)), "fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.ones(2)}
    first = fc().bind(mx.current_context(), args)
    second = fc().bind(mx.current_context(), args, shared_exec=first)
    np.testing.assert_allclose(second.forward()[0].asnumpy(), first.forward()[0].asnumpy())
