"""PrefetchingIter: same batches as the wrapped iterators, loaded while the consumer works."""
import threading
import time

import numpy as np
import pytest

import minimx as mx


class SlowIter(mx.io.DataIter):
    """Takes ``delay`` seconds per batch and records which thread loaded it."""

    def __init__(self, batches, delay):
        super().__init__(2)
        self.batches, self.delay, self.cursor = batches, delay, 0
        self.provide_data = [mx.io.DataDesc("data", (2, 1))]
        self.provide_label = [mx.io.DataDesc("label", (2,))]
        self.threads = set()

    def reset(self):
        self.cursor = 0

    def next(self):
        if self.cursor == self.batches:
            raise StopIteration
        time.sleep(self.delay)
        self.threads.add(threading.current_thread().name)
        self.cursor += 1
        return mx.io.DataBatch([mx.nd.full((2, 1), self.cursor)], [mx.nd.zeros((2,))], pad=0)


def test_same_batches_as_the_wrapped_iterator():
    data = np.arange(14, dtype=np.float32).reshape(7, 2)
    plain = [b.data[0].asnumpy() for b in mx.io.NDArrayIter(data, batch_size=3)]
    it = mx.io.PrefetchingIter(mx.io.NDArrayIter(data, batch_size=3))
    for _ in range(2):
        got = [b.data[0].asnumpy() for b in it]
        assert len(got) == len(plain)
        for a, b in zip(got, plain):
            np.testing.assert_array_equal(a, b)
        it.reset()
    it.close()


def test_several_iterators_and_renaming():
    first = mx.io.NDArrayIter({"data": np.ones((4, 2))}, np.zeros(4), batch_size=2)
    second = mx.io.NDArrayIter({"data": np.zeros((4, 3))}, np.ones(4), batch_size=2)
    it = mx.io.PrefetchingIter([first, second], rename_data=[{"data": "a"}, {"data": "b"}])
    assert [d.name for d in it.provide_data] == ["a", "b"]
    assert [d.shape for d in it.provide_data] == [(2, 2), (2, 3)]
    batch = it.next()
    assert len(batch.data) == 2 and len(batch.label) == 2 and it.batch_size == 2
    it.close()


def test_loading_overlaps_with_compute():
    delay, batches = 0.05, 6
    source = SlowIter(batches, delay)
    it = mx.io.PrefetchingIter(source)
    start = time.perf_counter()
    count = 0
    for _ in it:
        time.sleep(delay)                     # the "training step"
        count += 1
    elapsed = time.perf_counter() - start
    it.close()
    assert count == batches
    assert source.threads == {"PrefetchingIter-0"}
    # serial would take 2 * delay * batches; overlapped about (batches + 1) * delay
    assert elapsed < 1.6 * delay * batches, elapsed


def test_errors_in_the_thread_reach_the_consumer():
    class Broken(SlowIter):
        def next(self):
            raise ValueError("disk on fire")

    it = mx.io.PrefetchingIter(Broken(1, 0))
    with pytest.raises(ValueError, match="disk on fire"):
        it.next()
    it.close()
