"""A training step by the lowered programs (``ForwardProgram(keep=True)`` and
``BackwardProgram``) must give what the interpreter (``run_forward``/``run_backward``)
gives, bit for bit: the same kernels in the same order, the sums of gradients meeting at
one value added in the same order.  A monitor makes an executor use the interpreter, so
two executors on copies of the same arrays, one with a monitor that does nothing, compare
the two paths."""
import numpy as np
import pytest

import minimx as mx
from minimx.executor.backward_program import BackwardProgram


def _mlp():
    x = mx.sym.var("data")
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=16, name="fc1"), act_type="relu")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=4, name="fc2"),
                                name="softmax")


def _cnn():
    x = mx.sym.var("data")
    x = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="conv")
    x = mx.sym.Activation(mx.sym.BatchNorm(x, name="bn"), act_type="relu")
    x = mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max")
    x = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=4, name="fc")
    return mx.sym.SoftmaxOutput(x, name="softmax")


def _shared():
    """A value read by three nodes (its gradient is a sum of three), a fused chain, a
    multi-output split, and two outputs (one a regression loss, one behind BlockGrad)."""
    x, w = mx.sym.var("data"), mx.sym.var("w")
    hidden = mx.sym.FullyConnected(x, w, no_bias=True, num_hidden=6, name="fc")
    chain = mx.sym.negative(mx.sym.exp(mx.sym.tanh(hidden)))
    halves = mx.sym.split(hidden, num_outputs=2, axis=1)
    row_sums = mx.sym.sum(chain, axis=1, keepdims=True) + mx.sym.sum(hidden, axis=1,
                                                                     keepdims=True)
    total = mx.sym.broadcast_add(row_sums, halves[0] * halves[1])
    return mx.sym.Group([mx.sym.LinearRegressionOutput(total, name="loss"),
                         mx.sym.BlockGrad(halves[1])])


CASES = {"mlp": (_mlp, {"data": (3, 8)}), "cnn": (_cnn, {"data": (2, 1, 6, 6)}),
         "shared": (_shared, {"data": (4, 5)})}


def _pair(builder, shapes, grad_req):
    """Two executors on equal arrays: the second runs the interpreter (a monitor)."""
    symbol = builder()
    executors = [symbol.simple_bind(mx.cpu(), grad_req=grad_req, **shapes) for _ in range(2)]
    rng = np.random.RandomState(0)
    for name, array in {**executors[0].arg_dict, **executors[0].aux_dict}.items():
        if name.endswith("label"):
            value = rng.randint(0, 4, array.shape)
        elif name.endswith("var"):
            value = rng.rand(*array.shape) + 0.5
        else:
            value = rng.randn(*array.shape)
        for executor in executors:
            target = {**executor.arg_dict, **executor.aux_dict}[name]
            target[:] = value
    executors[1].set_monitor_callback(lambda name, array: None)
    return executors


def _state(executor):
    arrays = [*executor.outputs, *executor.aux_arrays]
    arrays += [g for g in executor.grad_arrays if g is not None]
    return [array.asnumpy() for array in arrays]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_lowered_training_steps_equal_the_interpreter_bit_for_bit(case, grad_req):
    builder, shapes = CASES[case]
    lowered, interpreted = _pair(builder, shapes, grad_req)
    for step in range(3):
        for executor in (lowered, interpreted):
            executor.forward(is_train=True)
            if case == "shared":
                executor.backward([mx.nd.ones(executor.outputs[0].shape), None])
            else:
                executor.backward()
        for ours, reference in zip(_state(lowered), _state(interpreted)):
            np.testing.assert_array_equal(ours, reference, err_msg=f"{case}, step {step}")
    assert type(lowered._saved) is tuple, "the lowered path ran: (program, slots)"
    assert type(interpreted._saved) is dict and interpreted._saved, "the interpreter ran"
    program = lowered._backward_program[2]
    assert isinstance(program, BackwardProgram) and program.code


def test_predict_mode_forward_then_backward_and_in_place_changes_match():
    """backward after forward(is_train=False) re-runs forward keeping values (BatchNorm on
    its moving statistics), and a bound input changed in place before backward is read
    anew; both paths agree."""
    lowered, interpreted = _pair(_cnn, {"data": (2, 1, 6, 6)}, "write")
    for executor in (lowered, interpreted):
        executor.forward(is_train=False)
        executor.backward()
        executor.forward(is_train=True)
        executor.arg_dict["data"][:] = 0.5
        executor.outputs[0][:] = executor.outputs[0] * 2
        executor.backward()
    for ours, reference in zip(_state(lowered), _state(interpreted)):
        np.testing.assert_array_equal(ours, reference)


def test_a_program_backward_twice_after_one_forward_gives_the_same_gradients():
    lowered, _ = _pair(_mlp, {"data": (3, 8)}, "write")
    lowered.forward(is_train=True)
    lowered.backward()
    first = [g.asnumpy() for g in lowered.grad_arrays if g is not None]
    lowered.backward()
    second = [g.asnumpy() for g in lowered.grad_arrays if g is not None]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def _lenet_step(hooked):
    """Two Trainer steps of a hybridized LeNet-like block (BatchNorm included); with
    ``hooked`` an op hook makes its CachedOp run the interpreter."""
    mx.random.seed(7)
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3, activation="relu"), mx.gluon.nn.BatchNorm(),
            mx.gluon.nn.MaxPool2D(), mx.gluon.nn.Dense(8, activation="relu"),
            mx.gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    if hooked:
        net.register_op_hook(lambda name, op_name, array: None)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(5)
    data = mx.nd.array(rng.randn(4, 1, 8, 8))
    label = mx.nd.array(rng.randint(0, 3, 4))
    for _ in range(2):
        with mx.autograd.record():
            loss = loss_fn(net(data), label)
        loss.backward()
        trainer.step(4)
    entry = next(iter(net._cached_op._plans.values()))
    return ([p.data().asnumpy() for p in net.collect_params().values()],
            not hooked and entry.program is not None and bool(entry.backward_programs))


def test_a_hybridized_trainer_step_by_the_lowered_programs_equals_the_interpreter():
    lowered, used_program = _lenet_step(hooked=False)
    interpreted, _ = _lenet_step(hooked=True)
    assert used_program, "the recorded call should have run the lowered program"
    for ours, reference in zip(lowered, interpreted):
        np.testing.assert_array_equal(ours, reference)
