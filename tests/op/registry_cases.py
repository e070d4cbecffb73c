"""The test cases the registry describes: every operator x TestHints case x dtype.

Shared by ``test_registry.py`` and ``test_vs_mxnet.py``.  Case 0 is the hints'
default (``shapes``, ``params``); case ``k`` is ``cases[k - 1]``, a complete
``(params, shapes)`` pair (its params do not inherit the default ones).  Inputs
are uniform in ``[low, high]``; inputs named in ``integer_inputs`` hold whole
numbers in ``[0, n)`` (or ``[lo, hi)`` for a pair), stored in the case's dtype
as MXNet's index inputs are.
"""
import inspect
from dataclasses import dataclass

import numpy as np

import minimx as mx
from minimx import autograd, nd
from minimx.op import list_ops
from references import REFERENCES


@dataclass(frozen=True)
class OpCase:
    """One generated case: an operator class, its parameters, input shapes and dtype."""

    op: type
    index: int
    params: dict
    shapes: tuple
    dtype: str

    @property
    def id(self):
        return f"{self.op.name}-case{self.index}-{self.dtype}"

    @property
    def hints(self):
        return self.op.test

    def instance(self):
        return self.op.create(**self.call_params())

    def call_params(self):
        """The parameters as the nd function receives them (``num_args`` filled in)."""
        if self.op.variadic and "num_args" in self.op.params:
            return {"num_args": len(self.shapes), **self.params}
        return dict(self.params)

    def input_names(self):
        op = self.instance()
        if self.op.variadic:
            return tuple(op.list_inputs(len(self.shapes)))
        return tuple(op.list_inputs())

    def function(self):
        """The generated ``nd`` function of this operator."""
        return getattr(nd.op, self.op.name)

    def is_float(self):
        return np.issubdtype(np.dtype(self.dtype), np.floating)

    def grad_inputs(self):
        """Positions of the inputs a gradient check perturbs."""
        op = self.instance()
        skip = set(op.no_grad_inputs) | set(op.aux) | set(self.hints.integer_inputs)
        return [i for i, name in enumerate(self.input_names()) if name not in skip]

    def checks_gradient(self):
        hints = self.hints
        wanted = hints.grad if isinstance(hints.grad, bool) else self.index in hints.grad
        return (self.op.differentiable and wanted and not hints.random and self.is_float()
                and bool(self.grad_inputs()))


def all_cases():
    """Every case of every registered operator, in a stable order."""
    cases = []
    for op_cls in list_ops():
        hints = op_cls.test
        if not hints.generated:
            continue
        variants = [(dict(hints.params), hints.shapes)]
        variants += [(dict(params), shapes) for params, shapes in hints.cases]
        for index, (params, shapes) in enumerate(variants):
            for dtype in hints.dtypes:
                cases.append(OpCase(op_cls, index, params, tuple(map(tuple, shapes)),
                                    np.dtype(dtype).name))
    return cases


def make_inputs(case, rng=np.random):
    """Numpy inputs for ``case`` drawn from ``rng`` (numpy's global state by default)."""
    hints = case.hints
    if hints.inputs is not None:
        return [np.asarray(x).astype(case.dtype) for x in
                hints.inputs(rng, [tuple(s) for s in case.shapes], case.dtype)]
    inputs = []
    for name, shape in zip(case.input_names(), case.shapes):
        bounds = hints.integer_inputs.get(name)
        if bounds is not None:
            low, high = (0, bounds) if np.isscalar(bounds) else bounds
            values = rng.randint(low, high, size=shape)
        else:
            values = rng.uniform(hints.low, hints.high, size=shape)
        inputs.append(np.asarray(values).astype(hints.input_dtypes.get(name, case.dtype)))
    return inputs


def reference_for(case):
    """The numpy reference of ``case``: the TestHints' own, else ``references.REFERENCES``."""
    return case.hints.reference or REFERENCES.get(case.op.name)


def reference_output(case, inputs):
    """The case's reference applied to the inputs, as a list of numpy arrays.

    The reference is called as ``reference(np, *inputs, **params)`` with the
    case parameters its signature names (all of them if it takes ``**kwargs``).
    """
    reference = reference_for(case)
    signature = inspect.signature(reference)
    takes_all = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    params = {key: value for key, value in case.params.items()
              if takes_all or key in signature.parameters}
    result = reference(np, *[x.copy() for x in inputs], **params)
    return [np.asarray(r) for r in result] if isinstance(result, (list, tuple)) \
        else [np.asarray(result)]


def as_list(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def head_gradient_shapes(case):
    """Shapes of the visible outputs (the head gradients backward needs)."""
    op = case.instance()
    return op.output_shapes(list(case.shapes))[:op.num_visible()]


def forward_backward(case, inputs, head_grads, ctx):
    """Outputs, then the gradients of the checked inputs, as numpy arrays.

    Runs under ``autograd.record()`` (training mode) with ``mx.random.seed(7)``;
    backward takes ``head_grads`` when the case checks a gradient.
    """
    outputs, grads = forward_backward_nd(case, inputs, head_grads, ctx)
    return [o.asnumpy() for o in outputs], [g.asnumpy() for g in grads]


def forward_backward_nd(case, inputs, head_grads, ctx):
    """``forward_backward``'s outputs and gradients as NDArrays on ``ctx`` (not read yet)."""
    mx.random.seed(7)
    arrays = [nd.array(x, ctx=ctx, dtype=x.dtype) for x in inputs]
    grad_positions = case.grad_inputs() if case.checks_gradient() else []
    for position in grad_positions:
        arrays[position].attach_grad()
    with autograd.record():
        outputs = as_list(case.function()(*arrays, ctx=ctx, **case.call_params()))
    if grad_positions:
        heads = [nd.array(g, ctx=ctx, dtype=o.dtype) for g, o in zip(head_grads, outputs)]
        autograd.backward(outputs, heads)
    return outputs, [arrays[position].grad for position in grad_positions]
