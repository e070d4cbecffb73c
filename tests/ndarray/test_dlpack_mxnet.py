"""``nd.to_dlpack_for_read``/``to_dlpack_for_write``/``from_dlpack`` (minimx/ndarray/
dlpack.py) against MXNet 1.9.1: one program on both sides (``same_program``).  Values
survive the round trip; memory is shared both ways (a write on either side shows on the
other); a capsule is consumed once (a second ``from_dlpack`` raises AssertionError, as
MXNet's); capsules of numpy arrays are read, and numpy reads minimx's.  The two sides
have separate engine vars, so the program waits (``nd.waitall``) between a write on one
side and a read on the other, as an MXNet program must.
"""
from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
import numpy as np
nd = mx.nd
result = {}
def out(name, array):
    result[name] = [array.dtype.name if hasattr(array.dtype, 'name') else str(array.dtype),
                    list(array.shape), array.asnumpy().astype('float64').tolist()
                    if hasattr(array, 'asnumpy') else array.astype('float64').tolist()]
class Producer:
    def __init__(self, capsule):
        self.capsule = capsule
    def __dlpack__(self, stream=None):
        return self.capsule
    def __dlpack_device__(self):
        return (1, 0)
for dtype in ('float32', 'float64', 'float16', 'int32', 'int64', 'uint8', 'int8'):
    x = nd.array(np.arange(12).reshape(3, 4), dtype=dtype)
    capsule = nd.to_dlpack_for_read(x * 2)
    result[f'kind {dtype}'] = type(capsule).__name__
    out(f'read {dtype}', nd.from_dlpack(capsule))
x = nd.arange(6).reshape((2, 3))
u = nd.from_dlpack(x.to_dlpack_for_write())
u += 1
nd.waitall()      # the two arrays have separate engine vars
out('x after u += 1', x)
x[:] = 7
nd.waitall()
out('u after x[:] = 7', u)
x *= 3
nd.waitall()
out('u after x *= 3', u)
nd.elemwise_add(u, u, out=u)
nd.waitall()
out('x after elemwise_add out=u', x)
out('row view', nd.from_dlpack(nd.to_dlpack_for_read(x[1:2])))
capsule = x.to_dlpack_for_read()
nd.from_dlpack(capsule)
try:
    nd.from_dlpack(capsule)
    result['consumed twice'] = 'accepted'
except AssertionError:
    result['consumed twice'] = 'AssertionError'
a = np.arange(5, dtype='float32')
b = nd.from_dlpack(a.__dlpack__())
out('from numpy', b)
b += 1
b.wait_to_read()
out('numpy after b += 1', a)
c = np.from_dlpack(Producer(nd.to_dlpack_for_read(nd.array([[1.5, 2.5]]))))
out('numpy reads', c)
print(json.dumps(result))
"""


def test_dlpack_matches_mxnet(mxnet_python):
    ours, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert ours[key] == theirs[key], key
