"""BucketingModule: a small LSTM language model trained on sentences of three lengths.

The model of MXNet's ``example/rnn/bucketing`` at a teaching size: Embedding, an LSTM
unrolled by ``mx.rnn.LSTMCell`` to the bucket's length, a FullyConnected over the
vocabulary and SoftmaxOutput.  ``BucketingModule`` binds one Module per length, each
sharing the default (longest) bucket's parameters and gradients (``shared_module``);
the batches alternate between the lengths, so every step switches bucket.  Timed on
minimx and MXNet 1.9.1, run alternately (``best_of_rounds``): the first pass (binding a
Module per bucket) and a training step (``forward_backward`` + ``update``) after it.
"""
import json

from _util import best_of_rounds, fmt, print_table, ratio

WORKLOAD = """
import json, time
import numpy as np
import {lib} as mx

VOCAB, EMBED, HIDDEN, BATCH, BUCKETS = 500, 32, 64, 16, (5, 10, 20)


def sym_gen(length):
    data, label = mx.sym.Variable('data'), mx.sym.Variable('softmax_label')
    embed = mx.sym.Embedding(data, input_dim=VOCAB, output_dim=EMBED, name='embed')
    cell = mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix='lstm_')
    outputs, _ = cell.unroll(length, inputs=embed, merge_outputs=True)
    pred = mx.sym.FullyConnected(mx.sym.Reshape(outputs, shape=(-1, HIDDEN)),
                                 num_hidden=VOCAB, name='pred')
    pred = mx.sym.SoftmaxOutput(pred, mx.sym.Reshape(label, shape=(-1,)), name='softmax')
    return pred, ('data',), ('softmax_label',)


def batch(rng, length):
    shape = (BATCH, length)
    return mx.io.DataBatch([mx.nd.array(rng.randint(0, VOCAB, shape))],
                           [mx.nd.array(rng.randint(0, VOCAB, shape))], bucket_key=length,
                           provide_data=[mx.io.DataDesc('data', shape)],
                           provide_label=[mx.io.DataDesc('softmax_label', shape)])


rng = np.random.RandomState(0)
batches = [batch(rng, length) for _ in range(4) for length in BUCKETS]
module = mx.mod.BucketingModule(sym_gen, default_bucket_key=max(BUCKETS), context=mx.cpu())
module.bind(data_shapes=[('data', (BATCH, max(BUCKETS)))],
            label_shapes=[('softmax_label', (BATCH, max(BUCKETS)))])
module.init_params(mx.init.Xavier())
module.init_optimizer(optimizer='sgd', optimizer_params={{'learning_rate': 0.01}})


def one_pass():
    start = time.perf_counter()
    for data_batch in batches:
        module.forward_backward(data_batch)
        module.update()
    mx.nd.waitall()
    return (time.perf_counter() - start) / len(batches) * 1e3


first = one_pass()
print(json.dumps({{'first pass (binds the buckets)': first,
                  'training step': min(one_pass() for _ in range(5))}}))
"""
ROUNDS = 3


def main():
    ours, theirs = best_of_rounds(WORKLOAD, ROUNDS)
    rows = [(key, fmt(value, " ms"), fmt(theirs.get(key), " ms"), ratio(value, theirs.get(key)))
            for key, value in ours.items()]
    print_table(f"BucketingModule LSTM LM, buckets 5/10/20, batch 16, ms per batch (best of "
                f"{ROUNDS} rounds)", ("figure", "minimx", "MXNet 1.9.1", "minimx / MXNet"), rows)
    return ours, theirs


if __name__ == "__main__":
    print(json.dumps(main()))
