"""``NDArray.__getstate__``/``__setstate__`` against MXNet 1.9.1: the state is
``{'handle': bytearray}``, one array record as ``nd.save`` writes it.  Each side makes
the states of the same arrays (their bytes must be equal), and each side restores the
other's states with ``__setstate__`` (hex strings over a pipe; nothing is unpickled from
a file, and ``pickle`` round trips only bytes made in the same process).
"""
import json

from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json, pickle
import numpy as np
nd = mx.nd
arrays = [nd.array([[1, 2], [3, 4]]), nd.arange(6, dtype='float64').reshape((3, 2)),
          nd.array([-1, 0, 7], dtype='int32'), nd.array([1.5, -2.25], dtype='float16'),
          nd.array([200, 3], dtype='uint8'), nd.array([2 ** 40, -5], dtype='int64'),
          nd.ones((2, 1, 3), dtype='int8'), nd.zeros((1,))]
result = {'states': [bytes(a.__getstate__()['handle']).hex() for a in arrays],
          'keys': sorted(arrays[0].__getstate__())}
restored = []
for text in json.loads(INPUT or '[]'):
    fresh = nd.empty((1,))
    fresh.__setstate__({'handle': bytearray.fromhex(text)})
    restored.append([fresh.dtype.__name__ if hasattr(fresh.dtype, '__name__') else str(fresh.dtype),
                     list(fresh.shape), fresh.asnumpy().tolist()])
result['restored'] = restored
again = pickle.loads(pickle.dumps(arrays[1]))
result['round trip'] = again.asnumpy().tolist()
print(json.dumps(result))
"""


def test_pickled_state_matches_mxnet(mxnet_python):
    ours, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    assert ours["states"] == theirs["states"]
    assert ours["keys"] == theirs["keys"] == ["handle"]
    assert ours["round trip"] == theirs["round trip"]
    mine = on_minimx(PROGRAM, json.dumps(theirs["states"]))["restored"]
    reference = on_mxnet(mxnet_python, PROGRAM, json.dumps(ours["states"]))["restored"]
    assert mine == reference and len(mine) == 8
