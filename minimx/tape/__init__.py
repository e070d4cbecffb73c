"""The tape's own layer: the recording flags and the nodes a recorded graph is made of.

Lesson: 04-autograd.  This part sits *below* NDArray: an operator call asks
``recording.is_recording()`` and links its outputs to an ``OpNode``, and neither
needs to know what an NDArray is.  ``minimx.autograd`` (above NDArray) walks
these nodes backwards and pushes each gradient step.
"""
from . import nodes, recording
from .nodes import FunctionNode, OpNode, VariableNode
from .recording import is_recording, is_training, set_recording, set_training

__all__ = ["nodes", "recording", "OpNode", "VariableNode", "FunctionNode", "is_recording",
           "is_training", "set_recording", "set_training"]
