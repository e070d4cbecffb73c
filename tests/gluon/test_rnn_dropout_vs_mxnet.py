"""Dropout between the layers of ``gluon.rnn.RNN``/``GRU``/``LSTM`` against MXNet 1.9.1.

MXNet's fused RNN operator drops (and scales by ``1 / (1 - p)``) the output of every layer
but the last while training -- on its plain CPU kernel.  MXNet 1.9.1's CPU wheel runs the
oneDNN RNN kernel by default, which ignores ``p``: a multi-layer layer's training output
there equals its prediction output.  minimx follows the plain kernel, so MXNet runs here
with ``MXNET_USE_MKLDNN_RNN=0`` (README.md, "Running existing MXNet code").

The masks are random, so the sides are compared by statistics: for the same parameters and
input, each draw's mean ``|training output - prediction output|``, over many draws -- its
mean and spread, per cell kind and layer count.  A wrong placement (dropout after the last
layer too, or none at all), a wrong scale, or ``p`` taken as the keep probability moves them far
outside the tolerance (``test_the_statistics_tell_wrong_dropout_apart``).
"""
import json
import math

import pytest

from minimx.gluon.rnn import rnn_layer
from minimx.op import rnn as rnn_op
from same_program import on_minimx, on_mxnet

pytestmark = pytest.mark.mxnet

P = 0.3            # not 0.5: p taken as the keep probability must show
DRAWS = 40
CASES = [(kind, layers, False, False) for kind in ("RNN", "GRU", "LSTM")
         for layers in (1, 2, 3)]
CASES += [("GRU", 2, True, False),       # bidirectional: both directions' outputs dropped
          ("LSTM", 2, False, True)]      # hybridized: the symbolic path alike

PROGRAM = """
import json
import numpy
autograd, gluon = mx.autograd, mx.gluon

def case(kind, layers, bidirectional, hybridize, p, draws, T=5, N=8, I=4, H=16):
    net = getattr(gluon.rnn, kind)(H, num_layers=layers, dropout=p, input_size=I,
                                   bidirectional=bidirectional)
    net.initialize()
    if hybridize:
        net.hybridize()
    source = numpy.random.RandomState(0)    # the same parameters and input on both sides
    for param in net.collect_params().values():
        param.set_data(mx.nd.array(source.uniform(-0.5, 0.5, param.shape)))
    x = mx.nd.array(source.uniform(-1, 1, (T, N, I)))
    prediction = net(x).asnumpy()
    diffs = []
    for _ in range(draws):
        with autograd.record():
            y = net(x)
        diffs.append(float(numpy.abs(y.asnumpy() - prediction).mean()))
    return [float(numpy.abs(prediction).mean()), float(numpy.mean(diffs)),
            float(numpy.std(diffs))]

mx.random.seed(3)
CASES, P, DRAWS = json.loads(INPUT)
print(json.dumps([case(*c, P, DRAWS) for c in CASES]))
"""


def case_id(case):
    kind, layers, bidirectional, hybridize = case
    return f"{kind}{layers}" + ("-bidirectional" if bidirectional else "") + \
        ("-hybridized" if hybridize else "")


@pytest.fixture(scope="module")
def reference(mxnet_python):
    """MXNet's statistics on its plain CPU kernel, one subprocess for every case."""
    return on_mxnet(mxnet_python, PROGRAM, json.dumps([CASES, P, DRAWS]),
                    env={"MXNET_USE_MKLDNN_RNN": "0"})


def minimx_stats(cases=CASES, p=P):
    return on_minimx(PROGRAM, json.dumps([cases, p, DRAWS]))


def disagreement(mine, theirs, layers):
    """Why ``mine`` is not MXNet's ``theirs`` (None when they agree): both sides' prediction
    outputs equal (the same parameters); one layer: no dropout at all; more: the mean
    difference within four standard errors, the spread within a factor of two."""
    (size, mean, sd), (size_mx, mean_mx, sd_mx) = mine, theirs
    if not math.isclose(size, size_mx, rel_tol=1e-5):
        return f"prediction outputs differ: mean |y| {size} vs {size_mx}"
    if layers == 1:
        return None if mean == mean_mx == 0 else f"one layer dropped: {mean} vs {mean_mx}"
    error = math.sqrt((sd ** 2 + sd_mx ** 2) / DRAWS)
    if abs(mean - mean_mx) > 4 * error:
        return f"mean difference {mean:.4f} vs MXNet's {mean_mx:.4f} (4 s.e. {4 * error:.4f})"
    if not 0.5 <= sd / sd_mx <= 2:
        return f"spread of the difference {sd:.4f} vs MXNet's {sd_mx:.4f}"
    return None


@pytest.fixture(scope="module")
def mine():
    return minimx_stats()


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_id(c) for c in CASES])
def test_dropout_between_layers_as_mxnet(reference, mine, index):
    layers = CASES[index][1]
    assert disagreement(mine[index], reference[index], layers) is None, \
        (case_id(CASES[index]), mine[index], reference[index])
    if layers > 1:                       # dropout did happen, on both sides
        assert mine[index][1] > 0.01 and reference[index][1] > 0.01


def _wrong_masks(monkeypatch, wrong):
    """Make minimx's RNN layers drop the wrong way (``wrong`` names how)."""
    if wrong == "after_last_too":                 # a Dropout on the last layer's output too
        plain_fused = rnn_layer._RNNLayer._fused

        def fused(self, F, inputs, states, params):
            outputs, states = plain_fused(self, F, inputs, states, params)
            return F.Dropout(outputs, p=self._dropout), states

        monkeypatch.setattr(rnn_layer._RNNLayer, "_fused", fused)
        return
    plain_mask = rnn_op.RNN._dropout_mask

    def mask(self, xp, rng, shape, is_train):
        if not is_train or wrong == "none":
            return 1
        if wrong == "unscaled":
            return rng.random(shape) >= self.p
        if wrong == "keep_p":
            return (rng.random(shape) < self.p) / self.p
        if wrong == "one_mask_per_sequence":     # a mask per (sample, unit), shared over time
            return plain_mask(self, xp, rng, (1,) + tuple(shape[1:]), is_train)
        raise AssertionError(wrong)

    monkeypatch.setattr(rnn_op.RNN, "_dropout_mask", mask)


@pytest.mark.parametrize("wrong", ["none", "after_last_too", "unscaled", "keep_p",
                                   "one_mask_per_sequence"])
def test_the_statistics_tell_wrong_dropout_apart(reference, monkeypatch, wrong):
    """The comparison above would catch a wrong dropout: each wrong way fails it somewhere."""
    _wrong_masks(monkeypatch, wrong)
    mine = minimx_stats()
    caught = [case_id(case) for case, ours, theirs in zip(CASES, mine, reference)
              if disagreement(ours, theirs, case[1]) is not None]
    assert len(caught) >= 3, (wrong, caught)



def test_mxnet_default_cpu_kernel_ignores_dropout(mxnet_python):
    """What the README says of MXNet 1.9.1's wheel: its default (oneDNN) RNN kernel drops
    nothing, so a multi-layer layer trains without its dropout there."""
    default = on_mxnet(mxnet_python, PROGRAM, json.dumps([[("GRU", 2, False, False)], P, 5]),
                       env={"MXNET_USE_MKLDNN_RNN": "1"})
    assert default[0][1] == 0
