"""Tests of mx.mon.Monitor over an executor of a small MLP.

Statistics are checked against numpy's forward and backward of the same MLP,
and the names and values against MXNet 1.9.1's Monitor (skipped without it).
"""
import json
import logging
import re
import subprocess

import numpy as np
import pytest
from same_program import on_minimx, on_mxnet

import minimx as mx

BATCH, IN, HIDDEN, OUT = 3, 5, 4, 2

MLP = """
data = mx.sym.Variable('data')
net = mx.sym.FullyConnected(data, num_hidden={hidden}, name='fc1')
net = mx.sym.Activation(net, act_type='relu', name='relu1')
net = mx.sym.FullyConnected(net, num_hidden={out}, name='fc2')
""".format(hidden=HIDDEN, out=OUT)


def values():
    rng = np.random.default_rng(7)
    shapes = {"data": (BATCH, IN), "fc1_weight": (HIDDEN, IN), "fc1_bias": (HIDDEN,),
              "fc2_weight": (OUT, HIDDEN), "fc2_bias": (OUT,)}
    return {name: rng.uniform(-1, 1, shape).astype(np.float32)
            for name, shape in shapes.items()}


def mlp_executor(module=mx):
    scope = {"mx": module}
    exec(MLP, scope)
    exe = scope["net"].simple_bind(module.cpu(), data=(BATCH, IN))
    for name, value in values().items():
        exe.arg_dict[name][:] = value
    return exe


def numpy_mlp(v, head):
    """Every value the executor reports, computed with numpy: {name: array}."""
    fc1 = v["data"] @ v["fc1_weight"].T + v["fc1_bias"]
    relu = np.maximum(fc1, 0)
    fc2 = relu @ v["fc2_weight"].T + v["fc2_bias"]
    d_relu = head @ v["fc2_weight"]
    d_fc1 = d_relu * (fc1 > 0)
    return {
        "fc1_output": fc1, "relu1_output": relu, "fc2_output": fc2,
        "fc2_backward_output0": d_relu, "fc2_backward_output1": head.T @ relu,
        "fc2_backward_output2": head.sum(0), "relu1_backward_output": d_fc1,
        "fc1_backward_output0": d_fc1 @ v["fc1_weight"],
        "fc1_backward_output1": d_fc1.T @ v["data"], "fc1_backward_output2": d_fc1.sum(0),
        **v,
    }


def rms(array):
    return float(np.sqrt(np.mean(np.square(array, dtype=np.float64))))


def run_batches(monitor, exe, count, train=True):
    results = []
    head = mx.nd.array(np.ones((BATCH, OUT), np.float32))
    for _ in range(count):
        monitor.tic()
        exe.forward(is_train=train)
        if train:
            exe.backward([head])
        results.append(monitor.toc())
    return results


def test_statistics_every_interval_batches_match_numpy(engine):
    exe = mlp_executor()
    monitor = mx.mon.Monitor(3)
    monitor.install(exe)
    results = run_batches(monitor, exe, 7)
    assert [bool(batch) for batch in results] == [True, False, False] * 2 + [True]
    expected = numpy_mlp(values(), np.ones((BATCH, OUT), np.float32))
    for batch, step in ((results[0], 1), (results[3], 4), (results[6], 7)):
        assert {name for _, name, _ in batch} == set(expected)
        for batch_step, name, text in batch:
            assert batch_step == step and text.endswith("\t")
            assert float(text) == pytest.approx(rms(expected[name]), rel=1e-5), name


@pytest.mark.parametrize("pattern", [".*weight", "fc1", ".*backward.*", "relu1_output$", "x"])
def test_pattern_keeps_only_matching_names(pattern):
    exe = mlp_executor()
    everything = mx.mon.Monitor(1)
    everything.install(exe)
    names = [name for _, name, _ in run_batches(everything, exe, 1)[0]]
    filtered = mx.mon.Monitor(1, pattern=pattern)
    filtered.install(exe)
    kept = [name for _, name, _ in run_batches(filtered, exe, 1)[0]]
    assert kept == [name for name in names if re.match(pattern, name)]


def test_sort_and_monitor_all():
    exe = mlp_executor()
    monitor = mx.mon.Monitor(1, sort=True, monitor_all=True)
    monitor.install(exe)
    names = [name for _, name, _ in run_batches(monitor, exe, 1, train=False)[0]]
    assert names == sorted(names)
    # as MXNet: variables report under their own name, Activation's input is "input0"
    assert {"fc1_data", "fc1_weight", "fc2_data", "relu1_input0", "data"} <= set(names)
    assert not any("backward" in name for name in names)      # no backward was run


def test_stat_func_lists_and_errors():
    exe = mlp_executor()
    monitor = mx.mon.Monitor(1, stat_func=lambda x: [x.sum(), x.reshape((-1,))[:2]],
                             pattern="fc2_bias")
    monitor.install(exe)
    [(_, name, text)] = run_batches(monitor, exe, 1, train=False)[0]
    total, first_two = text.split("\t")[:2]
    bias = values()["fc2_bias"]
    assert float(total) == pytest.approx(float(bias.sum()), rel=1e-5)
    assert np.allclose(np.array(first_two.strip("[]").split(), dtype=np.float32), bias[:2])
    bad = mx.mon.Monitor(1, stat_func=lambda x: 1.0)
    bad.install(exe)
    with pytest.raises(mx.MXNetError, match="stat_func must return an NDArray"):
        run_batches(bad, exe, 1, train=False)


def test_toc_print_logs_one_line_per_array(caplog):
    exe = mlp_executor()
    monitor = mx.mon.Monitor(1, pattern=".*output")
    monitor.install(exe)
    monitor.tic()
    exe.forward()
    with caplog.at_level(logging.INFO):
        monitor.toc_print()
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 3
    assert re.fullmatch(r"Batch:       1 fc1_output {21}[-0-9.e]+\t", lines[0])


MXNET_SCRIPT = """
import json, numpy as np, mxnet as mx
{mlp}
exe = net.simple_bind(mx.cpu(), data=({batch}, {inputs}))
for name, value in json.loads({values!r}).items():
    exe.arg_dict[name][:] = np.array(value, dtype=np.float32)
monitor = mx.mon.Monitor(2, pattern={pattern!r})
monitor.install(exe)
results = []
for _ in range(3):
    monitor.tic()
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones(({batch}, {out}))])
    results.append(monitor.toc())
print(json.dumps(results))
"""


@pytest.mark.mxnet
@pytest.mark.parametrize("pattern", [".*", ".*backward.*|fc2.*"])
def test_names_and_values_match_mxnet(mxnet_python, pattern):
    weights = {name: value.tolist() for name, value in values().items()}
    code = MXNET_SCRIPT.format(mlp=MLP, batch=BATCH, inputs=IN, out=OUT, pattern=pattern,
                               values=json.dumps(weights))
    done = subprocess.run([mxnet_python, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    # MXNet also reports its internal copy of the head gradient (_head_grad_0_id_output)
    expected = [[record for record in batch if not record[1].startswith("_head_grad")]
                for batch in json.loads(done.stdout.splitlines()[-1])]
    exe = mlp_executor()
    monitor = mx.mon.Monitor(2, pattern=pattern)
    monitor.install(exe)
    ours = run_batches(monitor, exe, 3)
    assert [[(step, name) for step, name, _ in batch] for batch in ours] == \
        [[(step, name) for step, name, _ in batch] for batch in expected]
    for our_batch, their_batch in zip(ours, expected):
        for (_, name, ours_text), (_, _, their_text) in zip(our_batch, their_batch):
            assert float(ours_text) == pytest.approx(float(their_text), rel=1e-5), name


MODULE_MONITOR_PROGRAM = r"""
import json
from functools import reduce
x = mx.symbol.Variable('data')
x = mx.symbol.FullyConnected(name='fc_0', data=x, num_hidden=2)
x = mx.symbol.Activation(name='act_0', data=x, act_type='sigmoid')
x = mx.symbol.FullyConnected(name='fc_1', data=x, num_hidden=2)
x = mx.symbol.Activation(name='act_1', data=x, act_type='sigmoid')
x = mx.symbol.LinearRegressionOutput(data=x, name='softmax', grad_scale=2)
def mean_abs(x):
    return mx.nd.sum(mx.nd.abs(x)) / reduce(lambda a, b: a * b, x.shape)
mon = mx.mon.Monitor(1, stat_func=mean_abs, pattern='.*', sort=True)
train = mx.io.NDArrayIter(mx.nd.array([[0.05, .10]]), mx.nd.array([[.01, 0.99]]), batch_size=1)
mod = mx.mod.Module(x, context=[mx.cpu()])
mod.bind(train.provide_data, label_shapes=train.provide_label, for_training=True)
mod.install_monitor(mon)
mod.init_params(arg_params={'fc_0_weight': mx.nd.array([[.15, .20], [.25, .30]]),
                            'fc_0_bias': mx.nd.array([.35, .35]),
                            'fc_1_weight': mx.nd.array([[.40, .45], [.50, .55]]),
                            'fc_1_bias': mx.nd.array([.60, .60])})
mon.tic()
mod.forward_backward(next(iter(train)))
print(json.dumps({name: float(value) for _, name, value in mon.toc()}))
"""


@pytest.mark.mxnet
def test_a_module_monitor_reports_what_mxnet_reports_except_unwritten_gradients(mxnet_python):
    """MXNet's test_module.py::test_monitor counts 21 lines; two are the gradients of the data
    and the label, which no one asked for (grad_req 'null'): MXNet reports buffers its
    backward never wrote, minimx leaves them out (see minimx/monitor.py)."""
    theirs = on_mxnet(mxnet_python, MODULE_MONITOR_PROGRAM)
    ours = on_minimx(MODULE_MONITOR_PROGRAM)
    assert set(theirs) - set(ours) == {"fc_0_backward_output0", "softmax_backward_output1"}
    assert set(ours) <= set(theirs) and len(ours) == 19
    for name, value in ours.items():
        assert value == pytest.approx(theirs[name], rel=1e-5), name
    # the unwritten "gradient" of the data is a leftover of another array's memory
    assert theirs["fc_0_backward_output0"] == pytest.approx(theirs["act_1_output"], rel=1e-6)
