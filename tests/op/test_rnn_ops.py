"""The fused RNN operator and the sequence operators, against numpy and MXNet 1.9.1."""
import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import references  # noqa: E402
from _nn_helpers import (MXNET_PYTHON, check_grads, compare_with_mxnet,  # noqa: E402
                         requires_mxnet, run_minimx)
from same_program import on_mxnet  # noqa: E402

from minimx.base import InvalidParameterError  # noqa: E402
from minimx.op import get_op  # noqa: E402


def _param_count(mode, input_size, hidden, layers, directions, projection=None):
    gates = {"lstm": 4, "gru": 3}.get(mode, 1) * hidden
    recurrent, total = projection or hidden, 0
    for layer in range(layers):
        width = input_size if layer == 0 else directions * recurrent
        total += directions * (gates * (width + recurrent) + 2 * gates)
        total += directions * recurrent * hidden if projection else 0     # h2r weights
    return total


def _rnn_inputs(seed, mode, steps, batch, input_size, hidden, layers, bidirectional,
                projection=None):
    rng = np.random.default_rng(seed)
    directions = 2 if bidirectional else 1
    count = _param_count(mode, input_size, hidden, layers, directions, projection)
    state = (layers * directions, batch, projection or hidden)
    cell = (layers * directions, batch, hidden)
    inputs = [rng.standard_normal((steps, batch, input_size)), 0.5 * rng.standard_normal(count),
              rng.standard_normal(state)]
    return inputs + ([rng.standard_normal(cell)] if mode == "lstm" else [])


def test_lstm_matches_the_equations():
    x, params, h0, c0 = _rnn_inputs(0, "lstm", 4, 2, 3, 5, 1, False)
    settings = dict(state_size=5, num_layers=1, mode="lstm", state_outputs=True)
    outputs, _, _ = run_minimx("RNN", [x, params, h0, c0], settings)
    expected = references.rnn(np, x, params, h0, c0, **settings)
    for name, actual, wanted in zip(("output", "state", "cell state"), outputs, expected):
        np.testing.assert_allclose(actual, wanted, rtol=1e-4, atol=1e-5, err_msg=name)


def test_rnn_inputs_outputs_and_shape_inference():
    lstm = get_op("RNN")(state_size=4, num_layers=2, mode="lstm", bidirectional=True)
    assert lstm.list_inputs() == ("data", "parameters", "state", "state_cell")
    assert lstm.list_outputs() == ("output", "state_output", "statecell_output", "reserve")
    assert lstm.num_visible() == 1        # the reserve (what backward reads) stays hidden
    shapes = lstm.infer_input_shapes((5, 2, 3), None, None, None)
    assert shapes == [(5, 2, 3), (_param_count("lstm", 3, 4, 2, 2),), (4, 2, 4), (4, 2, 4)]
    assert lstm.output_shapes(shapes)[0] == (5, 2, 8)
    gru = get_op("RNN")(state_size=4, num_layers=1, mode="gru", state_outputs=True)
    assert gru.list_inputs() == ("data", "parameters", "state") and gru.num_visible() == 2
    lstmp = get_op("RNN")(state_size=4, num_layers=2, mode="lstm", bidirectional=True,
                          projection_size=3, state_outputs=True)
    shapes = lstmp.infer_input_shapes((5, 2, 7), None, None, None)
    assert shapes == [(5, 2, 7), (_param_count("lstm", 7, 4, 2, 2, 3),), (4, 2, 3), (4, 2, 4)]
    assert lstmp.output_shapes(shapes)[:3] == [(5, 2, 6), (4, 2, 3), (4, 2, 4)]


@pytest.mark.parametrize("params, match", [
    (dict(mode="gru", projection_size=2), "for mode 'lstm' only"),
    (dict(mode="rnn_tanh", projection_size=2), "for mode 'lstm' only"),
    (dict(mode="lstm", projection_size=0), r"projection_size must be in \[1, state_size=4\]"),
    (dict(mode="lstm", projection_size=5), r"projection_size must be in \[1, state_size=4\]"),
    (dict(mode="lstm", projection_size=2, lstm_state_clip_min=-1.0, lstm_state_clip_max=1.0),
     "GPU"),
    (dict(mode="lstm", projection_size=2, lstm_state_clip_max=1.0), "GPU"),
    (dict(mode="lstm", use_sequence_length=True), "use_sequence_length"),
])
def test_rnn_refuses_what_mxnet_cpu_cannot_run(params, match):
    """MXNet 1.9.1's CPU RNN refuses state clipping with a projection ("only supported for
    GPU"); with a projection in another mode, or one larger than the state, it computes
    garbage or crashes: minimx names the operator and the parameter instead."""
    with pytest.raises(InvalidParameterError, match="RNN"):
        get_op("RNN")(state_size=4, num_layers=1, **params)
    with pytest.raises(InvalidParameterError, match=match):
        get_op("RNN")(state_size=4, num_layers=1, **params)


@pytest.mark.parametrize("layers, bidirectional", [(1, False), (2, False), (1, True), (2, True)])
def test_lstmp_matches_the_equations(layers, bidirectional):
    x, params, h0, c0 = _rnn_inputs(0, "lstm", 4, 2, 3, 5, layers, bidirectional, projection=2)
    settings = dict(state_size=5, num_layers=layers, mode="lstm", bidirectional=bidirectional,
                    state_outputs=True, projection_size=2)
    outputs, _, _ = run_minimx("RNN", [x, params, h0, c0], settings)
    expected = references.rnn(np, x, params, h0, c0, **settings)
    assert [o.shape for o in outputs] == [e.shape for e in expected]
    for name, actual, wanted in zip(("output", "state", "cell state"), outputs, expected):
        np.testing.assert_allclose(actual, wanted, rtol=1e-4, atol=1e-5, err_msg=name)


def test_lstm_state_clip_is_ignored_without_a_projection():
    """As by MXNet 1.9.1's CPU kernel (its oneDNN one, the default; the plain one refuses)."""
    inputs = _rnn_inputs(3, "lstm", 4, 2, 3, 5, 1, False)
    inputs[3] *= 4                                   # cell states well outside the range
    settings = dict(state_size=5, num_layers=1, mode="lstm", state_outputs=True)
    plain = run_minimx("RNN", inputs, settings)[0]
    clipped = run_minimx("RNN", inputs, dict(settings, lstm_state_clip_min=-0.1,
                                             lstm_state_clip_max=0.1, lstm_state_clip_nan=True))[0]
    for a, b in zip(plain, clipped):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mode, projection", [("lstm", None), ("gru", None), ("lstm", 2)])
def test_dropout_between_layers_masks_the_upper_inputs_and_their_gradient(mode, projection):
    """With the same random stream the forward is a fixed function: its directional
    derivative must match backward's gradient, masks included."""
    inputs = _rnn_inputs(1, mode, 4, 3, 2, 3, 3, False, projection)
    extra = dict(projection_size=projection) if projection else {}
    op = get_op("RNN")(state_size=3, num_layers=3, mode=mode, p=0.4, **extra)
    assert op.draws_random() and not get_op("RNN")(state_size=3, num_layers=3, mode=mode).draws_random()

    def run(values):
        return op.forward(np, *values, rng=np.random.default_rng(5), is_train=True)

    outputs = run(inputs)
    inference = op.forward(np, *inputs, rng=np.random.default_rng(5), is_train=False)
    plain = get_op("RNN")(state_size=3, num_layers=3, mode=mode, **extra).forward(np, *inputs)
    np.testing.assert_allclose(inference[0], plain[0])       # no dropout outside training
    assert not np.allclose(outputs[0], plain[0])
    head = np.random.default_rng(2).standard_normal(outputs[0].shape)
    grads = op.backward(np, head, data=inputs[0], parameters=inputs[1], state=inputs[2],
                        state_cell=inputs[3] if mode == "lstm" else None, reserve=outputs[-1])
    directions = [np.random.default_rng(3 + i).standard_normal(x.shape) for i, x in
                  enumerate(inputs)]
    eps = 1e-6
    plus = run([x + eps * d for x, d in zip(inputs, directions)])[0]
    minus = run([x - eps * d for x, d in zip(inputs, directions)])[0]
    numeric = ((plus - minus) * head).sum() / (2 * eps)
    analytic = sum((g * d).sum() for g, d in zip(grads, directions) if g is not None)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5)


RNN_CASES = [
    ("lstm", 1, False, True),
    ("lstm", 2, True, False),
    ("gru", 2, True, True),
    ("gru", 1, False, False),
    ("rnn_tanh", 2, False, True),
    ("rnn_relu", 1, True, True),
]


def _params(mode, layers, bidirectional, state_outputs):
    return dict(state_size=3, num_layers=layers, mode=mode, bidirectional=bidirectional,
                state_outputs=state_outputs)


@pytest.mark.parametrize("mode, layers, bidirectional, state_outputs", RNN_CASES)
def test_rnn_gradients_numerically(mode, layers, bidirectional, state_outputs):
    inputs = _rnn_inputs(1, mode, 3, 2, 2, 3, layers, bidirectional)
    params = _params(mode, layers, bidirectional, state_outputs)
    check_grads("RNN", inputs, params, tuple(range(len(inputs))), rtol=1e-4, atol=1e-6)


@requires_mxnet
@pytest.mark.parametrize("mode, layers, bidirectional, state_outputs", RNN_CASES)
def test_rnn_matches_mxnet(tmp_path, mode, layers, bidirectional, state_outputs):
    inputs = _rnn_inputs(2, mode, 3, 2, 2, 3, layers, bidirectional)
    params = _params(mode, layers, bidirectional, state_outputs)
    heads = (3 if mode == "lstm" else 2) if state_outputs else 1
    compare_with_mxnet(tmp_path, "RNN", inputs, params, tuple(range(len(inputs))),
                       head_count=heads)


LSTMP_CASES = [(1, False), (2, False), (1, True), (2, True)]


@pytest.mark.parametrize("layers, bidirectional", LSTMP_CASES)
def test_lstmp_gradients_numerically(layers, bidirectional):
    """All of data, parameters, h0 and c0, through all three outputs (random heads)."""
    from minimx import nd
    from minimx.test_utils import check_numeric_gradient
    inputs = _rnn_inputs(4, "lstm", 3, 2, 3, 4, layers, bidirectional, projection=2)
    settings = dict(state_size=4, num_layers=layers, mode="lstm", bidirectional=bidirectional,
                    state_outputs=True, projection_size=2)
    check_numeric_gradient(lambda *arrays: list(nd.RNN(*arrays, **settings)), inputs,
                           dtype=np.float64, rtol=1e-6, atol=1e-8)
    check_grads("RNN", inputs, settings, (0, 1, 2, 3), rtol=1e-4, atol=1e-6)


@requires_mxnet
@pytest.mark.parametrize("layers, bidirectional", LSTMP_CASES)
def test_lstmp_forward_matches_mxnet(tmp_path, layers, bidirectional):
    """MXNet 1.9.1's CPU kernel runs LSTMP outside training only ("No training support for
    LSTM with projection on CPU"): the forward here, the gradients against MXNet's unfused
    LSTMPCell in tests/gluon/test_lstm_projection.py."""
    inputs = _rnn_inputs(5, "lstm", 4, 3, 3, 5, layers, bidirectional, projection=2)
    settings = dict(state_size=5, num_layers=layers, mode="lstm", bidirectional=bidirectional,
                    state_outputs=True, projection_size=2)
    given = json.dumps([[x.astype(np.float32).tolist() for x in inputs], settings])
    theirs = on_mxnet(MXNET_PYTHON, _MXNET_FORWARD, given)
    ours = run_minimx("RNN", [x.astype(np.float32) for x in inputs], settings, train=False)[0]
    assert len(ours) == len(theirs) == 3
    for name, a, b in zip(("output", "state", "cell state"), ours, theirs):
        np.testing.assert_allclose(a, np.array(b), rtol=1e-4, atol=1e-5, err_msg=name)


_MXNET_FORWARD = """
import json
arrays, settings = json.loads(INPUT)
outputs = mx.nd.RNN(*[mx.nd.array(a) for a in arrays], **settings)
print(json.dumps([o.asnumpy().tolist() for o in outputs]))
"""


@requires_mxnet
def test_lstm_state_clip_without_projection_matches_mxnet(tmp_path):
    """MXNet 1.9.1's default CPU kernel ignores the clip range: outputs and gradients."""
    inputs = _rnn_inputs(6, "lstm", 4, 2, 3, 5, 2, True)
    inputs[3] *= 4
    settings = dict(state_size=5, num_layers=2, mode="lstm", bidirectional=True,
                    state_outputs=True, lstm_state_clip_min=-0.1, lstm_state_clip_max=0.1)
    compare_with_mxnet(tmp_path, "RNN", inputs, settings, (0, 1, 2, 3), head_count=3)


# -- sequence operators ---------------------------------------------------------------------
def _sequence_data(seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((4, 3, 2)), np.array([1.0, 4.0, 2.0])


def test_sequence_mask_last_reverse_values():
    x, lengths = _sequence_data(3)
    on = dict(use_sequence_length=True)
    masked = run_minimx("SequenceMask", [x, lengths], dict(on, value=-7.0))[0][0]
    expected = x.copy()
    for b, n in enumerate(lengths.astype(int)):
        expected[n:, b] = -7.0
    np.testing.assert_allclose(masked, expected, rtol=1e-6)
    last = run_minimx("SequenceLast", [x, lengths], on)[0][0]
    np.testing.assert_allclose(last, x[lengths.astype(int) - 1, np.arange(3)], rtol=1e-6)
    reverse = run_minimx("SequenceReverse", [x, lengths], on)[0][0]
    for b, n in enumerate(lengths.astype(int)):
        np.testing.assert_allclose(reverse[:n, b], x[:n, b][::-1], rtol=1e-6)
        np.testing.assert_allclose(reverse[n:, b], x[n:, b], rtol=1e-6)
    np.testing.assert_allclose(run_minimx("SequenceLast", [x], {})[0][0], x[-1], rtol=1e-6)


SEQUENCE_CASES = [
    ("SequenceMask", dict(use_sequence_length=True, value=-1.0), False),
    ("SequenceMask", dict(use_sequence_length=True, axis=1), True),
    ("SequenceLast", dict(use_sequence_length=True), False),
    ("SequenceLast", dict(use_sequence_length=True, axis=1), True),
    ("SequenceReverse", dict(use_sequence_length=True), False),
    ("SequenceReverse", {}, False),
]


def _sequence_inputs(params, batch_first):
    x, lengths = _sequence_data(4)
    x = x.transpose(1, 0, 2) if batch_first else x    # (batch, time, 2)
    return [x, lengths] if params.get("use_sequence_length") else [x]


@pytest.mark.parametrize("name, params, batch_first", SEQUENCE_CASES)
def test_sequence_gradients_numerically(name, params, batch_first):
    check_grads(name, _sequence_inputs(params, batch_first), params, (0,))


@requires_mxnet
@pytest.mark.parametrize("name, params, batch_first", SEQUENCE_CASES)
def test_sequence_matches_mxnet(tmp_path, name, params, batch_first):
    compare_with_mxnet(tmp_path, name, _sequence_inputs(params, batch_first), params, (0,))
