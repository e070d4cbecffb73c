"""``autograd.Function``: an operation with a gradient written by the user.

Lesson: 04-autograd.  Mirrors ``mxnet.autograd.Function``: subclass it, write
``forward`` and ``backward`` with NDArray operations, and call an instance.

>>> class Sigmoid(autograd.Function):
...     def forward(self, x):
...         y = 1 / (1 + nd.exp(-x)); self.save_for_backward(y); return y
...     def backward(self, dy):
...         y, = self.saved_tensors; return dy * y * (1 - y)
"""
from ..ndarray import NDArray
from ..tape.recording import is_recording, set_recording
from ..tape.nodes import FunctionNode, live_entry

__all__ = ["Function"]


class Function:
    """Base class of user-defined differentiable functions (one instance per call)."""

    def __init__(self):
        self.saved_tensors = ()
        self._used = False

    def save_for_backward(self, *arrays):
        """Keep ``arrays`` for ``backward`` (they appear as ``self.saved_tensors``)."""
        self.saved_tensors = arrays

    def forward(self, *inputs):
        raise NotImplementedError("autograd.Function subclasses must define forward")

    def backward(self, *output_grads):
        raise NotImplementedError("autograd.Function subclasses must define backward")

    def __call__(self, *inputs):
        recording = is_recording()
        previous = set_recording(False)
        try:
            outputs = self.forward(*inputs)
        finally:
            set_recording(previous)
        single = isinstance(outputs, NDArray)
        outputs = [outputs] if single else list(outputs)
        if recording:
            entries = [live_entry(x._autograd) if isinstance(x, NDArray) else None
                       for x in inputs]
            if any(entries):
                node = FunctionNode(self, entries, [o.shape for o in outputs],
                                    [o._dtype for o in outputs], outputs[0].context)
                for index, output in enumerate(outputs):
                    output._autograd = (node, index)
        return outputs[0] if single else outputs

    def _run_backward(self, out_grads, create_graph):
        previous = set_recording(create_graph)
        try:
            result = self.backward(*out_grads)
        finally:
            set_recording(previous)
        return list(result) if isinstance(result, (tuple, list)) else [result]
