"""Every chunk owns its buffer: an output that *is* an input (an identity removed by the
planner, an op returning its argument, a gradient passed straight through) is copied, so
writing into one array in place never changes another."""
import numpy as np

import minimx as mx
from minimx import autograd, nd


def _separate(a, b):
    nd.waitall()
    return not np.shares_memory(a._chunk.data, b._chunk.data)


def test_hybridized_identity_output_is_not_the_input():
    net = mx.gluon.nn.HybridLambda(lambda F, x: F.identity(x))
    net.hybridize()
    x = nd.array([1., 2.])
    y = net(x)
    y = net(x)                      # the cached graph's path
    assert _separate(x, y)
    y[0] = 7
    np.testing.assert_array_equal(x.asnumpy(), [1., 2.])


def test_hybridized_recorded_identity_and_its_gradient_own_their_buffers():
    net = mx.gluon.nn.HybridLambda(lambda F, x: F.identity(x))
    net.hybridize()
    x = nd.array([1., 2.])
    x.attach_grad()
    head = nd.array([3., 4.])
    with autograd.record():
        y = net(x)
    y.backward(head)
    assert _separate(x, y) and _separate(x.grad, head)


def test_executor_forward_and_backward_do_not_share_the_callers_buffers():
    data = mx.sym.var("x")
    executor = mx.sym.identity(data).bind(mx.current_context(), {"x": nd.array([1., 2.])},
                                          args_grad={"x": nd.zeros((2,))})
    out = executor.forward()[0]
    assert _separate(out, executor.arg_dict["x"])
    executor.forward(is_train=True)
    head = nd.array([3., 4.])
    executor.backward([head])
    assert _separate(executor.grad_dict["x"], head)
    head[:] = 0
    np.testing.assert_array_equal(executor.grad_dict["x"].asnumpy(), [3., 4.])


def test_autograd_grad_of_a_pass_through_is_not_the_head_gradient():
    a = nd.array([1., 2.])
    a.attach_grad()
    head = nd.array([5., 6.])
    with autograd.record():
        b = nd.identity(a)
    (grad,) = autograd.grad(b, [a], head_grads=head)
    assert _separate(grad, head)


def test_a_folded_constant_output_is_copied_for_every_call():
    """The planner computes ``ones * 2`` once; each call must hand out its own copy."""
    class TwoOutputs(mx.gluon.nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x + 1, F.ones((2,)) * 2

    net = TwoOutputs()
    net.hybridize()
    x = nd.ones((2,))
    _, constant = net(x)
    _, constant = net(x)
    constant[:] = 7
    np.testing.assert_array_equal(net(x)[1].asnumpy(), [2., 2.])

    data = mx.sym.var("x")
    executor = mx.sym.Group([data + 1, mx.sym.ones((2,)) * 2]).bind(
        mx.current_context(), {"x": nd.ones((2,))})
    executor.forward()[1][:] = 9
    np.testing.assert_array_equal(executor.forward()[1].asnumpy(), [2., 2.])


def test_a_view_of_an_input_is_copied_a_view_of_a_fresh_temporary_is_kept():
    """``_write`` keeps a whole-buffer view of a temporary nothing else holds (relu's rows
    reshaped back), and copies a view of an input's buffer (Flatten's reshape)."""
    x = nd.array(np.arange(-24., 24.).reshape(2, 3, 8))
    flat = nd.Flatten(x)
    assert _separate(x, flat)
    flat[0] = 7
    np.testing.assert_array_equal(x.asnumpy().reshape(2, 24)[0], np.arange(-24., 0.))

    big = nd.array(np.linspace(-1, 1, 64 * 6 * 24 * 24, dtype=np.float32).reshape(64, 6, 24, 24))
    y = nd.Activation(big, act_type="relu")
    nd.waitall()
    assert _separate(big, y)
    np.testing.assert_array_equal(y.asnumpy(), np.maximum(big.asnumpy(), 0))


def test_write_copies_a_view_unless_it_is_the_sole_owner_of_its_memory():
    from minimx.ndarray.ndarray import _sole_view
    fresh = _sole_view(np.zeros(12, np.float32).reshape(3, 4))     # (outside the assert:
    assert fresh                                    # pytest's rewriting keeps the temporary)
    kept = np.zeros(12, np.float32)                  # someone else holds the base
    assert not _sole_view(kept.reshape(3, 4))
    assert not _sole_view(np.zeros(12, np.float32)[:6])         # part of a buffer
    frozen = np.zeros(12, np.float32)
    frozen.flags.writeable = False
    assert not _sole_view(frozen.reshape(3, 4))
    target = nd.zeros((3, 4))
    target._write(kept.reshape(3, 4))
    assert not np.shares_memory(target._chunk.data, kept)
