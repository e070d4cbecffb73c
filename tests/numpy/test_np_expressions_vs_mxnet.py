"""Everyday ``mx.np`` / ``npx`` expressions, run on minimx and on MXNet 1.9.1 in NumPy mode:
the result's type, dtype, shape and values must agree.

A sweep of about 200 expressions (creation, reductions, methods, promotion, indexing,
``npx`` layers) found, besides what earlier sweeps fixed: the ``argsort`` *method* gave
float32 indices (``np.argsort`` gave int64, as MXNet's method does), ``np.full(shape,
True)`` was float32 (MXNet: bool), and ``x.nonzero()`` was missing.  Expressions where the
two differ on purpose stay out, with the reason: ``x // 2`` and ``np.triu``/``asarray``/
``logical_and`` (MXNet 1.9.1's np lacks them), ``np.histogram`` without a range (MXNet:
NotImplementedError), an integer array's ``std``/``var`` (MXNet truncates to int), mixing
an ``np.ndarray`` with a host NumPy array (MXNet refuses), random values, last-ulp
float32 differences (``exp``, ``softmax``), and what NumPy itself computes for each side,
which changed between NumPy 1.23 (MXNet's) and 2.x (``np.count_nonzero(x)``: ``int`` /
``numpy.int64``).
"""
import json

import pytest

from same_program import on_minimx_np_mode, on_mxnet

EXPRESSIONS = [
    "np.array([1, 2, 3])", "np.array([1.5, 2])", "np.array([True, False])", "np.array(3)",
    "np.array([[1, 2], [3, 4]], dtype='int32')", "np.zeros(3)", "np.ones((2, 2), dtype=int)",
    "np.full((2,), 7)", "np.full((2,), 7.5)", "np.full((2,), True)",
    "np.full((2,), False, dtype=None)", "np.full((2,), 3, dtype='int32')",
    "np.full_like(np.ones(2), True)", "np.arange(3)", "np.arange(1, 4, dtype='int64')",
    "np.arange(0.5, 2)", "np.linspace(0, 1, 5)", "np.eye(2)", "np.identity(3)",
    "np.zeros_like(np.array([1, 2], dtype='int32'))", "np.ones_like(np.array([1, 2]))",
    "np.array([1, 2, 3]).sum()", "np.array([1, 2, 3], dtype='int32').sum()",
    "np.array([1, 2, 3], dtype='int32').mean()", "np.array([1, 2, 3], dtype='int32').prod()",
    "np.array([True, False, True]).sum()", "np.array([1, 2, 3], dtype='int32').max()",
    "np.array([1, 2, 3], dtype='int32').argmax()", "np.array([[1, 2], [3, 4]]).argmax(axis=1)",
    "np.array([1., 2., 3.]).std()", "np.array([1., 2., 3.]).var()",
    "np.array([1, 2, 3], dtype='int32').cumsum()",
    "np.array([3, 1, 2], dtype='int32').argsort()", "np.array([3., 1., 2.]).argsort(axis=0)",
    "np.array([[3., 1.], [0., 2.]]).argsort(axis=None)",
    "np.argsort(np.array([[3., 1.], [0., 2.]]), axis=1)",
    "np.sort(np.array([3, 1, 2]))", "np.unique(np.array([3, 1, 3]))",
    "np.where(np.array([1., 0., 2.]) > 0.5)", "np.where(np.array([1., 0., 2.]) > 0.5, 1, 0)",
    "np.nonzero(np.array([1., 0., 2.]))", "np.array([1., 0., 2.]).nonzero()",
    "np.clip(np.array([1., 5., -2.]), 0, 3)",
    "np.dot(np.array([1., 2.]), np.array([3., 4.]))",
    "np.matmul(np.ones((2, 3)), np.ones((3,)))", "np.linalg.norm(np.array([3., 4.]))",
    "np.concatenate([np.array([1., 2.]), np.array([3.])])",
    "np.stack([np.array([1., 2.]), np.array([3., 4.])], axis=1)", "np.split(np.arange(6), 3)",
    "np.repeat(np.array([1., 2.]), 2)", "np.squeeze(np.ones((1, 2, 1)))",
    "np.reshape(np.arange(6), (2, -1))", "np.roll(np.arange(4), 1)",
    "np.array([1, 2], dtype='int32') / 2", "np.array([1, 2], dtype='int32') * 1.5",
    "np.array([1, 2], dtype='int32') + np.array([1., 2.])",
    "np.array([1., 2.]) + np.array([1, 2], dtype='int64')",
    "np.array([1, 2], dtype='int32') ** 2", "2 ** np.array([1, 2], dtype='int32')",
    "np.array([1., 2.]) == 1", "-np.array([1, 2], dtype='uint8')",
    "np.array([1., 2., 3.])[np.array([0, 2])]",
    "np.array([1., 2., 3.])[np.array([True, False, True])]",
    "np.array([[1., 2.], [3., 4.]])[np.array([1, 0]), np.array([0, 1])]",
    "np.array([[1., 2.], [3., 4.]])[-1, -1]", "float(np.array([2.5]))", "int(np.array([2.7]))",
    "np.array([1., 2.]).tolist()", "np.array([2.5]).item()", "len(np.ones((3, 2)))",
    "np.array([1, 2], dtype='int8') + np.array([1, 2], dtype='int32')",
    "np.array([1, 2], dtype='float16') + np.array([1., 2.])",
    "np.array([1, 2], dtype='int64') + 1.5", "np.array([0.5]) * True",
    "np.array([True, False]).mean()", "np.array([200, 100], dtype='uint8').sum()",
    "np.array([1, 2, 3], dtype='int32').mean(dtype='float64')",
    "npx.relu(np.array([-1., 2.]))", "npx.one_hot(np.array([0, 2]), 3)",
    "npx.pick(np.array([[1., 2.], [3., 4.]]), np.array([1, 0]))",
    "npx.topk(np.array([3., 1., 2.]), k=2)", "npx.topk(np.array([3., 1., 2.]), k=2, ret_typ='both')",
    "npx.sequence_mask(np.ones((3, 2)), np.array([1, 2]), use_sequence_length=True)",
    "npx.reshape(np.ones((2, 3, 4)), (-2, -1)).shape", "npx.shape_array(np.ones((2, 3)))",
    "np.sum(np.array([[1., 2.]]), axis=1, keepdims=True)",
    "np.mean(np.array([[1, 2]], dtype='int64'), axis=0)", "np.all(np.array([1., 0.]))",
    "np.isnan(np.array([1., float('nan')]))", "np.tril(np.ones((3, 3)))",
    "np.diag(np.array([1., 2.]))", "np.einsum('ij,jk->ik', np.ones((2, 3)), np.ones((3, 2)))",
    "np.round(np.array([1.5, 2.5]))", "np.array(np.float32(3.5))",
    "np.array(onp.array([1, 2], dtype='int32'))", "np.array([[1, 2], [3, 4]]).flatten()",
    "np.bincount(np.array([0, 1, 1], dtype='int64'))", "np.diff(np.array([1., 4., 9.]))",
    "np.interp(np.array([1.5]), np.array([1., 2.]), np.array([10., 20.]))",
    "np.array([1., 2.]).take(np.array([1, 0]))", "np.array([1, 2], dtype='int32').astype(bool)",
]

PROGRAM = """
import json
import numpy as onp
np, npx = mx.np, mx.npx
npx.set_np()

def describe(value):
    if isinstance(value, (list, tuple)):
        return [describe(item) for item in value]
    if hasattr(value, "asnumpy"):
        array = value.asnumpy()
        return [type(value).__name__, str(array.dtype), list(array.shape), array.tolist()]
    if hasattr(value, "dtype"):                       # a NumPy scalar: its dtype and value
        return ["scalar", str(value.dtype), value.item()]
    return [type(value).__name__, value]

out = {}
for expression in json.loads(INPUT):
    try:
        out[expression] = describe(eval(expression))
    except Exception as error:
        out[expression] = "raised " + type(error).__name__
print(json.dumps(out))
"""


def assert_both_sides_agree(mxnet_python, program, expressions):
    given = json.dumps(expressions)
    ours = on_minimx_np_mode(program, given)
    theirs = on_mxnet(mxnet_python, program, given)
    differ = {key: (ours[key], theirs[key]) for key in theirs if ours[key] != theirs[key]}
    assert not differ, json.dumps(differ, indent=1)[:3000]


def test_expressions_match_mxnet(mxnet_python):
    assert_both_sides_agree(mxnet_python, PROGRAM, EXPRESSIONS)


@pytest.mark.parametrize("expression, dtype", [
    ("np.array([3., 1., 2.]).argsort()", "int64"), ("np.full((2,), True)", "bool"),
    ("np.full((2,), 1.0)", "float32"), ("np.array([1., 0., 2.]).nonzero()[0]", "int64")])
def test_method_and_creation_dtypes(expression, dtype):
    got = on_minimx_np_mode(PROGRAM, json.dumps([expression]))[expression]
    assert got[1] == dtype, got


# random draws: type, dtype and shape only (the two sides' generators differ)
RANDOM = [
    "np.random.normal()", "np.random.normal(size=3)", "np.random.normal(np.zeros(2), 1)",
    "np.random.normal(0, np.ones((2, 1)), size=(2, 3))", "np.random.uniform()",
    "np.random.uniform(0, 1, 3)", "np.random.randint(5)", "np.random.randint(0, 5, size=2)",
    "np.random.randint(0, 5, size=(2,), dtype='int32')", "np.random.choice(5)",
    "np.random.choice(5, 3, replace=False)", "np.random.choice(np.array([1., 2., 3.]), 2)",
    "np.random.choice(5, 3, p=np.array([0.2, 0.2, 0.2, 0.2, 0.2]))",
    "np.random.choice(5, (2, 2), replace=False, p=np.array([0.2, 0.2, 0.2, 0.2, 0.2]))",
    "np.random.multinomial(5, [0.5, 0.5], size=2)", "np.random.exponential(1.0, size=2)",
    "np.random.gamma(2.0, size=2)", "np.random.beta(1., 2., size=2)",
    "np.random.lognormal(size=2)", "np.random.logistic(size=2)", "np.random.gumbel(size=2)",
    "np.random.rayleigh(size=2)", "np.random.weibull(1.0, size=2)",
    "np.random.pareto(1.0, size=2)", "np.random.power(1.0, size=2)",
    "np.random.chisquare(2.0, size=2)", "np.random.randn(2, 2)", "np.random.rand(3)",
    "np.random.normal(0, 1, size=(2,), dtype='float64')", "np.random.normal(0, 1, (0,))",
    "np.random.uniform(size=())",
]
RANDOM_PROGRAM = PROGRAM.replace(
    "array.tolist()]", "None]").replace('value.item()]', 'None]')


def test_random_draws_have_mxnets_types_and_shapes(mxnet_python):
    assert_both_sides_agree(mxnet_python, RANDOM_PROGRAM, RANDOM)
