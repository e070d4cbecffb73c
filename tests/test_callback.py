"""mx.callback and mx.model: log lines, the seed's Speedometer, checkpoints both ways."""
import json
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import minimx as mx
from minimx.base import FileFormatError, MXNetError
from minimx.model import BatchEndParam

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "fixtures"))
import callback_driver  # noqa: E402
import make_checkpoint_fixture as fixture  # noqa: E402


@pytest.fixture
def clock(monkeypatch):
    fake = callback_driver.FakeTime(50.0)
    monkeypatch.setattr(mx.callback, "time", fake)
    return fake


def messages(caplog):
    return [record.getMessage() for record in caplog.records]


def test_batch_end_param_is_mxnets_namedtuple():
    param = BatchEndParam(epoch=1, nbatch=2, eval_metric=None, locals={"x": 1})
    assert type(param).__name__ == "BatchEndParams"
    assert param._fields == ("epoch", "nbatch", "eval_metric", "locals")
    assert param.nbatch == 2


# -- Speedometer and the other logging callbacks --------------------------------------------
def test_speedometer_lines(clock, caplog):
    caplog.set_level(logging.INFO)
    acc = mx.metric.Accuracy()
    speedometer = mx.callback.Speedometer(batch_size=4, frequent=2)
    for nbatch, elapsed in enumerate([0.0, 1.0, 1.0, 0.5, 1.5]):
        clock.now += elapsed
        acc.update([mx.nd.array([0, 1])], [mx.nd.array([[1, 0], [1, 0]])])   # 1 of 2
        speedometer(BatchEndParam(0, nbatch, acc, None))
    # batch 0 starts the clock; batches 2 and 4 log 2 batches x 4 samples over 2 seconds
    assert messages(caplog) == [
        "Epoch[0] Batch [0-2]\tSpeed: 4.00 samples/sec\taccuracy=0.500000",
        "Epoch[0] Batch [2-4]\tSpeed: 4.00 samples/sec\taccuracy=0.500000"]
    assert acc.num_inst == 0 and acc.global_num_inst == 10       # auto_reset: reset_local


def test_speedometer_restarts_each_epoch_and_without_auto_reset(clock, caplog):
    caplog.set_level(logging.INFO)
    acc = mx.metric.Accuracy()
    speedometer = mx.callback.Speedometer(batch_size=10, frequent=1, auto_reset=False)
    for epoch in range(2):
        for nbatch in range(2):
            clock.now += 2.0
            acc.update([mx.nd.array([1])], [mx.nd.array([[0, 1]])])
            speedometer(BatchEndParam(epoch, nbatch, acc, None))
    assert messages(caplog) == [
        "Epoch[0] Batch [0-1]\tSpeed: 5.00 samples/sec\taccuracy=1.000000",
        "Epoch[1] Batch [0-1]\tSpeed: 5.00 samples/sec\taccuracy=1.000000"]
    assert acc.num_inst == 4


def test_speedometer_without_metric_and_with_a_frozen_clock(clock, caplog):
    caplog.set_level(logging.INFO)
    speedometer = mx.callback.Speedometer(batch_size=3, frequent=1)
    speedometer(BatchEndParam(2, 0, None, None))
    speedometer(BatchEndParam(2, 1, None, None))                # no time passed
    assert messages(caplog) == ["Iter[2] Batch [1]\tSpeed: inf samples/sec"]


def test_log_train_metric_progress_bar_and_validation_lines(caplog):
    caplog.set_level(logging.INFO)
    acc = mx.metric.Accuracy()
    acc.update([mx.nd.array([0, 1])], [mx.nd.array([0, 0])])
    mx.callback.log_train_metric(period=2, auto_reset=True)(BatchEndParam(1, 4, acc, None))
    assert acc.num_inst == 0
    mx.callback.ProgressBar(total=3, length=6)(BatchEndParam(0, 1, None, None))
    acc.update([mx.nd.array([1])], [mx.nd.array([1])])
    mx.callback.LogValidationMetricsCallback()(BatchEndParam(3, 0, acc, None))
    assert messages(caplog) == ["Iter[1] Batch[4] Train-accuracy=0.500000",
                                "[==----] 34%\r",
                                "Epoch[3] Validation-accuracy=1.000000"]


def test_callback_lines_match_mxnet(mxnet_python):
    lines = callback_driver.drive(mx)
    assert len(lines) > 10 and any("Speed" in line for line in lines)
    finished = subprocess.run([mxnet_python, os.path.join(HERE, "callback_driver.py")],
                              capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert lines == json.loads(finished.stdout.strip().splitlines()[-1])


# -- the seed's Speedometer (section 7.1), its two typos fixed ------------------------------
class SeedSpeedometer:
    def __init__(self, batch_size, frequent=50):
        self.batch_size = batch_size        # the seed writes self.bach_size here
        self.frequent = frequent
        self.init = False
        self.tic = 0
        self.last_cont = 0

    def __call__(self, param):
        cont = param.nbatch
        if self.last_cont > cont:
            self.init = False
        self.last_cont = cont
        if self.init:
            if cont % self.frequent == 0:
                speed = self.frequent * self.batch_size / (time.time() - self.tic)
                logging.info('Iter[%d] Batch [%d] \tSpeed: %.2f samples/sec',
                             param.epoch, cont, speed)
        else:
            self.init = True
            self.tic = time.time()


time = None     # the seed's module-level ``time``; each test installs a fake clock


def test_seed_speedometer_driven_by_batch_end_param(monkeypatch, caplog):
    fake = callback_driver.FakeTime(10.0)
    monkeypatch.setattr(sys.modules[__name__], "time", fake)
    caplog.set_level(logging.INFO)
    speedometer = SeedSpeedometer(batch_size=8, frequent=2)
    for nbatch in range(5):
        fake.now += 1.0
        speedometer(BatchEndParam(epoch=0, nbatch=nbatch, eval_metric=None, locals=locals()))
    # the seed never restarts its clock after logging: batch 4 divides by 4 seconds
    assert messages(caplog) == ["Iter[0] Batch [2] \tSpeed: 8.00 samples/sec",
                                "Iter[0] Batch [4] \tSpeed: 4.00 samples/sec"]


# -- checkpoints ------------------------------------------------------------------------------
def fixture_params():
    arg_params, aux_params = fixture.expected_params()
    return ({k: mx.nd.array(v) for k, v in arg_params.items()},
            {k: mx.nd.array(v) for k, v in aux_params.items()})


def forward(symbol, arg_params, aux_params, data):
    args = dict(arg_params, data=mx.nd.array(data), softmax_label=mx.nd.zeros((len(data),)))
    return symbol.bind(mx.cpu(), args, aux_states=aux_params).forward(is_train=False)[0]


def test_do_checkpoint_round_trip(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    prefix = str(tmp_path / "net")
    net = fixture.network(mx.sym)
    arg_params, aux_params = fixture_params()
    callback = mx.callback.do_checkpoint(prefix, period=2)
    callback(0, net, arg_params, aux_params)
    assert os.listdir(tmp_path) == []
    callback(1, net, arg_params, aux_params)
    assert sorted(os.listdir(tmp_path)) == ["net-0002.params", "net-symbol.json"]
    assert messages(caplog) == [f'Saved checkpoint to "{prefix}-0002.params"']
    symbol, args, aux = mx.model.load_checkpoint(prefix, 2)
    assert symbol.tojson() == net.tojson()
    assert sorted(args) == sorted(arg_params) and sorted(aux) == sorted(aux_params)
    for name, value in {**arg_params, **aux_params}.items():
        np.testing.assert_array_equal({**args, **aux}[name].asnumpy(),
                                      value.asnumpy())


def test_module_checkpoint_calls_the_module():
    class FakeModule:
        calls = []

        def save_checkpoint(self, prefix, epoch, save_optimizer_states):
            self.calls.append((prefix, epoch, save_optimizer_states))
    module = FakeModule()
    callback = mx.callback.module_checkpoint(module, "m", period=3, save_optimizer_states=True)
    for epoch in range(6):
        callback(epoch)
    assert module.calls == [("m", 3, True), ("m", 6, True)]


def test_failed_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    prefix = str(tmp_path / "net")
    arg_params, aux_params = fixture_params()
    mx.model.save_checkpoint(prefix, 1, None, arg_params, aux_params)
    good = (tmp_path / "net-0001.params").read_bytes()

    def crash(source, target):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(mx.model.os, "replace", crash)
    with pytest.raises(MXNetError, match="net-0001.params.*No space left"):
        mx.model.save_checkpoint(prefix, 1, None, {"w": mx.nd.zeros((9,))}, {})
    assert (tmp_path / "net-0001.params").read_bytes() == good
    assert os.listdir(tmp_path) == ["net-0001.params"]          # no temporary file left


def test_load_params_rejects_unprefixed_names(tmp_path):
    mx.nd.save(str(tmp_path / "g-0001.params"), {"weight": mx.nd.ones((2,))})
    with pytest.raises(FileFormatError, match="'weight' has no 'arg:' or 'aux:' prefix"):
        mx.model.load_params(str(tmp_path / "g"), 1)


def test_load_checkpoint_written_by_mxnet():
    symbol, args, aux = mx.model.load_checkpoint(fixture.PREFIX, fixture.EPOCH)
    expected_args, expected_aux = fixture.expected_params()
    assert symbol.list_arguments() == ["data", "fc1_weight", "fc1_bias", "bn1_gamma",
                                       "bn1_beta", "fc2_weight", "fc2_bias", "softmax_label"]
    assert symbol.list_auxiliary_states() == ["bn1_moving_mean", "bn1_moving_var"]
    assert sorted(args) == sorted(expected_args) and sorted(aux) == sorted(expected_aux)
    for name, value in {**expected_args, **expected_aux}.items():
        np.testing.assert_array_equal({**args, **aux}[name].asnumpy(), value)
    saved = mx.nd.load(os.path.join(fixture.FOLDER, "mxnet_checkpoint_forward.nd"))
    output = forward(symbol, args, aux, saved["data"].asnumpy())
    np.testing.assert_allclose(output.asnumpy(), saved["output"].asnumpy(), rtol=1e-5)


MXNET_LOADS = """
import sys, numpy as np, mxnet as mx
symbol, args, aux = mx.model.load_checkpoint(sys.argv[1], 7)
data = mx.nd.array(np.load(sys.argv[2]))
bound = dict(args, data=data, softmax_label=mx.nd.zeros((data.shape[0],)))
out = symbol.bind(mx.cpu(), bound, aux_states=aux).forward(is_train=False)[0]
np.save(sys.argv[3], out.asnumpy())
"""


def test_checkpoint_written_by_minimx_loads_in_mxnet(mxnet_python, tmp_path):
    prefix = str(tmp_path / "mine")
    net = fixture.network(mx.sym)
    arg_params, aux_params = fixture_params()
    mx.model.save_checkpoint(prefix, 7, net, arg_params, aux_params)
    data = np.random.default_rng(5).normal(size=(3, 4)).astype(np.float32)
    np.save(tmp_path / "data.npy", data)
    finished = subprocess.run([mxnet_python, "-c", MXNET_LOADS, prefix, str(tmp_path / "data.npy"),
                               str(tmp_path / "out.npy")], capture_output=True, text=True,
                              timeout=300, cwd=tmp_path)
    assert finished.returncode == 0, finished.stderr[-3000:]
    expected = forward(net, arg_params, aux_params, data).asnumpy()
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, rtol=1e-5)
