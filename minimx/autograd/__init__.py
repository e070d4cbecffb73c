"""``minimx.autograd``: record operations, then compute gradients backwards.

Lesson: 04-autograd.  Mirrors ``python/mxnet/autograd.py``.

>>> x = nd.array([1.0, 2.0]); x.attach_grad()
>>> with autograd.record():
...     y = (x * x).sum()
>>> y.backward(); x.grad.asnumpy()
array([2., 4.], dtype=float32)
"""
import contextlib

from .backprop import backward, grad, mark_variables
from .function import Function
from ..tape.recording import is_recording, is_training, set_recording, set_training

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "mark_variables", "backward", "grad", "Function"]


@contextlib.contextmanager
def _scope(recording, training):
    previous_recording = set_recording(recording) if recording is not None else None
    previous_training = set_training(training) if training is not None else None
    try:
        yield
    finally:
        if recording is not None:
            set_recording(previous_recording)
        if training is not None:
            set_training(previous_training)


def record(train_mode=True):  # noqa: D401 - MXNet's name
    """Record operations for ``backward``; layers run in training mode unless told otherwise."""
    return _scope(True, train_mode)


def pause(train_mode=False):
    """Stop recording inside a ``record()`` block."""
    return _scope(False, train_mode)


def train_mode():
    """Run layers (Dropout, BatchNorm) in training mode, without changing recording."""
    return _scope(None, True)


def predict_mode():
    """Run layers in inference mode, without changing recording."""
    return _scope(None, False)

