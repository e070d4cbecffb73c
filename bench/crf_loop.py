"""Many small operations in a Python loop: the forward algorithm and Viterbi decoding of a
linear-chain CRF over one sentence, token by token on small NDArrays.

The pattern of a CRF layer's Python loop (MXNet's BiLSTM-CRF example): per token a
broadcast add of the transition scores, a log-sum-exp or a max over the previous tag,
an add of the emission scores, an argmax kept for the back-pointers; then the best path
read back.  Every operation is tiny (8 tags), so the time is the framework's per-call
work: dispatch, shape and type inference, the engine push.  The same program runs on
minimx and MXNet 1.9.1, alternately (``best_of_rounds``).
"""
import json

from _util import best_of_rounds, fmt, print_table, ratio

WORKLOAD = """
import json, time
import numpy as np
from {lib} import nd

TAGS, LENGTH = 8, 30
rng = np.random.RandomState(0)
emissions = [nd.array(rng.randn(1, TAGS)) for _ in range(LENGTH)]
transitions = nd.array(rng.randn(TAGS, TAGS))


def forward_score():
    alpha = emissions[0]
    for emission in emissions[1:]:
        scores = nd.broadcast_add(alpha.reshape((TAGS, 1)), transitions)
        top = nd.max(scores, axis=0, keepdims=True)
        alpha = nd.log(nd.sum(nd.exp(nd.broadcast_sub(scores, top)), axis=0,
                              keepdims=True)) + top + emission
    top = nd.max(alpha)
    return (nd.log(nd.sum(nd.exp(alpha - top))) + top).asscalar()


def viterbi():
    score, pointers = emissions[0], []
    for emission in emissions[1:]:
        scores = nd.broadcast_add(score.reshape((TAGS, 1)), transitions)
        pointers.append(nd.argmax(scores, axis=0))
        score = nd.max(scores, axis=0, keepdims=True) + emission
    best = int(nd.argmax(score, axis=1).asscalar())
    path = [best]
    for pointer in reversed(pointers):
        best = int(pointer[best].asscalar())
        path.append(best)
    return path[::-1]


def timed(function, repeats=20):
    start = time.perf_counter()
    for _ in range(repeats):
        function()
    nd.waitall()
    return (time.perf_counter() - start) / repeats * 1e3


figures = {{}}
for name, function in (("forward algorithm", forward_score), ("viterbi", viterbi)):
    timed(function, 3)
    figures[name + " ms per sentence"] = min(timed(function) for _ in range(5))
print(json.dumps(figures))
"""
ROUNDS = 3


def main():
    ours, theirs = best_of_rounds(WORKLOAD, ROUNDS)
    rows = [(key, fmt(value, " ms"), fmt(theirs.get(key), " ms"), ratio(value, theirs.get(key)))
            for key, value in ours.items()]
    print_table(f"CRF per-token loop, 8 tags, 30 tokens (best of {ROUNDS} rounds)",
                ("figure", "minimx", "MXNet 1.9.1", "minimx / MXNet"), rows)
    return ours, theirs


if __name__ == "__main__":
    print(json.dumps(main()))
