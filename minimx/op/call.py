"""How to call a declared operator: the one set of rules every caller follows.

Lesson: 07-symbolic-programming, 04-autograd, 08-executors.  A declaration
(``registry.OpDef``) says *what* an operator computes; this module says how
its ``forward`` and ``backward`` are called, so that the imperative dispatcher
(``ndarray/dispatch.py``), the tape's second-order path
(``autograd/higher_order.py``), the executor's interpreter and programs
(``executor/run.py``, ``program.py``, ``plan.py``) and hybridized blocks
(``gluon/cached_op.py``) all call an operator the same way.  Each caller keeps
only what is its own: the engine push, the tape record, the slot program.

The rules:

* ``forward(xp, *arrays)`` also gets ``is_train`` and ``rng`` when its
  signature names them; it returns one array, or a tuple for several outputs.
* What ``backward`` receives as keywords is what ``saves`` names: an input or
  an output by name, ``<input>_shape`` (that input's shape) or
  ``input_shapes`` (all of them).  Names an instance does not have (an input
  a variadic op was not given) are left out.
* An input gets a gradient unless it is in ``no_grad_inputs`` or ``aux``
  (auxiliary states, which the operator updates in place: an optimizer update's
  ``forward``, BatchNorm's ``backward``).  A saved ``aux`` input is the array
  itself, which ``backward`` may write: callers declare that write to the engine.
* ``backward(xp, *out_grads, **saved)`` also gets ``is_train`` and ``needs``
  (one bool per input: is that gradient wanted?) when its signature names
  them; it returns one gradient per input, None meaning zero or not computed.
  ``is_train`` is the mode of the backward pass (``backward(train_mode=...)``,
  ``Executor.backward(is_train=...)``), as MXNet runs backward nodes in it.
* An output that *is* one of the arrays it was computed from is copied before
  it is written anywhere (``own_buffers``): two arrays never share a buffer.
"""
from functools import partial

from .registry import OpDef

__all__ = ["OpCall", "op_call", "own_buffers"]


class OpCall:
    """The calling facts of one operator instance with ``num_inputs`` inputs, worked out once.

    ``saves``: ``(name, kind, position)`` per saved value, kind being ``input``,
    ``output``, ``shape`` (of an input) or ``input_shapes``; ``gets_grad``: per
    input, whether it can have a gradient; ``aux_positions``: the inputs the
    operator writes (its auxiliary states); ``aux_saves``: the names of those that
    ``backward`` receives (and may write); ``grad_stypes``: the storage type of each
    input's gradient (``op.input_grad_stypes()``; None when every gradient is dense).
    """

    __slots__ = ("op", "input_names", "output_names", "num_visible", "takes_is_train",
                 "random", "backward_takes_is_train", "backward_takes_needs", "saves",
                 "gets_grad", "aux_positions", "aux_saves", "uses_blas", "grad_stypes")

    def __init__(self, op, num_inputs):
        self.op = op
        names = self.input_names = tuple(op.list_inputs(num_inputs))
        outputs = self.output_names = tuple(op.list_outputs())
        self.num_visible = op.num_visible()
        self.takes_is_train = "is_train" in op.forward_extras
        self.random = op.draws_random()
        self.backward_takes_is_train = "is_train" in op.backward_extras
        self.backward_takes_needs = "needs" in op.backward_extras
        saves = []
        for name in op.saves:
            if name == "input_shapes":
                saves.append((name, "input_shapes", None))
            elif name.endswith("_shape") and name[:-6] in names:
                saves.append((name, "shape", names.index(name[:-6])))
            elif name in names:
                saves.append((name, "input", names.index(name)))
            elif name in outputs:
                saves.append((name, "output", outputs.index(name)))
        self.saves = tuple(saves)
        self.gets_grad = tuple(name not in op.no_grad_inputs and name not in op.aux
                               for name in names)
        self.aux_positions = tuple(names.index(name) for name in op.aux if name in names)
        self.aux_saves = tuple(name for name, kind, _ in saves
                               if kind == "input" and name in op.aux)
        self.uses_blas = type(op).blas_work is not OpDef.blas_work
        self.grad_stypes = op.input_grad_stypes()       # None: every gradient dense

    def work(self, input_shapes):
        """Multiply-adds of the operator's largest product for these input shapes (the
        engine's thread budget reads it)."""
        return self.op.blas_work(*input_shapes) if self.uses_blas else 0

    # -- forward ------------------------------------------------------------------------------
    def forward(self, xp, arrays, is_train=False, rng=None):
        """The operator's outputs (a tuple, one per output) for ``arrays``."""
        op = self.op
        if self.takes_is_train:
            result = (op.forward(xp, *arrays, is_train=is_train, rng=rng) if self.random
                      else op.forward(xp, *arrays, is_train=is_train))
        elif self.random:
            result = op.forward(xp, *arrays, rng=rng)
        else:
            result = op.forward(xp, *arrays)
        return result if type(result) is tuple else (result,)

    def kernel(self, xp, is_train=False):
        """``forward`` with ``xp`` (and ``is_train``) bound in: ``kernel(*arrays)`` returns
        what the declaration returns (one array, or a tuple).  Not for random operators."""
        if self.random:
            raise ValueError(f"operator {self.op.name} draws random numbers: call forward() "
                             f"with an rng instead of a kernel")
        if self.takes_is_train:
            return partial(self.op.forward, xp, is_train=is_train)
        return partial(self.op.forward, xp)

    def saved(self, arrays, outputs):
        """What ``backward`` will receive as keywords, taken from one call's arrays.

        ``arrays`` and ``outputs`` may be raw arrays or NDArrays (anything with ``.shape``).
        """
        result = {}
        for name, kind, position in self.saves:
            if kind == "input":
                result[name] = arrays[position]
            elif kind == "output":
                result[name] = outputs[position]
            elif kind == "shape":
                result[name] = tuple(arrays[position].shape)
            else:
                result[name] = tuple(tuple(a.shape) for a in arrays)
        return result

    # -- backward -----------------------------------------------------------------------------
    def needs(self, wanted):
        """``needs`` for ``backward``: ``wanted[i]`` (the caller keeps that gradient) and the
        input can have a gradient at all."""
        return tuple(bool(w) and g for w, g in zip(wanted, self.gets_grad))

    def backward(self, xp, out_grads, saved, wanted, is_train=True):
        """One gradient per input (None where not wanted, not computed, or zero).

        ``out_grads``: one per visible output; ``saved``: what ``saved()`` kept;
        ``wanted``: one bool per input.
        """
        return self.backward_needs(xp, out_grads, saved, self.needs(wanted), is_train)

    def backward_needs(self, xp, out_grads, saved, needs, is_train=True):
        """``backward`` with ``needs`` (``self.needs(wanted)``) worked out by the caller,
        once for many calls (an executor's backward schedule)."""
        op = self.op
        if self.backward_takes_needs:
            result = (op.backward(xp, *out_grads, **saved, is_train=is_train, needs=needs)
                      if self.backward_takes_is_train else
                      op.backward(xp, *out_grads, **saved, needs=needs))
        elif self.backward_takes_is_train:
            result = op.backward(xp, *out_grads, **saved, is_train=is_train)
        else:
            result = op.backward(xp, *out_grads, **saved)
        if type(result) is not tuple and type(result) is not list:
            result = (result,)
        count = len(result)
        if count == len(needs) and all(needs):      # every gradient wanted and given
            return list(result)          # a new list, as below: callers may write into it
        return [result[i] if need and i < count else None for i, need in enumerate(needs)]

    def backward_kernel(self, xp, needs, is_train=True):
        """``backward_needs`` for a lowered program: ``kernel(*out_grads, **saved)`` calls the
        declaration's ``backward`` with ``xp`` and the extras it takes bound in, and returns
        what it returns (one gradient, or a tuple or list).  The caller keeps the gradient at
        position ``i`` only when ``needs[i]`` (as ``backward_needs`` would)."""
        extras = {}
        if self.backward_takes_needs:
            extras["needs"] = needs
        if self.backward_takes_is_train:
            extras["is_train"] = is_train
        return partial(self.op.backward, xp, **extras)


def op_call(op, num_inputs=None):
    """The ``OpCall`` of operator instance ``op`` with ``num_inputs`` inputs (cached on it:
    instances are immutable once made, and equal parameters share one instance)."""
    calls = op.__dict__.get("_calls")
    if calls is None:
        calls = op.__dict__["_calls"] = {}
    call = calls.get(num_inputs)
    if call is None:
        call = calls[num_inputs] = OpCall(op, num_inputs)
    return call


def own_buffers(values, sources):
    """``values`` (a list of raw arrays about to be written into chunks), with a copy in
    place of any that *is* one of ``sources`` (the buffers they were computed from).

    An operator may hand back its input unchanged (``Flatten`` of a 2-D array, the
    gradient of ``+``), and a graph output may be one of its inputs once a planning pass
    removed an identity, or a constant the planner folded; writing that object into
    another chunk would give two chunks one buffer, breaking ``Chunk``'s invariant
    (``y[0] = 7`` would change ``x``, or every later call's output, too).
    """
    held = set(map(id, sources))      # ``is`` by identity, one set lookup per value
    for position, value in enumerate(values):
        if id(value) in held:
            values[position] = value.copy()
    return values
