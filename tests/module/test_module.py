"""mx.mod.Module on one device: the four states, fit and its callbacks, score/predict,
parameters, checkpoints, reshape, monitor, and clear errors on bad input."""
import logging
import os
import re

import numpy as np
import pytest

import minimx as mx
from minimx.base import MXNetError

from module_cases import mlp, numpy_mlp, numpy_params, separable


def bound_module(batch=4, features=4, **kwargs):
    mod = mx.mod.Module(mlp(), **kwargs)
    mod.bind(data_shapes=[("data", (batch, features))],
             label_shapes=[("softmax_label", (batch,))])
    mod.init_params(mx.init.Xavier())
    return mod


# -- states and one training step ---------------------------------------------------------
def test_states_names_and_shapes():
    mod = mx.mod.Module(mlp())
    assert (mod.binded, mod.params_initialized, mod.optimizer_initialized) == (False,) * 3
    assert mod.data_names == ["data"] and mod.label_names == ["softmax_label"]
    assert mod.output_names == ["softmax_output"]
    mod.bind(data_shapes=[("data", (5, 4))], label_shapes=[("softmax_label", (5,))])
    assert mod.binded and not mod.params_initialized
    assert mod.data_shapes[0].shape == (5, 4) and mod.label_shapes[0].name == "softmax_label"
    assert mod.output_shapes == [("softmax_output", (5, 3))]
    mod.init_params()
    mod.init_optimizer()
    assert mod.params_initialized and mod.optimizer_initialized
    args, aux = mod.get_params()
    assert sorted(args) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"] and aux == {}
    # MXNet makes them with nd.zeros, on the current context (cpu(0) unless a test sets one)
    assert all(value.context == mx.current_context() for value in args.values())


def test_one_sgd_step_matches_numpy():
    x, y = separable(n=4)
    mod = bound_module()
    before = numpy_params(mod)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    mod.forward(batch, is_train=True)
    probs = mod.get_outputs()[0].asnumpy()
    np.testing.assert_allclose(probs, numpy_mlp(before, x), rtol=1e-5, atol=1e-6)
    mod.backward()
    mod.update()
    # softmax cross-entropy gradient, by hand; Module's rescale_grad is 1 / batch_size
    head = probs - np.eye(3)[y.astype(int)]
    hidden = np.maximum(x @ before["fc1_weight"].T + before["fc1_bias"], 0)
    grad_fc2_w = head.T @ hidden
    grad_hidden = (head @ before["fc2_weight"]) * (hidden > 0)
    grad_fc1_w = grad_hidden.T @ x
    after = numpy_params(mod)
    np.testing.assert_allclose(after["fc2_weight"], before["fc2_weight"] - 0.5 / 4 * grad_fc2_w,
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(after["fc1_weight"], before["fc1_weight"] - 0.5 / 4 * grad_fc1_w,
                               rtol=1e-4, atol=1e-6)


def test_fixed_params_do_not_move_and_input_grads():
    mod = mx.mod.Module(mlp(), fixed_param_names=["fc1_weight"])
    mod.bind(data_shapes=[("data", (4, 4))], label_shapes=[("softmax_label", (4,))],
             inputs_need_grad=True)
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0})
    before = numpy_params(mod)
    x, y = separable(n=4)
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    mod.update()
    after = numpy_params(mod)
    np.testing.assert_array_equal(after["fc1_weight"], before["fc1_weight"])
    assert not np.allclose(after["fc2_weight"], before["fc2_weight"])
    head = numpy_mlp(before, x) - np.eye(3)[y.astype(int)]
    hidden = x @ before["fc1_weight"].T + before["fc1_bias"]
    expected = ((head @ before["fc2_weight"]) * (hidden > 0)) @ before["fc1_weight"]
    np.testing.assert_allclose(mod.get_input_grads()[0].asnumpy(), expected, rtol=1e-4,
                               atol=1e-6)


def test_backward_with_head_gradients_on_a_loss_free_graph():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, no_bias=True, name="fc")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[("data", (3, 4))], inputs_need_grad=True)
    mod.init_params(mx.init.Normal(1.0))
    x = np.random.rand(3, 4).astype(np.float32)
    head = np.random.rand(3, 2).astype(np.float32)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=True)
    mod.backward([mx.nd.array(head)])
    weight = mod.get_params()[0]["fc_weight"].asnumpy()
    np.testing.assert_allclose(mod.get_input_grads()[0].asnumpy(), head @ weight, rtol=1e-5)
    grad = mod._exec_group.grad_arrays[0][0].asnumpy()
    np.testing.assert_allclose(grad, head.T @ x, rtol=1e-5)


# -- fit ----------------------------------------------------------------------------------
def test_fit_learns_and_calls_back_as_mxnet(caplog):
    caplog.set_level(logging.INFO)
    x, y = separable()
    train = mx.io.NDArrayIter(x[:40], y[:40], batch_size=8, shuffle=True)
    val = mx.io.NDArrayIter(x[40:], y[40:], batch_size=8)
    batches, epochs = [], []

    def on_batch(param):
        batches.append((param.epoch, param.nbatch, type(param.eval_metric).__name__,
                        isinstance(param.locals, dict)))

    def on_epoch(epoch, symbol, arg_params, aux_params):
        epochs.append((epoch, symbol.list_outputs(), sorted(arg_params), aux_params))

    mod = mx.mod.Module(mlp())
    mod.fit(train, eval_data=val, num_epoch=3, batch_end_callback=on_batch,
            epoch_end_callback=[on_epoch], initializer=mx.init.Xavier(), progress=False,
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    assert batches == [(e, b, "Accuracy", True) for e in range(3) for b in range(5)]
    assert [e[0] for e in epochs] == [0, 1, 2]
    assert epochs[0][1:] == (["softmax_output"], ["fc1_bias", "fc1_weight", "fc2_bias",
                                                  "fc2_weight"], {})
    lines = [record.getMessage() for record in caplog.records]
    for epoch in range(3):
        assert any(re.fullmatch(rf"Epoch\[{epoch}\] Train-accuracy=\d\.\d{{6}}", m)
                   for m in lines)
        assert any(re.fullmatch(rf"Epoch\[{epoch}\] Time cost=\d+\.\d{{3}}", m) for m in lines)
        assert any(re.fullmatch(rf"Epoch\[{epoch}\] Validation-accuracy=\d\.\d{{6}}", m)
                   for m in lines)
    assert dict(mod.score(val, "acc"))["accuracy"] >= 0.9


def test_fit_needs_num_epoch_and_keeps_state_on_a_second_call():
    x, y = separable(n=16)
    train = mx.io.NDArrayIter(x, y, batch_size=8)
    mod = mx.mod.Module(mlp())
    with pytest.raises(ValueError, match="number of epochs"):
        mod.fit(train)
    mod.fit(train, num_epoch=1, progress=False)
    params = numpy_params(mod)
    with pytest.warns(UserWarning, match="already initialized"):
        mod.fit(train, num_epoch=1, begin_epoch=0, progress=False)
    assert not np.allclose(numpy_params(mod)["fc1_weight"], params["fc1_weight"])


def test_fit_with_monitor_collects_statistics():
    x, y = separable(n=16)
    mon = mx.mon.Monitor(1, pattern="fc1_output")
    seen = []
    mon.toc_print = lambda: seen.extend(name for _, name, _ in mon.toc())
    mod = mx.mod.Module(mlp())
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=1, monitor=mon, progress=False)
    assert seen == ["fc1_output", "fc1_output"]


# -- score, predict, iter_predict ---------------------------------------------------------
def test_predict_removes_padding_and_merges_batches():
    x, y = separable(n=10)
    mod = bound_module(batch=4)
    it = mx.io.NDArrayIter(x, y, batch_size=4)          # 4 + 4 + 2 (padded with 2)
    expected = numpy_mlp(numpy_params(mod), x)
    merged = mod.predict(it)
    np.testing.assert_allclose(merged.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    per_batch = mod.predict(it, merge_batches=False)
    assert [len(outputs) for outputs in per_batch] == [1, 1, 1]
    assert [outputs[0].shape[0] for outputs in per_batch] == [4, 4, 2]
    assert isinstance(mod.predict(it, always_output_list=True), list)
    assert mod.predict(it, num_batch=1).shape == (4, 3)
    shapes = [(nbatch, outputs[0].shape) for outputs, nbatch, _ in mod.iter_predict(it)]
    assert shapes == [(0, (4, 3)), (1, (4, 3)), (2, (2, 3))]
    np.testing.assert_allclose(mod.predict(x[:4]).asnumpy(), expected[:4], rtol=1e-5,
                               atol=1e-6)


def test_score_with_several_metrics_and_callbacks():
    x, y = separable(n=12)
    mod = bound_module(batch=4)
    it = mx.io.NDArrayIter(x, y, batch_size=4)
    probs = numpy_mlp(numpy_params(mod), x)
    ends = []
    result = dict(mod.score(it, ["acc", "ce"], score_end_callback=ends.append))
    assert result["accuracy"] == pytest.approx(np.mean(probs.argmax(1) == y))
    expected_ce = -np.mean(np.log(probs[np.arange(12), y.astype(int)]))
    assert result["cross-entropy"] == pytest.approx(expected_ce, rel=1e-4)
    assert ends[0].nbatch == 3


# -- parameters and checkpoints -----------------------------------------------------------
def test_init_params_from_given_values_and_missing_ones():
    mod = mx.mod.Module(mlp())
    mod.bind(data_shapes=[("data", (2, 4))], label_shapes=[("softmax_label", (2,))])
    given = {"fc1_weight": mx.nd.ones((8, 4))}
    with pytest.raises(RuntimeError, match="fc1_bias"):
        mod.init_params(arg_params=given)
    mod.init_params(mx.init.Constant(0.25), arg_params=given, allow_missing=True)
    params = numpy_params(mod)
    np.testing.assert_array_equal(params["fc1_weight"], 1.0)
    np.testing.assert_array_equal(params["fc2_weight"], 0.25)
    np.testing.assert_array_equal(params["fc2_bias"], 0.0)     # biases start at zero
    with pytest.warns(UserWarning, match="already initialized"):
        mod.init_params()
    mod.set_params({**mod.get_params()[0], "fc2_bias": mx.nd.ones((3,)) * 7}, {})
    np.testing.assert_array_equal(numpy_params(mod)["fc2_bias"], 7.0)
    with pytest.raises(MXNetError, match="shape"):
        mod.set_params({**mod.get_params()[0], "fc2_bias": mx.nd.ones((4,))}, {})


def test_checkpoint_round_trip_with_optimizer_states(tmp_path):
    x, y = separable(n=16)
    train = mx.io.NDArrayIter(x, y, batch_size=8)
    mod = mx.mod.Module(mlp())
    mod.fit(train, num_epoch=2, optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
            progress=False)
    prefix = str(tmp_path / "net")
    mod.save_checkpoint(prefix, 2, save_optimizer_states=True)
    assert sorted(os.listdir(tmp_path)) == ["net-0002.params", "net-0002.states",
                                            "net-symbol.json"]
    with open(prefix + "-0002.states", "rb") as stream:
        assert stream.read(1) != b"\x80"                  # not a pickle
    loaded = mx.mod.Module.load(prefix, 2, load_optimizer_states=True)
    loaded.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
    loaded.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    for module in (mod, loaded):                 # the same next step, momentum included
        module.forward_backward(next(iter(train)))
        module.update()
        train.reset()
    for name, value in numpy_params(mod).items():
        np.testing.assert_allclose(numpy_params(loaded)[name], value, rtol=1e-6, atol=1e-7)


def test_a_crash_while_saving_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    mod = bound_module()
    prefix = str(tmp_path / "net")
    mod.save_checkpoint(prefix, 1)
    good = (tmp_path / "net-0001.params").read_bytes()
    mod.init_params(mx.init.Constant(3.0), force_init=True)

    def crash(source, target):
        if target.endswith(".params"):
            raise OSError(28, "No space left on device")
        _real_replace(source, target)
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(MXNetError, match="cannot save .*net-0001.params.*No space left"):
        mod.save_checkpoint(prefix, 1)
    assert (tmp_path / "net-0001.params").read_bytes() == good
    assert sorted(os.listdir(tmp_path)) == ["net-0001.params", "net-symbol.json"]


_real_replace = os.replace


# -- shapes that change -------------------------------------------------------------------
def test_a_smaller_batch_rebinds_and_shares_parameters():
    mod = bound_module(batch=4)
    x, _ = separable(n=4)
    mod.forward(mx.io.DataBatch([mx.nd.array(x[:3])]), is_train=False)
    assert mod.get_outputs()[0].shape == (3, 3)
    assert mod.data_shapes[0].shape == (3, 4)
    expected = numpy_mlp(numpy_params(mod), x)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), expected[:3], rtol=1e-5,
                               atol=1e-6)
    mod.reshape([("data", (4, 4))], [("softmax_label", (4,))])
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), expected, rtol=1e-5,
                               atol=1e-6)


# -- bad input ----------------------------------------------------------------------------
class LyingIter(mx.io.DataIter):
    """Says its batches are (4, 4) but yields (4, 5)."""

    def __init__(self):
        super().__init__(batch_size=4)
        self.provide_data = [mx.io.DataDesc("data", (4, 4))]
        self.provide_label = [mx.io.DataDesc("softmax_label", (4,))]
        self.done = False

    def reset(self):
        self.done = False

    def next(self):
        if self.done:
            raise StopIteration
        self.done = True
        return mx.io.DataBatch([mx.nd.ones((4, 5))], [mx.nd.zeros((4,))])


def test_a_batch_that_disagrees_with_provide_data_names_both_shapes():
    mod = mx.mod.Module(mlp())
    with pytest.raises(MXNetError) as error:
        mod.fit(LyingIter(), num_epoch=1, progress=False)
    message = str(error.value)
    assert "'data'" in message and "(4, 5)" in message and "(4, 4)" in message


def test_a_batch_whose_own_provide_data_is_wrong():
    mod = bound_module()
    batch = mx.io.DataBatch([mx.nd.ones((4, 4))],
                            provide_data=[mx.io.DataDesc("data", (4, 6))])
    with pytest.raises(MXNetError, match=r"'data'.*\(4, 4\).*\(4, 6\)"):
        mod.forward(batch)
    with pytest.raises(MXNetError, match="2 data arrays"):
        mod.forward(mx.io.DataBatch([mx.nd.ones((4, 4)), mx.nd.ones((4, 4))]))


def test_wrong_names_and_order_of_calls():
    with pytest.raises(ValueError, match="'image'.*Did you mean"):
        mx.mod.Module(mlp(), data_names=["image"])
    with pytest.warns(UserWarning, match="'label'"):
        mx.mod.Module(mlp(), label_names=["label"])
    mod = mx.mod.Module(mlp())
    with pytest.raises(ValueError, match="don't match names"):
        mod.bind(data_shapes=[("pixels", (2, 4))])
    with pytest.raises(MXNetError, match="bind"):
        mod.init_params()
    mod.bind(data_shapes=[("data", (2, 4))], label_shapes=[("softmax_label", (2,))])
    with pytest.raises(MXNetError, match="init_params"):
        mod.init_optimizer()
    mod.init_params()
    with pytest.raises(MXNetError, match="init_optimizer"):
        mod.update()
    with pytest.raises(MXNetError, match="optimizer"):
        mod.init_optimizer(optimizer="no-such-optimizer")
