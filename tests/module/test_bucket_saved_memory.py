"""Executors bound with ``shared_exec`` keep one forward's saved values between them, the
last one's (``Executor._claim_saved_memory``), as MXNet's share one memory pool: a
BucketingModule's buckets no longer each hold their last activations.  Results stay."""
import numpy as np

import minimx as mx
from minimx import nd


def _net():
    x = mx.sym.sum(mx.sym.var("data"), axis=1, keepdims=True)    # any length
    hidden = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=5, name="fc1"),
                               act_type="tanh")
    return mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(hidden, num_hidden=1,
                                                               name="fc2"), name="out")


def _filled(executor, seed):
    rng = np.random.RandomState(seed)
    for name, array in executor.arg_dict.items():
        array[:] = rng.rand(*array.shape)
    return executor


def test_a_backward_after_another_executors_forward_gives_its_own_gradients():
    net = _net()
    first = _filled(net.simple_bind(mx.cpu(), data=(4, 3)), 0)
    params = [name for name in net.list_arguments() if name.startswith("fc")]
    second = net.simple_bind(mx.cpu(), data=(2, 3), shared_exec=first,
                             shared_arg_names=params)
    second.arg_dict["data"][:] = np.ones((2, 3))
    reference = _filled(net.simple_bind(mx.cpu(), data=(4, 3)), 0)
    reference.forward(is_train=True)
    reference.backward()
    first.forward(is_train=True)
    second.forward(is_train=True)          # takes the shared memory: first lets go
    nd.waitall()
    assert first._saved == {} and second._saved
    first.backward()                       # runs first's forward again
    for name in params:
        np.testing.assert_array_equal(first.grad_dict[name].asnumpy(),
                                      reference.grad_dict[name].asnumpy())


def test_bucketing_module_buckets_hold_one_set_of_saved_values():
    def sym_gen(length):
        return _net(), ("data",), ("out_label",)

    module = mx.mod.BucketingModule(sym_gen, default_bucket_key=6)
    module.bind(data_shapes=[("data", (2, 6))], label_shapes=[("out_label", (2, 1))])
    module.init_params()
    module.init_optimizer()
    rng = np.random.RandomState(0)
    for length in (6, 3, 4, 3):
        batch = mx.io.DataBatch([nd.array(rng.rand(2, length))], [nd.array(rng.rand(2, 1))],
                                bucket_key=length,
                                provide_data=[mx.io.DataDesc("data", (2, length))],
                                provide_label=[mx.io.DataDesc("out_label", (2, 1))])
        module.forward_backward(batch)
        module.update()
    nd.waitall()
    holding = [key for key, bucket in module._buckets.items()
               if any(e._saved for e in bucket._exec_group.execs)]
    assert holding == [3]
