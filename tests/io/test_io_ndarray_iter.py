"""NDArrayIter, DataIter, DataBatch, DataDesc, ResizeIter: behaviour and MXNet 1.9.1 batches."""
import numpy as np
import pytest
from mxnet_io_runner import ask_mxnet, run_case

import minimx as mx


def make_case(num, width, batch_size, handle, shuffle, seed, as_list=False, two=False,
              labels=True, epochs=3):
    rng = np.random.RandomState(seed)
    data = {"data": rng.randint(0, 100, (num, width)).tolist()}
    if two:
        data["aux"] = rng.randint(0, 100, (num, 2)).tolist()
    label = {"softmax_label": np.arange(num).tolist()} if labels else {}
    return {"kind": "ndarray_iter", "seed": seed, "data": data, "label": label,
            "as_list": as_list, "epochs": epochs,
            "kwargs": {"batch_size": batch_size, "shuffle": shuffle,
                       "last_batch_handle": handle}}


CASES = [make_case(num, 3, batch, handle, shuffle, seed, as_list=seed % 2 == 0,
                   two=seed % 3 == 0, labels=seed % 5 != 4)
         for seed, (num, batch, handle, shuffle) in enumerate([
             (10, 3, "pad", False), (10, 3, "discard", False), (10, 3, "roll_over", False),
             (10, 4, "roll_over", True), (7, 7, "pad", False), (10, 25, "pad", False),
             (10, 4, "pad", True), (9, 3, "roll_over", False), (10, 6, "discard", True),
             (11, 4, "roll_over", False), (5, 12, "pad", True)])]


@pytest.mark.mxnet
def test_batches_match_mxnet(mxnet_python):
    expected = ask_mxnet(mxnet_python, CASES)
    for case, want in zip(CASES, expected):
        got = run_case(mx, case)
        assert got == want, f"case {case['kwargs']} differs"


def epoch_rows(it):
    return [b.data[0].asnumpy()[:, 0].tolist() for b in it]


def test_pad_fills_from_the_start():
    data = np.arange(10, dtype=np.float32).reshape(10, 1)
    it = mx.io.NDArrayIter(data, np.arange(10), batch_size=4)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    assert batches[-1].data[0].asnumpy()[:, 0].tolist() == [8, 9, 0, 1]
    assert batches[-1].label[0].asnumpy().tolist() == [8, 9, 0, 1]


def test_roll_over_carries_the_rest_into_the_next_epoch():
    data = np.arange(10, dtype=np.float32).reshape(10, 1)
    it = mx.io.NDArrayIter(data, batch_size=4, last_batch_handle="roll_over")
    assert epoch_rows(it) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    it.reset()
    first = it.next()
    assert first.data[0].asnumpy()[:, 0].tolist() == [8, 9, 0, 1] and first.pad == 2
    it.hard_reset()
    assert it.next().data[0].asnumpy()[:, 0].tolist() == [0, 1, 2, 3]


def test_discard_drops_the_incomplete_batch():
    it = mx.io.NDArrayIter(np.zeros((10, 2)), batch_size=4, last_batch_handle="discard")
    assert len(list(it)) == 2


def test_shuffle_keeps_data_and_label_together():
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    it = mx.io.NDArrayIter(data, data[:, 0] * 10, batch_size=5, shuffle=True)
    seen = []
    for b in it:
        rows = b.data[0].asnumpy()
        np.testing.assert_array_equal(rows[:, 0] * 10, b.label[0].asnumpy())
        seen += rows[:, 0].tolist()
    assert sorted(seen) == list(range(0, 20, 2))


def test_names_and_provide_data():
    it = mx.io.NDArrayIter({"b": np.zeros((6, 2, 3)), "a": np.ones((6, 4))},
                           {"lab": np.zeros(6)}, batch_size=3)
    assert [d.name for d in it.provide_data] == ["a", "b"]          # sorted, as MXNet
    assert it.provide_data[1].shape == (3, 2, 3)
    assert it.provide_label == [("lab", (3,))]
    it = mx.io.NDArrayIter([np.zeros((4, 1)), np.zeros((4, 1))], batch_size=2)
    assert [d.name for d in it.provide_data] == ["_0_data", "_1_data"]
    it = mx.io.NDArrayIter(np.zeros((4, 1)), batch_size=2, data_name="x")
    assert it.provide_data[0].name == "x" and it.provide_label == []


def test_bad_input_is_reported():
    with pytest.raises(mx.MXNetError, match="last_batch_handle"):
        mx.io.NDArrayIter(np.zeros((4, 1)), last_batch_handle="wrap")
    with pytest.raises(mx.MXNetError, match="fewer"):
        mx.io.NDArrayIter(np.zeros((4, 1)), np.zeros(3), batch_size=2)
    with pytest.raises(TypeError):
        mx.io.NDArrayIter("not an array")


def test_data_desc_and_batch():
    desc = mx.io.DataDesc("data", (2, 3), layout="NTC")
    assert desc == ("data", (2, 3)) and desc.dtype == np.float32
    assert mx.io.DataDesc.get_batch_axis("TNC") == 1
    assert mx.io.DataDesc.get_batch_axis(None) == 0
    descs = mx.io.DataDesc.get_list([("x", (1,))], [("x", np.int32)])
    assert descs[0].dtype == np.int32
    assert "DataDesc[data,(2, 3)" in repr(desc)
    batch = mx.io.DataBatch([mx.nd.zeros((2, 3))], [mx.nd.zeros((2,))], pad=1, bucket_key=5)
    assert batch.bucket_key == 5 and "(2, 3)" in str(batch)
    with pytest.raises(TypeError):
        mx.io.DataBatch(mx.nd.zeros((2, 3)))


class DemoDataIter(mx.io.DataIter):
    """The custom iterator of the seed document (section 3.2), on a small stand-in."""

    def __init__(self, batch_size, mnist):
        super(DemoDataIter, self).__init__(batch_size)
        self.idx = 0
        self.sample_size = len(mnist["train_data"])
        self.batch_size = batch_size
        self.mnist_data = mnist["train_data"]
        self.mnist_label = mnist["train_label"]
        self.provide_data = [("data", (batch_size, 1, 28, 28))]
        self.provide_label = [("label", (batch_size,))]

    def next(self):
        if self.idx + self.batch_size > self.sample_size:
            raise StopIteration
        data = self.mnist_data[self.idx:self.idx + self.batch_size]
        label = self.mnist_label[self.idx:self.idx + self.batch_size]
        data_batch = mx.io.DataBatch(data=[data], label=[label])
        self.idx += self.batch_size
        return data_batch

    def reset(self):
        self.idx = 0


def test_seed_custom_iterator_and_epoch_loop():
    mnist = {"train_data": mx.nd.ones((6, 1, 28, 28)), "train_label": mx.nd.arange(6)}
    it = DemoDataIter(2, mnist)
    epoch, batches = 0, 0
    while True:
        try:
            it.next()
            batches += 1
        except StopIteration:
            it.reset()
            epoch += 1
            if epoch >= 10:
                break
    assert (epoch, batches) == (10, 30)
    assert len(list(it)) == 3             # __iter__ / __next__ from the base class


def test_base_class_next_uses_the_getters():
    class Counter(mx.io.DataIter):
        def __init__(self):
            super().__init__(2)
            self.count = 0

        def iter_next(self):
            self.count += 1
            return self.count <= 2

        def getdata(self):
            return [mx.nd.full((2,), self.count)]

        def getlabel(self):
            return None

        def getpad(self):
            return 0

    batches = list(Counter())
    assert [b.data[0].asnumpy()[0] for b in batches] == [1, 2]
    assert batches[0].index is None


def test_resize_iter():
    inner = mx.io.NDArrayIter(np.arange(10).reshape(10, 1), batch_size=4,
                              last_batch_handle="discard")
    it = mx.io.ResizeIter(inner, 5)
    rows = [b.data[0].asnumpy()[0, 0] for b in it]
    assert rows == [0, 4, 0, 4, 0]
    assert it.provide_data == inner.provide_data
    it.reset()
    assert len(list(it)) == 5
