"""``npx.set_np()`` is per thread, as in MXNet 1.9.1: a thread started after it sees legacy
mode (``is_np_array()`` and ``is_np_shape()`` false, ``nd`` arrays), while a DataLoader's
worker threads hand out what the mode of the thread iterating it says (np arrays)."""
import pytest

from same_program import on_minimx, on_mxnet

pytestmark = pytest.mark.mxnet

PROGRAM = """
import json, threading
found = {}


def probe(tag):
    found[tag] = [mx.util.is_np_array(), mx.util.is_np_shape()]


def batch_type(**options):
    data = mx.gluon.data.ArrayDataset(mx.np.arange(8).reshape(4, 2), mx.np.arange(4))
    batch = next(iter(mx.gluon.data.DataLoader(data, batch_size=2, **options)))
    return [isinstance(part, mx.np.ndarray) for part in batch]


try:
    mx.npx.set_np()
    probe("main thread")
    thread = threading.Thread(target=probe, args=("new thread",))
    thread.start()
    thread.join()
    found["loader"] = batch_type()
    found["loader, thread workers"] = batch_type(num_workers=2, thread_pool=True)
    thread = threading.Thread(
        target=lambda: found.update(new_thread_array=type(mx.nd.ones((1,))).__name__))
    thread.start()
    thread.join()
finally:
    mx.npx.reset_np()
probe("after reset_np")
print(json.dumps(found))
"""


def test_set_np_is_per_thread_as_in_mxnet(mxnet_python):
    expected = on_mxnet(mxnet_python, PROGRAM)
    assert expected["new thread"] == [False, False]         # what MXNet 1.9.1 says
    assert on_minimx(PROGRAM) == expected
