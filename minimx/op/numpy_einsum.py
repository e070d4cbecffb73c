"""``np.einsum`` as one operator, ``_npi_einsum``, with a gradient for any subscripts.

Lesson: 04-autograd.  Mirrors ``src/operator/numpy/np_einsum_op.cc`` under MXNet's name.  The
gradient of operand ``k`` is itself an einsum: the output's gradient times the other
operands, summed down to operand ``k``'s letters.  Three things make it more than one line:

- an ellipsis stands for letters, spelled out once the shapes are known (``spelled_out``);
- an axis of size 1 that NumPy broadcasts against a longer one is summed: it is left out of
  its operand's letters, and its gradient is reshaped back;
- a letter repeated in one operand (``'ii'``: the diagonal) reads the entries where those
  axes agree, so the gradient is written there and is zero elsewhere.
"""
import string

import numpy as np

from .params import Param
from .registry import ALL_NEEDED, OpDef, TestHints, register_op

MAX_OPERANDS = 32           # NumPy's (and MXNet's) limit on einsum's operands


def einsum_parts(subscripts):
    """``'ij,jk->ik'`` -> (['ij', 'jk'], 'ik'); without ``->``, NumPy's implicit output: the
    ellipsis (if any) then the letters seen once, sorted."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if not arrow:
        letters = inputs.replace(".", "").replace(",", "")
        once = sorted(c for c in set(letters) if letters.count(c) == 1)
        output = ("..." if "..." in inputs else "") + "".join(once)
    return terms, output


def spelled_out(subscripts, shapes):
    """The terms and output with every ellipsis replaced by letters of its own (right-aligned:
    an operand with fewer axes under its ellipsis takes the last ones)."""
    terms, output = einsum_parts(subscripts)
    unused = iter(c for c in string.ascii_letters if c not in subscripts)
    widths = [len(shape) - (len(term) - 3) for term, shape in zip(terms, shapes) if "..." in term]
    dots = "".join(next(unused) for _ in range(max(widths, default=0)))
    terms = [term.replace("...", dots[len(dots) - (len(shape) - (len(term) - 3)):])
             for term, shape in zip(terms, shapes)]
    return terms, output.replace("...", dots)


def _letter_sizes(terms, shapes):
    """Each letter's size, by NumPy's broadcasting: the size other than 1 where there is one."""
    sizes = {}
    for term, shape in zip(terms, shapes):
        for letter, size in zip(term, shape):
            if sizes.get(letter, 1) == 1:
                sizes[letter] = size
    return sizes


def einsum_gradients(xp, subscripts, arrays, out_grad, needs):
    """The gradient of every operand ``needs`` asks for (None for the others)."""
    terms, output = spelled_out(subscripts, [a.shape for a in arrays])
    sizes = _letter_sizes(terms, [a.shape for a in arrays])
    # broadcast axes (size 1 against a longer one) leave their operand: summed over
    kept_terms, kept_arrays = [], []
    for term, array in zip(terms, arrays):
        keep = [axis for axis, letter in enumerate(term) if array.shape[axis] == sizes[letter]]
        kept_terms.append("".join(term[axis] for axis in keep))
        kept_arrays.append(array.reshape([array.shape[axis] for axis in keep]))
    out_grad = out_grad.reshape([sizes[letter] for letter in output])
    grads = []
    for position, array in enumerate(arrays):
        if not needs[position]:
            grads.append(None)
            continue
        others = [k for k in range(len(arrays)) if k != position]
        grad = _operand_gradient(xp, kept_terms[position], output, out_grad,
                                 [kept_terms[k] for k in others],
                                 [kept_arrays[k] for k in others], sizes)
        grads.append(grad.reshape(array.shape).astype(array.dtype, copy=False))
    return tuple(grads)


def _operand_gradient(xp, term, output, out_grad, other_terms, others, sizes):
    letters = "".join(dict.fromkeys(term))                  # each letter once, in order
    reachable = set(output).union(*other_terms)
    summed_alone = [letter for letter in letters if letter not in reachable]
    kept = "".join(letter for letter in letters if letter not in summed_alone)
    grad = xp.einsum(",".join([output, *other_terms]) + "->" + kept, out_grad, *others)
    # a letter only this operand has was summed in the forward: its gradient is the same
    # all along it
    grad = xp.broadcast_to(grad.reshape([1 if c in summed_alone else sizes[c] for c in letters]),
                           [sizes[c] for c in letters])
    if len(letters) == len(term):
        return xp.transpose(grad, [letters.index(c) for c in term]) if letters != term \
            else grad
    # a repeated letter: the gradient goes onto the diagonal it read
    full = xp.zeros([sizes[c] for c in term], dtype=grad.dtype)
    diagonal = tuple(xp.arange(sizes[c]).reshape([-1 if k == letters.index(c) else 1
                                                  for k in range(len(letters))])
                     for c in term)
    full[diagonal] = grad
    return full


@register_op
class Einsum(OpDef):
    """Einstein summation over any number of operands (``subscripts`` as NumPy's;
    ``optimize=1`` lets NumPy contract pairwise in its chosen order)."""

    name = "_npi_einsum"
    variadic = True
    params = {"subscripts": Param(str, doc="NumPy's subscripts, e.g. 'ij,jk->ik'"),
              "num_args": Param(int, default=1),
              "optimize": Param(int, default=0, doc="1: NumPy's optimized contraction order")}
    saves = tuple(f"arg{k}" for k in range(MAX_OPERANDS))
    test = TestHints(shapes=((2, 3), (3, 4)), params={"subscripts": "ij,jk->ik"},
                     cases=(({"subscripts": "ii->i"}, ((3, 3),)),
                            ({"subscripts": "ij->"}, ((2, 3),)),
                            ({"subscripts": "bij,bjk->bik"}, ((2, 2, 3), (2, 3, 2))),
                            ({"subscripts": "ii"}, ((3, 3),)),
                            ({"subscripts": "iij->j"}, ((2, 2, 3),)),
                            ({"subscripts": "...ij,...jk->...ik", "optimize": 1},
                             ((3, 1, 2, 4), (2, 4, 2))),
                            ({"subscripts": "ij,ij->i"}, ((1, 4), (2, 4))),
                            ({"subscripts": "ij,jk,kl->il", "optimize": 1},
                             ((2, 2), (2, 5), (5, 2)))),
                     reference=lambda np, *xs, subscripts, optimize=0: np.atleast_1d(
                         np.einsum(subscripts, *xs)))

    def infer_shape(self, *shapes):
        probes = [np.empty(shape, dtype=np.int8) for shape in shapes]
        try:
            result = np.einsum(self.subscripts, *probes).shape
        except ValueError as error:
            raise self.shape_error(f"subscripts {self.subscripts!r} do not fit the shapes "
                                   f"{[tuple(s) for s in shapes]}: {error}")
        return result if result else (1,)

    def infer_type(self, *dtypes):
        return dtypes[0]

    def forward(self, xp, *arrays):
        result = xp.asarray(xp.einsum(self.subscripts, *arrays, optimize=bool(self.optimize)))
        return result.reshape(1) if result.ndim == 0 else result     # MXNet's (1,) for ()

    def backward(self, xp, out_grad, needs=ALL_NEEDED, **saved):
        arrays = [saved[f"arg{k}"] for k in range(self.num_args)]
        return einsum_gradients(xp, self.subscripts, arrays, out_grad, needs)
