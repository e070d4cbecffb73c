"""Whether autograd is recording and whether layers run in training mode.

Lesson: 04-autograd.  Mirrors ``MXAutogradSetIsRecording`` and
``MXAutogradSetIsTraining``.  Both flags are per thread.
"""
import threading

__all__ = ["is_recording", "is_training", "set_recording", "set_training"]


class _State(threading.local):
    """Per thread: both flags, off until the thread sets them (class defaults: read on
    every operator call, without a failed attribute lookup in a fresh thread)."""

    recording = False
    training = False


_state = _State()


def is_recording():
    """True inside ``autograd.record()`` (and not inside ``pause()``)."""
    return _state.recording


def is_training():
    """True when layers such as Dropout and BatchNorm run in training mode."""
    return _state.training


def set_recording(flag):
    """Set the recording flag of this thread; returns the previous value."""
    previous = is_recording()
    _state.recording = bool(flag)
    return previous


def set_training(flag):
    """Set the training flag of this thread; returns the previous value."""
    previous = is_training()
    _state.training = bool(flag)
    return previous
