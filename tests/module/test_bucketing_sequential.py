"""BucketingModule (one graph per sequence length, one set of parameters) on a tiny
next-token task, and SequentialModule (two modules chained) against the same network as
one Module."""
import numpy as np
import pytest

import minimx as mx
from minimx.base import MXNetError

from module_cases import separable

VOCAB = 6       # tokens 1..5; 0 pads and is ignored


def next_token_net(seq_len):
    """Embedding -> per-step classifier of the next token; no weight depends on seq_len."""
    data = mx.sym.var("data")
    label = mx.sym.reshape(mx.sym.var("softmax_label"), shape=(-1,))
    embed = mx.sym.Embedding(data, input_dim=VOCAB, output_dim=8, name="embed")
    hidden = mx.sym.reshape(embed, shape=(-1, 8))
    logits = mx.sym.FullyConnected(hidden, num_hidden=VOCAB, name="pred")
    net = mx.sym.SoftmaxOutput(logits, label, use_ignore=True, ignore_label=0,
                               name="softmax")
    return net, ("data",), ("softmax_label",)


def counting_sentences(count, rng):
    """Sentences 1 2 3 4 5 1 2 ... of lengths 2..8 from random starts: each token is
    followed by (token mod 5) + 1."""
    sentences = []
    for _ in range(count):
        start, length = rng.randint(1, VOCAB), rng.randint(2, 9)
        sentences.append([(start - 1 + i) % (VOCAB - 1) + 1 for i in range(length)])
    return sentences


def test_bucketing_module_shares_parameters_between_buckets():
    rng = np.random.RandomState(3)
    it = mx.rnn.BucketSentenceIter(counting_sentences(200, rng), batch_size=10,
                                   buckets=[4, 8], invalid_label=0)
    mod = mx.mod.BucketingModule(next_token_net, default_bucket_key=it.default_bucket_key)
    metric = mx.metric.Perplexity(ignore_label=0)
    mod.fit(it, eval_metric=metric, num_epoch=4, initializer=mx.init.Xavier(),
            optimizer="adam", optimizer_params={"learning_rate": 0.05}, progress=False)
    assert sorted(mod._buckets) == [4, 8]
    short, long_ = mod._buckets[4], mod._buckets[8]
    for name in ("embed_weight", "pred_weight", "pred_bias"):
        index = short._exec_group.param_names.index(name)
        assert (short._exec_group.param_arrays[index][0]
                is long_._exec_group.param_arrays[long_._exec_group.param_names.index(name)][0])
    assert short._optimizer is long_._optimizer
    assert dict(mod.score(it, mx.metric.Perplexity(ignore_label=0)))["perplexity"] < 1.3
    # a step through the short bucket moves what the long bucket predicts
    it.reset()
    batch = next(b for b in it if b.bucket_key == 4)
    long_batch = mx.io.DataBatch([mx.nd.ones((10, 8))], [mx.nd.ones((10, 8))], bucket_key=8,
                                 provide_data=[("data", (10, 8))],
                                 provide_label=[("softmax_label", (10, 8))])
    mod.forward(long_batch, is_train=False)
    before = mod.get_outputs()[0].asnumpy()
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 5.0},
                       force_init=True)
    mod.forward_backward(batch)
    mod.update()
    mod.forward(long_batch, is_train=False)
    assert not np.allclose(mod.get_outputs()[0].asnumpy(), before)


def test_bucketing_checkpoint_round_trip(tmp_path):
    mod = mx.mod.BucketingModule(next_token_net, default_bucket_key=8)
    mod.bind(data_shapes=[("data", (2, 8))], label_shapes=[("softmax_label", (2, 8))])
    mod.init_params(mx.init.Xavier())
    mod.switch_bucket(4, [("data", (2, 4))], [("softmax_label", (2, 4))])
    prefix = str(tmp_path / "lm")
    mod.save_checkpoint(prefix, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "lm-0001.params", "lm-4-symbol.json", "lm-8-symbol.json", "lm.buckets"]
    loaded = mx.mod.BucketingModule.load(prefix, 1, sym_gen=next_token_net,
                                         default_bucket_key=8)
    loaded.bind(data_shapes=[("data", (2, 8))], label_shapes=[("softmax_label", (2, 8))],
                for_training=False)
    for name, value in mod.get_params()[0].items():
        np.testing.assert_array_equal(loaded.get_params()[0][name].asnumpy(), value.asnumpy())


def test_bucketing_module_errors():
    with pytest.raises(MXNetError, match="default_bucket_key"):
        mx.mod.BucketingModule(next_token_net)
    mod = mx.mod.BucketingModule(next_token_net, default_bucket_key=8)
    assert mod.data_names == ["data"] and mod.output_names == ["softmax_output"]
    with pytest.raises(MXNetError, match="bind"):
        mod.switch_bucket(4, [("data", (2, 4))])


# -- SequentialModule ---------------------------------------------------------------------
def two_modules():
    first = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=8,
                                                    name="fc1"), act_type="relu")
    second = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3,
                                                        name="fc2"), name="softmax")
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(first, label_names=None))
    seq.add(mx.mod.Module(second), take_labels=True, auto_wiring=True)
    return seq


def whole_network():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=8, name="fc1")
    net = mx.sym.FullyConnected(mx.sym.Activation(net, act_type="relu"), num_hidden=3,
                                name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def test_sequential_module_trains_like_the_whole_network():
    x, y = separable(n=16)
    seq = two_modules()
    seq.bind(data_shapes=[("data", (8, 4))], label_shapes=[("softmax_label", (8,))])
    seq.init_params(mx.init.Xavier())
    whole = mx.mod.Module(whole_network())
    whole.bind(data_shapes=[("data", (8, 4))], label_shapes=[("softmax_label", (8,))])
    whole.init_params(arg_params=seq.get_params()[0], aux_params={})
    for module in (seq, whole):
        module.init_optimizer(optimizer_params={"learning_rate": 0.3, "momentum": 0.9})
        for batch in mx.io.NDArrayIter(x, y, batch_size=8):
            module.forward_backward(batch)
            module.update()
    assert seq.output_shapes == [("softmax_output", (8, 3))]
    for name, value in whole.get_params()[0].items():
        np.testing.assert_allclose(seq.get_params()[0][name].asnumpy(), value.asnumpy(),
                                   rtol=1e-5, atol=1e-6)


def test_sequential_module_fit_and_errors():
    x, y = separable(n=48)
    seq = two_modules()
    it = mx.io.NDArrayIter(x, y, batch_size=8, shuffle=True)
    seq.fit(it, num_epoch=5, initializer=mx.init.Xavier(), progress=False,
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    assert dict(seq.score(it, "acc"))["accuracy"] >= 0.9
    with pytest.raises(MXNetError, match="unknown option"):
        seq.add(mx.mod.Module(whole_network()), take_label=True)
    with pytest.raises(MXNetError, match="empty"):
        mx.mod.SequentialModule().bind([("data", (2, 4))])
    same_names = mx.mod.SequentialModule()
    for _ in range(2):
        layer = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
        same_names.add(mx.mod.Module(layer, label_names=None), auto_wiring=True)
    same_names.bind([("data", (2, 4))])
    with pytest.raises(MXNetError, match="Duplicated parameter names: 'fc_(weight|bias)'"):
        same_names.init_params()
