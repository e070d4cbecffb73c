"""The training dashboard: its history from BatchEndParams, speeds from a fake clock, throttled
redraws, a Gluon loop through update(), Module.fit callbacks, and the pictures."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minimx as mx
from minimx import autograd, gluon, nd
from minimx.model import BatchEndParam
from widgets.training_dashboard import TrainingDashboard, TrainingHistory
from widgets.training_dashboard.static import render_svg, status_text


class FakeClock:
    def __init__(self, now=0.0):
        self.now = now

    def __call__(self):
        return self.now


class FakeMetric:
    """Reports ``accuracy`` and ``ce`` from a list of values, one pair per batch."""

    def __init__(self, pairs):
        self.pairs = pairs
        self.calls = 0

    def get_name_value(self):
        accuracy, ce = self.pairs[self.calls]
        self.calls += 1
        return [("accuracy", accuracy), ("ce", ce)]


def test_history_from_batch_end_params():
    clock = FakeClock()
    pairs = [(0.1 * i, 2.0 - 0.2 * i) for i in range(6)]
    metric = FakeMetric(pairs)
    dash = TrainingDashboard(batch_size=8, num_epochs=2, display=False, clock=clock)
    for epoch in range(2):
        for nbatch in range(3):
            clock.now += 0.5
            dash(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=metric, locals={}))
        dash(epoch, None, {}, {})               # as Module.fit's epoch_end_callback
    history = dash.history
    assert [(r.epoch, r.batch, r.step) for r in history.records] == [
        (0, 0, 0), (0, 1, 1), (0, 2, 2), (1, 0, 3), (1, 1, 4), (1, 2, 5)]
    assert history.series("accuracy") == ([0, 1, 2, 3, 4, 5], [a for a, _ in pairs])
    assert history.series("ce")[1] == [c for _, c in pairs]
    assert history.names() == ["accuracy", "ce"]
    assert history.batches_per_epoch == 3 and history.epochs_done == [0, 1]
    data = dash.payload()
    assert data["epoch_starts"] == [3] and data["samples"] == 48 and data["final"]
    assert data["progress"] == {"epoch": 1, "batch": 2, "epoch_fraction": 1.0,
                                "run_fraction": 1.0}


def test_samples_per_second_from_a_fake_clock():
    clock = FakeClock(10.0)
    history = TrainingHistory(window=2, clock=clock)
    history.start()
    for now, samples in [(11.0, 10), (12.0, 10), (14.0, 20), (15.0, 5)]:
        clock.now = now
        history.add_batch(0, len(history.records), {"loss": 1.0}, samples)
    assert history.speed_at(0) == pytest.approx(10 / 1.0)          # timed from start()
    assert history.speed_at(2) == pytest.approx(30 / 3.0)          # batches 1-2, from 11.0
    assert history.speed() == pytest.approx(25 / 3.0)              # batches 2-3, from 12.0
    assert history.speed(window=10) == pytest.approx(45 / 5.0)
    assert history.average_speed() == pytest.approx(45 / 5.0)


def test_without_start_the_first_batch_is_not_timed():
    clock = FakeClock()
    history = TrainingHistory(clock=clock)
    for now in (5.0, 6.0, 8.0):
        clock.now = now
        history.add_batch(0, 0, {}, 12)
    assert history.speed_at(0) is None
    assert history.speed() == pytest.approx(24 / 3.0)
    assert history.average_speed() == pytest.approx(24 / 3.0)


@settings(max_examples=15, deadline=None)
@given(gaps=st.lists(st.floats(0.01, 2.0), min_size=1, max_size=30),
       samples=st.integers(1, 64), window=st.integers(1, 10))
def test_speed_is_samples_over_the_window_time(gaps, samples, window):
    clock = FakeClock()
    history = TrainingHistory(window=window, clock=clock)
    history.start()
    for gap in gaps:
        clock.now += gap
        history.add_batch(0, 0, {}, samples)
    used = gaps[-window:]
    assert history.speed() == pytest.approx(samples * len(used) / sum(used))


def test_redraws_are_throttled():
    clock = FakeClock()
    dash = TrainingDashboard(interval=1.0, display=False, clock=clock)
    for _ in range(10):
        clock.now += 0.3                          # 0.3, 0.6, ... 3.0
        dash.update(loss=1.0, samples=4)
    # drawn at 0.3, then at the first time at least 1.0 later: 1.5, 2.7
    assert dash.redraws == 3
    dash.close()
    assert dash.redraws == 4 and dash.final


def test_values_stay_lazy_until_drawn():
    dash = TrainingDashboard(display=False)
    dash.update(loss=nd.array([1.0, 2.0, 6.0]))
    record = dash.history.records[0]
    assert hasattr(record.values["loss"], "asscalar") and record.samples == 3
    assert dash.payload()["values"]["loss"] == [pytest.approx(3.0)]
    assert record.values["loss"] == pytest.approx(3.0)


def test_gluon_loop_through_update():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 3)).astype("float32")
    y = (x.sum(axis=1) > 0).astype("float32")
    net = gluon.nn.Dense(2)
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    accuracy = mx.metric.Accuracy()
    dash = TrainingDashboard(num_epochs=2, display=False)
    expected = []
    for epoch in range(2):
        accuracy.reset()
        for start in range(0, 40, 10):
            data, label = nd.array(x[start:start + 10]), nd.array(y[start:start + 10])
            with autograd.record():
                output = net(data)
                loss = loss_fn(output, label)
            loss.backward()
            trainer.step(10)
            accuracy.update(label, output)
            expected.append(float(loss.asnumpy().mean()))
            dash.update(loss=loss, metric=accuracy)
        dash.epoch_end()
    data = dash.payload()
    assert data["batches"] == 8 and data["samples"] == 80 and data["epoch_starts"] == [4]
    assert data["values"]["loss"] == pytest.approx(expected, rel=1e-5)
    assert data["names"] == ["loss", "accuracy"] and data["final"]
    assert data["progress"]["run_fraction"] == 1.0 and data["batches_per_epoch"] == 4


def test_module_fit_callbacks():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(48, 4)).astype("float32")
    y = (x[:, 0] > 0).astype("float32")
    train = mx.io.NDArrayIter(x, y, batch_size=16)
    valid = mx.io.NDArrayIter(x[:16], y[:16], batch_size=16)
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2,
                                                     name="fc"), name="softmax")
    module = mx.mod.Module(net, context=mx.cpu())
    dash = TrainingDashboard(num_epochs=2, display=False)
    module.fit(train, eval_data=valid, num_epoch=2, batch_end_callback=dash,
               epoch_end_callback=dash, eval_end_callback=dash.eval_end, progress=False,
               optimizer_params={"learning_rate": 0.1})
    data = dash.payload()
    assert data["batches"] == 6 and data["samples"] == 96      # from the batches' data shape
    assert data["names"] == ["accuracy"] and len(data["validation"]) == 2
    assert [v["epoch"] for v in data["validation"]] == [0, 1]
    assert data["final"] and data["progress"]["epoch_fraction"] == 1.0


def test_to_dict_keeps_at_most_max_points_and_the_last():
    clock = FakeClock()
    history = TrainingHistory(clock=clock)
    for step in range(1000):
        clock.now = step * 0.01
        history.add_batch(step // 100, step % 100, {"loss": 1.0 / (step + 1)}, 4)
    data = history.to_dict(max_points=100)
    assert len(data["step"]) <= 101 and data["step"][-1] == 999
    assert len(data["values"]["loss"]) == len(data["step"]) == len(data["speed"])
    assert data["epoch_starts"] == list(range(100, 1000, 100))


def test_static_picture_and_status():
    clock = FakeClock()
    dash = TrainingDashboard(batch_size=32, batches_per_epoch=4, num_epochs=3, display=False,
                             clock=clock)
    for step in range(6):
        clock.now += 0.5
        dash.update(loss=1.0 / (step + 1), metric={"accuracy": 0.1 * step})
        if step == 3:
            dash.epoch_end()
    data = dash.payload()
    assert status_text(data) == ("epoch 2/3  ·  batch 2/4  ·  64 samples/s (average 64)  ·  "
                                 "192 samples in 2.50 s")
    svg = render_svg(data)
    assert svg.count("<polyline") == 3          # loss, accuracy, samples/sec
    assert data["progress"]["epoch_fraction"] == 0.5
    assert data["progress"]["run_fraction"] == pytest.approx(1.5 / 3)


def test_js_status_and_progress_match_python(run_js):
    clock = FakeClock()
    dash = TrainingDashboard(batch_size=16, batches_per_epoch=5, num_epochs=2, display=False,
                             clock=clock)
    for step in range(7):
        clock.now += 0.25
        dash.update(loss=2.0 - 0.1 * step)
        if step == 4:
            dash.epoch_end()
    data = dash.payload()
    out = run_js("training_dashboard/view.js", ["tdStatus", "tdFractions"],
                 "out([tdStatus(DATA, null), tdFractions(DATA, null), "
                 "tdFractions(DATA, DATA.step.length)])", data)
    assert out[0] == status_text(data)
    progress = [data["progress"]["epoch_fraction"], data["progress"]["run_fraction"]]
    assert out[1] == pytest.approx(progress) and out[2] == pytest.approx(progress)


def test_the_last_epoch_reads_n_of_n_in_python_and_js(run_js):
    dash = TrainingDashboard(batch_size=4, batches_per_epoch=2, num_epochs=3, display=False,
                             clock=FakeClock())
    for epoch in range(3):                      # MXNet counts epochs 0, 1, 2
        for batch in range(2):
            dash.update(loss=1.0, epoch=epoch, batch=batch)
        dash.history.add_validation(epoch, {"loss": 0.5})
        dash.epoch_end(epoch)
    data = dash.payload()
    assert status_text(data).startswith("epoch 3/3  ·  batch 2/2")
    assert "(epoch 3)</title>" in render_svg(data) and "(epoch 0)" not in render_svg(data)
    out = run_js("training_dashboard/view.js", ["tdStatus"],
                 "out([tdStatus(DATA, null), tdStatus(DATA, 1), tdStatus(DATA, 6)])", data)
    assert out[0] == status_text(data)
    assert out[1].startswith("epoch 1/3  ·  batch 1/2")      # replaying the first batch
    assert out[2].startswith("epoch 3/3  ·  batch 2/2")


def test_docstring_examples():
    import doctest
    from widgets.training_dashboard import view
    assert doctest.testmod(view).failed == 0
