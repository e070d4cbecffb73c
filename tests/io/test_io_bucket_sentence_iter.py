"""mx.rnn.BucketSentenceIter and encode_sentences, against MXNet 1.9.1 with the same seeds."""
import json
import random
import subprocess

import numpy as np
import pytest

import minimx as mx

SENTENCES = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [1, 2], [3, 4, 5], [6], [7, 8, 9, 1, 2],
             [3, 4, 5, 6], [7, 8], [9, 1, 2], [1] * 9, [2, 3, 4, 5, 6]]

REFERENCE = """
import json, random, sys
import numpy as np
import mxnet as mx
case = json.loads(sys.argv[1])
random.seed(case['seed']); np.random.seed(case['seed'])
it = mx.rnn.BucketSentenceIter(case['sentences'], **case['kwargs'])
out = []
for _ in range(2):
    out.append([[b.bucket_key, b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(),
                 list(b.provide_data[0].shape)] for b in it])
    it.reset()
print(json.dumps([out, list(it.provide_data[0].shape), it.default_bucket_key]))
"""


def run_minimx(case):
    random.seed(case["seed"])
    np.random.seed(case["seed"])
    it = mx.rnn.BucketSentenceIter(case["sentences"], **case["kwargs"])
    out = []
    for _ in range(2):
        out.append([[b.bucket_key, b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(),
                     list(b.provide_data[0].shape)] for b in it])
        it.reset()
    return [out, list(it.provide_data[0].shape), it.default_bucket_key]


@pytest.mark.mxnet
@pytest.mark.parametrize("kwargs", [
    {"batch_size": 2, "buckets": [2, 3, 5]},
    {"batch_size": 2, "buckets": [3, 5, 9], "layout": "TN", "invalid_label": 0},
    {"batch_size": 2},
])
def test_batches_match_mxnet(mxnet_python, kwargs):
    case = {"seed": 5, "sentences": SENTENCES, "kwargs": kwargs}
    result = subprocess.run([mxnet_python, "-c", REFERENCE, json.dumps(case)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert run_minimx(case) == json.loads(result.stdout.strip().splitlines()[-1])


def test_labels_are_the_next_token():
    it = mx.rnn.BucketSentenceIter([[1, 2, 3], [4, 5, 6]], batch_size=2, buckets=[4])
    batch = it.next()
    data, label = batch.data[0].asnumpy(), batch.label[0].asnumpy()
    assert batch.bucket_key == 4 and data.shape == (2, 4)
    np.testing.assert_array_equal(label[:, :-1], data[:, 1:])
    assert (label[:, -1] == -1).all() and (data[:, -1] == -1).all()
    with pytest.raises(StopIteration):
        it.next()


def test_encode_sentences():
    encoded, vocab = mx.rnn.encode_sentences([["a", "b"], ["b", "c"]], invalid_label=1)
    assert encoded == [[0, 2], [2, 3]] and vocab["\n"] == 1
    encoded, _ = mx.rnn.encode_sentences([["a", "z"]], vocab=dict(vocab), unknown_token="a")
    assert encoded == [[0, 0]]
    with pytest.raises(mx.MXNetError, match="unknown token 'z'"):
        mx.rnn.encode_sentences([["z"]], vocab=dict(vocab))
