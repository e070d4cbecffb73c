"""The fused RNN operator and the sequence operators, against numpy and MXNet 1.9.1."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import references  # noqa: E402
from _nn_helpers import check_grads, compare_with_mxnet, requires_mxnet, run_minimx  # noqa

from minimx.base import InvalidParameterError  # noqa: E402
from minimx.op import get_op  # noqa: E402


def _param_count(mode, input_size, hidden, layers, directions):
    gates = {"lstm": 4, "gru": 3}.get(mode, 1) * hidden
    total = 0
    for layer in range(layers):
        width = input_size if layer == 0 else directions * hidden
        total += directions * (gates * (width + hidden) + 2 * gates)
    return total


def _rnn_inputs(seed, mode, steps, batch, input_size, hidden, layers, bidirectional):
    rng = np.random.default_rng(seed)
    directions = 2 if bidirectional else 1
    count = _param_count(mode, input_size, hidden, layers, directions)
    state = (layers * directions, batch, hidden)
    inputs = [rng.standard_normal((steps, batch, input_size)), 0.5 * rng.standard_normal(count),
              rng.standard_normal(state)]
    return inputs + ([rng.standard_normal(state)] if mode == "lstm" else [])


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
    with pytest.raises(InvalidParameterError, match="projection_size"):
        get_op("RNN")(state_size=4, num_layers=1, mode="lstm", projection_size=2)


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_dropout_between_layers_masks_the_upper_inputs_and_their_gradient(mode):
    """With the same random stream the forward is a fixed function: its directional
    derivative must match backward's gradient, masks included."""
    inputs = _rnn_inputs(1, mode, 4, 3, 2, 3, 3, False)
    op = get_op("RNN")(state_size=3, num_layers=3, mode=mode, p=0.4)
    assert op.draws_random() and not get_op("RNN")(state_size=3, num_layers=3, mode=mode).draws_random()

    def run(values):
        return op.forward(np, *values, rng=np.random.default_rng(5), is_train=True)

    outputs = run(inputs)
    inference = op.forward(np, *inputs, rng=np.random.default_rng(5), is_train=False)
    plain = get_op("RNN")(state_size=3, num_layers=3, mode=mode).forward(np, *inputs)
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
