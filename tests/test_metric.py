"""mx.metric: every metric against hand-computed values, the registry, the seed's subclass.

The differential test against MXNet 1.9.1 on random inputs is test_metric_vs_mxnet.py.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import nd
from minimx.base import MXNetError

SCORES = [[0.3, 0.7], [0.0, 1.0], [0.4, 0.6]]     # argmax: 1, 1, 1


def arrays(*values):
    return [nd.array(value) for value in values]


def value(metric):
    return metric.get()[1]


# -- the base class ---------------------------------------------------------------------------
def test_get_is_nan_before_any_update():
    for name in ["acc", "f1", "mae", "ce", "loss", "pcc", "pearsonr"]:
        metric = mx.metric.create(name)
        assert math.isnan(value(metric)) and math.isnan(metric.get_global()[1])


def test_local_and_global_counters():
    acc = mx.metric.Accuracy()
    acc.update(arrays([0, 1, 1]), arrays(SCORES))                 # 2 of 3
    acc.update(arrays([1]), arrays([[0.9, 0.1]]))                 # 0 of 1
    assert (acc.sum_metric, acc.num_inst) == (2, 4)
    assert value(acc) == pytest.approx(0.5)
    acc.reset_local()
    assert math.isnan(value(acc)) and acc.get_global()[1] == pytest.approx(0.5)
    acc.update(arrays([0]), arrays([[0.9, 0.1]]))                 # 1 of 1
    assert value(acc) == 1.0
    assert acc.get_global() == ("accuracy", pytest.approx(3 / 5))
    assert acc.get_global_name_value() == [("accuracy", pytest.approx(3 / 5))]
    acc.reset()
    assert (acc.global_num_inst, acc.num_inst) == (0, 0)


def test_name_value_str_and_config():
    acc = mx.metric.Accuracy(axis=0, name="acc0")
    acc.update(arrays([0, 1]), arrays([[1, 0], [0, 1]]))          # argmax over axis 0
    assert acc.get_name_value() == [("acc0", 1.0)]
    assert str(acc) == "EvalMetric: {'acc0': 1.0}"
    assert acc.get_config() == {"axis": 0, "metric": "Accuracy", "name": "acc0",
                                "output_names": None, "label_names": None}
    again = mx.metric.create(**acc.get_config())
    assert type(again) is mx.metric.Accuracy and again.axis == 0 and again.name == "acc0"


def test_update_dict_picks_named_arrays():
    acc = mx.metric.Accuracy(output_names=["out"], label_names=["y"])
    acc.update_dict({"y": nd.array([0, 1]), "other": nd.array([1, 1])},
                    {"out": nd.array([[1, 0], [1, 0]]), "aux": nd.array([[0, 1], [0, 1]])})
    assert value(acc) == 0.5


def test_mismatched_counts_are_a_clear_error():
    with pytest.raises(MXNetError, match=r"accuracy.*labels 2.*predictions 1"):
        mx.metric.Accuracy().update(arrays([0], [1]), arrays([[1, 0]]))
    with pytest.raises(ValueError):                               # MXNet raises ValueError
        mx.metric.MSE().update(arrays([0]), [])
    with pytest.raises(MXNetError, match=r"\(3, classes\).*\(2, 2\)"):
        mx.metric.CrossEntropy().update(arrays([0, 1, 1]), arrays([[1, 0], [0, 1]]))


def test_base_update_must_be_overridden():
    with pytest.raises(NotImplementedError):
        mx.metric.EvalMetric("plain").update([], [])


# -- classification ---------------------------------------------------------------------------
def test_accuracy_scores_indices_and_numpy_inputs():
    acc = mx.metric.create("acc")
    acc.update(arrays([0, 1, 1]), arrays(SCORES))
    assert value(acc) == pytest.approx(2 / 3)
    indices = mx.metric.Accuracy()
    indices.update([np.array([1, 2, 3])], [np.array([1.0, 2.0, 0.0])])
    assert value(indices) == pytest.approx(2 / 3)
    single = mx.metric.Accuracy()
    single.update(nd.array([1, 0]), nd.array([[0.2, 0.8], [0.6, 0.4]]))   # not in lists
    assert value(single) == 1.0


def test_top_k_accuracy():
    top2 = mx.metric.create("top_k_accuracy", top_k=2)
    assert top2.name == "top_k_accuracy_2"
    top2.update(arrays([0, 2]), arrays([[0.5, 0.3, 0.2], [0.5, 0.3, 0.2]]))
    assert value(top2) == 0.5
    top3 = mx.metric.TopKAccuracy(top_k=3)
    top3.update(arrays([0, 2]), arrays([[0.5, 0.3, 0.2], [0.5, 0.3, 0.2]]))
    assert value(top3) == 1.0
    with pytest.raises(ValueError, match="top_k"):
        mx.metric.TopKAccuracy(top_k=1)


def test_f1_macro_and_micro():
    batches = [(arrays([0, 1, 1]), arrays(SCORES)),               # tp 2, fp 1: F1 0.8
               (arrays([1, 0]), arrays([[0.9, 0.1], [0.8, 0.2]]))]   # tp 0, fn 1: F1 0
    macro, micro = mx.metric.F1(), mx.metric.F1(average="micro")
    for labels, preds in batches:
        macro.update(labels, preds)
        micro.update(labels, preds)
    assert value(macro) == pytest.approx(0.4)                     # mean of 0.8 and 0
    assert value(micro) == pytest.approx(2 / 3)                   # tp 2, fp 1, fn 1
    micro.reset_local()
    assert math.isnan(value(micro)) and micro.get_global()[1] == pytest.approx(2 / 3)


def test_f1_rejects_more_than_two_classes():
    with pytest.raises(ValueError, match="binary"):
        mx.metric.F1().update(arrays([0, 1, 2]), arrays(SCORES))


def test_mcc():
    mcc = mx.metric.MCC()
    mcc.update(arrays([1, 1, 0, 0]), arrays([[0, 1], [1, 0], [1, 0], [1, 0]]))
    # tp 1, fn 1, tn 2, fp 0: (1*2 - 0) / sqrt(1 * 2 * 2 * 3)
    assert value(mcc) == pytest.approx(2 / math.sqrt(12))


def test_pcc_multiclass_matches_gorodkin_formula():
    pcc = mx.metric.PCC()
    pcc.update(arrays([0, 1, 2]), arrays([0, 1, 1]))              # indices: grows to 3 classes
    # c = 2 correct of s = 3; predicted counts (1, 2, 0), true counts (1, 1, 1)
    assert value(pcc) == pytest.approx((2 * 3 - 3) / math.sqrt((9 - 5) * (9 - 3)))
    binary = mx.metric.PCC()
    binary.update(arrays([1, 1, 0, 0]), arrays([[0, 1], [1, 0], [1, 0], [1, 0]]))
    assert value(binary) == pytest.approx(2 / math.sqrt(12))      # equals MCC on 2 classes
    binary.reset()
    assert math.isnan(value(binary))


# -- regression -------------------------------------------------------------------------------
def test_mae_mse_rmse_average_per_pair():
    labels, preds = arrays([1, 2, 3], [0, 0]), arrays([1.5, 2, 2], [1, 3])
    mae, mse, rmse = mx.metric.MAE(), mx.metric.MSE(), mx.metric.RMSE()
    for metric in (mae, mse, rmse):
        metric.update(labels, preds)
    assert value(mae) == pytest.approx((1.5 / 3 + 4 / 2) / 2)
    assert value(mse) == pytest.approx((1.25 / 3 + 10 / 2) / 2)
    assert value(rmse) == pytest.approx((math.sqrt(1.25 / 3) + math.sqrt(5)) / 2)
    assert mae.num_inst == 2


def test_pearson_correlation_macro_and_micro():
    macro = mx.metric.create("pearsonr")
    macro.update(arrays([1, 2, 3]), arrays([2, 4, 7]))
    # deviations (-1, 0, 1) and (-7/3, -1/3, 8/3): 5 / sqrt(2 * 114 / 9)
    assert value(macro) == pytest.approx(5 / math.sqrt(2 * 114 / 9))
    micro = mx.metric.PearsonCorrelation(average="micro")
    rng = np.random.default_rng(0)
    labels, preds = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    for label, pred in zip(labels, preds):
        micro.update([label], [pred + label])
    expected = np.corrcoef(labels.ravel(), (preds + labels).ravel())[0, 1]
    assert value(micro) == pytest.approx(expected)
    assert micro.get_global()[1] == pytest.approx(expected)


# -- likelihoods and losses -------------------------------------------------------------------
def test_cross_entropy_and_nll():
    expected = -(math.log(0.5) + math.log(0.8)) / 2
    for name in ["ce", "nll_loss", "CrossEntropy", "negativeloglikelihood"]:
        metric = mx.metric.create(name)
        metric.update(arrays([0, 1]), arrays([[0.5, 0.5], [0.2, 0.8]]))
        assert value(metric) == pytest.approx(expected)
    assert mx.metric.create("nll_loss").name == "nll-loss"


def test_perplexity_with_and_without_ignored_label():
    plain = mx.metric.Perplexity(ignore_label=None)
    plain.update(arrays([0, 1]), arrays([[0.5, 0.5], [0.2, 0.8]]))
    assert value(plain) == pytest.approx(1 / math.sqrt(0.5 * 0.8))
    ignoring = mx.metric.Perplexity(ignore_label=0)
    ignoring.update(arrays([0, 1]), arrays([[0.5, 0.5], [0.2, 0.8]]))
    assert value(ignoring) == pytest.approx(1.25)
    assert ignoring.num_inst == 1


def test_loss_torch_caffe_average_outputs():
    for name, cls in [("loss", mx.metric.Loss), ("torch", mx.metric.Torch),
                      ("caffe", mx.metric.Caffe)]:
        metric = mx.metric.create(name)
        assert type(metric) is cls and metric.name == name
        metric.update(None, arrays([1, 2, 3], [[4]]))
        assert value(metric) == 2.5


# -- custom metrics, composites, the registry -------------------------------------------------
def test_custom_metric_value_or_sum_and_count():
    mean_gap = mx.metric.create(lambda label, pred: np.abs(label - pred).mean())
    assert mean_gap.name == "custom(<lambda>)"
    mean_gap.update(arrays([1, 2], [0]), arrays([1, 4], [3]))
    assert value(mean_gap) == pytest.approx((1 + 3) / 2)

    def hits(label, pred):
        return int((label == pred).sum()), label.size
    counting = mx.metric.np(hits)
    assert counting.name == "hits"
    counting.update(arrays([1, 2, 3]), arrays([1, 0, 3]))
    assert (counting.sum_metric, counting.num_inst) == (2, 3)
    with pytest.raises(NotImplementedError):
        counting.get_config()


def test_custom_metric_allows_extra_outputs_when_asked():
    strict = mx.metric.CustomMetric(lambda label, pred: 1.0, name="one")
    with pytest.raises(MXNetError):
        strict.update(arrays([1]), arrays([1], [2]))
    lenient = mx.metric.CustomMetric(lambda label, pred: 1.0, name="one",
                                     allow_extra_outputs=True)
    lenient.update(arrays([1]), arrays([1], [2]))
    assert lenient.num_inst == 1


def test_composite_metric():
    both = mx.metric.create(["acc", mx.metric.F1()])
    assert isinstance(both, mx.metric.CompositeEvalMetric)
    both.update(arrays([0, 1, 1]), arrays(SCORES))
    assert both.get() == (["accuracy", "f1"], [pytest.approx(2 / 3), pytest.approx(0.8)])
    assert both.get_name_value() == [("accuracy", pytest.approx(2 / 3)),
                                     ("f1", pytest.approx(0.8))]
    assert both.get_metric(1).name == "f1"
    with pytest.raises(MXNetError, match="index 5"):
        both.get_metric(5)
    both.reset_local()
    assert all(math.isnan(v) for v in both.get()[1])
    assert both.get_global()[1] == [pytest.approx(2 / 3), pytest.approx(0.8)]
    config = both.get_config()
    assert [child["metric"] for child in config["metrics"]] == ["Accuracy", "F1"]
    rebuilt = mx.metric.create(**config)
    assert [m.name for m in rebuilt.metrics] == ["accuracy", "f1"]


def test_create_by_name_json_and_errors():
    assert type(mx.metric.create("ACC")) is mx.metric.Accuracy
    assert mx.metric.create('["acc", {"axis": 0}]').axis == 0
    assert mx.metric.create('{"metric": "top_k_acc", "top_k": 4}').top_k == 4
    metric = mx.metric.MSE()
    assert mx.metric.create(metric) is metric
    with pytest.raises(MXNetError, match="unknown metric 'nope'"):
        mx.metric.create("nope")


def test_register_a_user_metric():
    @mx.metric.register
    @mx.metric.alias("always_one")
    class AlwaysOne(mx.metric.EvalMetric):
        def __init__(self, name="one"):
            super().__init__(name)

        def update(self, labels, preds):
            self.sum_metric += len(preds)
            self.num_inst += len(preds)

    for name in ["alwaysone", "always_one"]:
        metric = mx.metric.create(name)
        metric.update(arrays([1]), arrays([1]))
        assert metric.get() == ("one", 1.0)


# -- the seed's Accuracy subclass (section 6.1) -----------------------------------------------
class SeedAccuracy(mx.metric.EvalMetric):
    def __init__(self, axis=1, name='accuracy', output_names=None, label_names=None):
        super(SeedAccuracy, self).__init__(
            name, axis=axis, output_names=output_names, label_names=label_names)
        self.axis = axis

    def update(self, labels, preds):
        for label, pred_label in zip(labels, preds):
            if pred_label.shape != label.shape:
                pred_label = mx.nd.argmax(pred_label, axis=self.axis)
            pred_label = pred_label.asnumpy().astype('int32')
            label = label.asnumpy().astype('int32')
            self.sum_metric += (pred_label.flat == label.flat).sum()
            self.num_inst += len(pred_label.flat)


def test_seed_accuracy_subclass_matches_builtin():
    rng = np.random.default_rng(1)
    seed_metric, builtin = SeedAccuracy(), mx.metric.Accuracy()
    for _ in range(3):
        labels = arrays(rng.integers(0, 3, size=4), rng.integers(0, 3, size=2))
        preds = arrays(rng.random((4, 3)), rng.random((2, 3)))
        seed_metric.update(labels, preds)
        builtin.update(labels, preds)
    assert seed_metric.get() == pytest.approx(builtin.get())
    assert seed_metric.get_config()["axis"] == 1
    assert seed_metric.get_global() == seed_metric.get()          # no global counters kept
    assert seed_metric.get_name_value() == [("accuracy", pytest.approx(value(builtin)))]


def test_seed_subclass_with_the_typo_keeps_the_base_update():
    class Misspelt(mx.metric.EvalMetric):
        def updata(self, labels, preds):                          # the seed's spelling
            self.num_inst += 1
    with pytest.raises(NotImplementedError):
        Misspelt("accuracy").update(arrays([0]), arrays([[1, 0]]))


# -- properties -------------------------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(st.integers(2, 12), st.integers(2, 4), st.integers(0, 2**31 - 1), st.data())
def test_counting_metrics_do_not_depend_on_how_batches_are_split(size, classes, seed, data):
    """Accuracy, cross-entropy and micro F1 over any split equal their value on the whole."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, size=size).astype(np.float32)
    scores = rng.random((size, classes)).astype(np.float32) + 0.01
    cut = data.draw(st.integers(1, size - 1))
    binary_labels = (labels % 2).astype(np.float32)
    binary_scores = scores[:, :2]
    for name, kwargs, y, p in [("acc", {}, labels, scores), ("ce", {}, labels, scores),
                               ("f1", {"average": "micro"}, binary_labels, binary_scores)]:
        whole, split = mx.metric.create(name, **kwargs), mx.metric.create(name, **kwargs)
        whole.update([y], [p])
        split.update([y[:cut]], [p[:cut]])
        split.update([nd.array(y[cut:])], [nd.array(p[cut:])])
        assert value(split) == pytest.approx(value(whole), rel=1e-5), name
    expected = np.mean(scores.argmax(axis=1) == labels)
    acc = mx.metric.Accuracy()
    acc.update([labels], [scores])
    assert value(acc) == pytest.approx(expected)
