"""The fused recurrent layer: vanilla RNN, LSTM and GRU over a whole sequence.

Lesson: 11-training-with-module.  Mirrors ``src/operator/rnn.cc`` (``rnn-inl.h``).
All weights of all layers and directions travel in one flat ``parameters``
vector, in MXNet's (cuDNN's) order: first every layer's and direction's
``i2h`` and ``h2h`` weights, then all their biases.  Gates are ordered
(input, forget, cell, output) for LSTM and (reset, update, new) for GRU.
The backward pass recomputes the forward steps and runs backpropagation
through time, step by step in reverse.  ``_rnn_param_concat`` joins the
weights into that vector and infers a weight's unknown input size from it.
"""
import math

from .join_split import Concat
from .params import Choice, Optional, Param
from .registry import OpDef, TestHints, register_op

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _sigmoid(xp, x):
    return 1 / (1 + xp.exp(-x))


# -- one time step of each cell: forward returns (h, c, cache); backward the input grads --------
def _simple_step(xp, mode, x_part, h, c, w_hh, b_hh):
    pre = x_part + h @ w_hh.T + b_hh
    h_new = xp.maximum(pre, 0) if mode == "rnn_relu" else xp.tanh(pre)
    return h_new, None, (h, h_new)


def _simple_step_back(xp, mode, grad_h, grad_c, w_hh, cache):
    h, h_new = cache
    slope = (h_new > 0).astype(h.dtype) if mode == "rnn_relu" else 1 - h_new * h_new
    grad_pre = grad_h * slope
    return grad_pre, grad_pre, grad_pre @ w_hh, None, h


def _lstm_step(xp, mode, x_part, h, c, w_hh, b_hh):
    gates = x_part + h @ w_hh.T + b_hh
    i, f, g, o = xp.split(gates, 4, axis=-1)
    i, f, g, o = _sigmoid(xp, i), _sigmoid(xp, f), xp.tanh(g), _sigmoid(xp, o)
    c_new = f * c + i * g
    tanh_c = xp.tanh(c_new)
    return o * tanh_c, c_new, (h, c, i, f, g, o, tanh_c)


def _lstm_step_back(xp, mode, grad_h, grad_c, w_hh, cache):
    h, c, i, f, g, o, tanh_c = cache
    grad_c = grad_c + grad_h * o * (1 - tanh_c * tanh_c)
    grad_gates = xp.concatenate([grad_c * g * i * (1 - i), grad_c * c * f * (1 - f),
                                 grad_c * i * (1 - g * g), grad_h * tanh_c * o * (1 - o)], -1)
    return grad_gates, grad_gates, grad_gates @ w_hh, grad_c * f, h


def _gru_step(xp, mode, x_part, h, c, w_hh, b_hh):
    hidden = h @ w_hh.T + b_hh
    x_r, x_z, x_n = xp.split(x_part, 3, axis=-1)
    h_r, h_z, h_n = xp.split(hidden, 3, axis=-1)
    r, z = _sigmoid(xp, x_r + h_r), _sigmoid(xp, x_z + h_z)
    n = xp.tanh(x_n + r * h_n)
    return (1 - z) * n + z * h, None, (h, r, z, n, h_n)


def _gru_step_back(xp, mode, grad_h, grad_c, w_hh, cache):
    h, r, z, n, h_n = cache
    grad_n = grad_h * (1 - z) * (1 - n * n)
    grad_r = grad_n * h_n * r * (1 - r)
    grad_z = grad_h * (h - n) * z * (1 - z)
    grad_x = xp.concatenate([grad_r, grad_z, grad_n], -1)
    grad_hidden = xp.concatenate([grad_r, grad_z, grad_n * r], -1)
    return grad_x, grad_hidden, grad_hidden @ w_hh + grad_h * z, None, h


_STEPS = {"rnn_relu": (_simple_step, _simple_step_back),
          "rnn_tanh": (_simple_step, _simple_step_back),
          "lstm": (_lstm_step, _lstm_step_back), "gru": (_gru_step, _gru_step_back)}


@register_op
class RNN(OpDef):
    """A multi-layer, optionally bidirectional RNN/LSTM/GRU over ``data (T, N, C)``.

    Outputs: ``output (T, N, D * state_size)`` and, with ``state_outputs``,
    the final hidden state ``(L * D, N, state_size)`` (and cell state for LSTM).
    """
    name = "RNN"
    inputs = ("data", "parameters", "state", "state_cell", "sequence_length")
    named_outputs = True            # rnn_state_output, rnn_statecell_output
    params = {
        "state_size": Param(int, doc="hidden units per layer and direction"),
        "num_layers": Param(int, doc="stacked layers"),
        "bidirectional": Param(bool, default=False),
        "mode": Param(Choice("gru", "lstm", "rnn_relu", "rnn_tanh")),
        "p": Param(float, default=0.0, doc="dropout between layers (not supported: 0)"),
        "state_outputs": Param(bool, default=False, doc="also return the final states"),
        "projection_size": Param(Optional(int), default=None, doc="not supported"),
        "lstm_state_clip_min": Param(Optional(float), default=None, doc="not supported"),
        "lstm_state_clip_max": Param(Optional(float), default=None, doc="not supported"),
        "lstm_state_clip_nan": Param(bool, default=False, doc="ignored"),
        "use_sequence_length": Param(bool, default=False, doc="not supported"),
    }
    saves = ("data", "parameters", "state", "state_cell")
    test = TestHints(shapes=((3, 2, 3), (96,), (1, 2, 3), (1, 2, 3)), low=-0.5, high=0.5,
                     params={"state_size": 3, "num_layers": 1, "mode": "lstm"},
                     cases=(({"state_size": 2, "num_layers": 2, "mode": "gru",
                              "bidirectional": True}, ((3, 2, 3), (180,), (4, 2, 2))),
                            ({"state_size": 2, "num_layers": 1, "mode": "rnn_tanh",
                              "state_outputs": True}, ((2, 2, 3), (14,), (1, 2, 2)))))

    def check_params(self):
        unsupported = {"p": self.p, "projection_size": self.projection_size,
                       "lstm_state_clip_min": self.lstm_state_clip_min,
                       "lstm_state_clip_max": self.lstm_state_clip_max,
                       "use_sequence_length": self.use_sequence_length}
        for name, value in unsupported.items():
            if value:
                raise self.param_error(f"{name}={value} is not supported by minimx's RNN")

    @property
    def directions(self):
        return 2 if self.bidirectional else 1

    def blas_work(self, data, *others):
        """The product of one time step, hidden state x recurrent weights: the loop over
        time makes many of these small ones (the input projection is one larger call)."""
        return data[1] * _GATES[self.mode] * self.state_size * self.state_size

    def list_inputs(self, num_args=None):
        return self.inputs[:4] if self.mode == "lstm" else self.inputs[:3]

    def list_outputs(self):
        names = ("output", "state_output", "statecell_output")
        return names if self.mode == "lstm" else names[:2]

    def num_visible(self):
        return len(self.list_outputs()) if self.state_outputs else 1

    # -- shapes --------------------------------------------------------------------------
    def _layout(self, input_size):
        """``(offset, shape)`` of each weight and bias, per (layer, direction), in MXNet order."""
        rows, hidden = _GATES[self.mode] * self.state_size, self.state_size
        weights, biases, offset = [], [], 0
        for layer in range(self.num_layers):
            width = input_size if layer == 0 else self.directions * hidden
            for _ in range(self.directions):
                weights.append(((offset, (rows, width)), (offset + rows * width, (rows, hidden))))
                offset += rows * (width + hidden)
        for _ in range(self.num_layers * self.directions):
            biases.append(((offset, (rows,)), (offset + rows, (rows,))))
            offset += 2 * rows
        return weights, biases, offset

    def _state_shape(self, data):
        return (self.num_layers * self.directions, data[1], self.state_size)

    def infer_input_shapes(self, data, parameters=None, state=None, state_cell=None):
        if data is None:
            return [data, parameters, state, state_cell][:len(self.list_inputs())]
        completed = [data, parameters or (self._layout(data[2])[2],),
                     state or self._state_shape(data)]
        return completed + ([state_cell or self._state_shape(data)] if self.mode == "lstm" else [])

    def infer_shape(self, data, parameters, state, state_cell=None):
        if len(data) != 3:
            raise self.shape_error(f"data must be (seq_len, batch, input_size), got {data}")
        expected = {"parameters": (self._layout(data[2])[2],), "state": self._state_shape(data),
                    "state_cell": self._state_shape(data)}
        for name, shape in (("parameters", parameters), ("state", state),
                            ("state_cell", state_cell)):
            if shape is not None and tuple(shape) != expected[name]:
                raise self.shape_error(f"{name} must have shape {expected[name]}, got {shape}")
        output = tuple(data[:2]) + (self.directions * self.state_size,)
        return [output] + [self._state_shape(data)] * (len(self.list_outputs()) - 1)

    # -- computation ---------------------------------------------------------------------
    def _unpack(self, parameters, input_size):
        """One ``(w_ih, w_hh, b_ih, b_hh)`` per (layer, direction), as views."""
        weights, biases, _ = self._layout(input_size)
        def take(spec):
            offset, shape = spec
            return parameters[offset:offset + math.prod(shape)].reshape(shape)
        return [tuple(take(s) for s in w + b) for w, b in zip(weights, biases)]

    def _run_direction(self, xp, inputs, weights, h, c, reverse):
        """Run one layer in one direction; returns outputs (T, N, H), final h, c and caches."""
        step = _STEPS[self.mode][0]
        w_ih, w_hh, b_ih, b_hh = weights
        x_parts = inputs @ w_ih.T + b_ih
        order = range(len(inputs) - 1, -1, -1) if reverse else range(len(inputs))
        outputs, caches = [None] * len(inputs), [None] * len(inputs)
        for t in order:
            h, c, caches[t] = step(xp, self.mode, x_parts[t], h, c, w_hh, b_hh)
            outputs[t] = h
        return xp.stack(outputs), h, c, caches

    def _run(self, xp, data, parameters, state, state_cell):
        """The whole forward pass; also returns what backward needs per layer and direction."""
        all_weights = self._unpack(parameters, data.shape[2])
        inputs, final_h, final_c, records = data, [], [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self.directions):
                index = layer * self.directions + direction
                cell = None if state_cell is None else state_cell[index]
                out, h, c, caches = self._run_direction(
                    xp, inputs, all_weights[index], state[index], cell, direction == 1)
                outputs.append(out)
                final_h.append(h)
                final_c.append(c)
                records.append((inputs, caches))
            inputs = xp.concatenate(outputs, axis=-1) if self.directions == 2 else outputs[0]
        results = [inputs, xp.stack(final_h)]
        if self.mode == "lstm":
            results.append(xp.stack(final_c))
        return results, records

    def forward(self, xp, data, parameters, state, state_cell=None):
        results, _ = self._run(xp, data, parameters, state, state_cell)
        return tuple(r.astype(data.dtype, copy=False) for r in results)

    def _back_direction(self, xp, grad_out, grad_h, grad_c, weights, record, reverse):
        """BPTT through one layer and direction; returns the input, weight and state grads."""
        step_back = _STEPS[self.mode][1]
        w_ih, w_hh, _, _ = weights
        inputs, caches = record
        grad_x_parts = [None] * len(inputs)
        grad_w_hh, grad_b_hh = xp.zeros_like(w_hh), xp.zeros(w_hh.shape[0], dtype=w_hh.dtype)
        order = range(len(inputs)) if reverse else range(len(inputs) - 1, -1, -1)
        for t in order:
            grad_x, grad_hidden, grad_h, grad_c, h_prev = step_back(
                xp, self.mode, grad_out[t] + grad_h, grad_c, w_hh, caches[t])
            grad_x_parts[t] = grad_x
            grad_w_hh += xp.dot(grad_hidden.T, h_prev)   # not @: slow for a batch of 1
            grad_b_hh += grad_hidden.sum(axis=0)
        grad_parts = xp.stack(grad_x_parts)
        flat_parts = grad_parts.reshape(-1, grad_parts.shape[-1])
        grad_w_ih = xp.dot(flat_parts.T, inputs.reshape(-1, inputs.shape[-1]))
        grads = (grad_w_ih, grad_w_hh, flat_parts.sum(axis=0), grad_b_hh)
        return grad_parts @ w_ih, grads, grad_h, grad_c

    def backward(self, xp, out_grad, *state_grads, data, parameters, state, state_cell=None):
        _, records = self._run(xp, data, parameters, state, state_cell)
        all_weights = self._unpack(parameters, data.shape[2])
        hidden, count = self.state_size, self.num_layers * self.directions
        grad_hy = state_grads[0] if state_grads else xp.zeros_like(state)
        grad_cy = state_grads[1] if len(state_grads) > 1 else None
        grad_state = xp.zeros_like(state)
        grad_cell = None if state_cell is None else xp.zeros_like(state_cell)
        grad_weights = [None] * count
        grad_above = out_grad
        for layer in reversed(range(self.num_layers)):
            grad_inputs = 0
            for direction in range(self.directions):
                index = layer * self.directions + direction
                part = grad_above[..., direction * hidden:(direction + 1) * hidden]
                cell_grad = None if grad_cell is None else (
                    xp.zeros_like(state[index]) if grad_cy is None else grad_cy[index])
                grad_x, grad_weights[index], grad_h0, grad_c0 = self._back_direction(
                    xp, part, grad_hy[index], cell_grad, all_weights[index], records[index],
                    direction == 1)
                grad_inputs = grad_inputs + grad_x
                grad_state[index] = grad_h0
                if grad_cell is not None:
                    grad_cell[index] = grad_c0
            grad_above = grad_inputs
        grad_parameters = self._pack(xp, grad_weights, data.shape[2], parameters.dtype)
        return grad_above, grad_parameters, grad_state, grad_cell

    def _pack(self, xp, grad_weights, input_size, dtype):
        """The flat ``parameters`` gradient from per (layer, direction) gradients."""
        weights, biases, size = self._layout(input_size)
        flat = xp.zeros(size, dtype=dtype)
        for (w_spec, b_spec), grads in zip(zip(weights, biases), grad_weights):
            for (offset, shape), grad in zip(w_spec + b_spec, grads):
                flat[offset:offset + math.prod(shape)] = grad.reshape(-1)
        return flat


@register_op
class RNNParamConcat(Concat):
    """``Concat`` that also completes one or two unknown inputs from a known output.

    Gluon's RNN layers join their flattened weights with it.  When the layer's input
    size is unknown, ``RNN`` still knows the total ``parameters`` length from the data;
    the unknown ``i2h`` weight pieces (one, or two when bidirectional) share what the
    known pieces leave, as MXNet's ``RNNParamConcatShape`` does.
    """
    name = "_rnn_param_concat"
    aliases = ()

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        output = output_shapes[0]
        if output is None or 0 in output:
            return list(input_shapes)
        axis = self.dim % len(output)
        unknown = [index for index, shape in enumerate(input_shapes)
                   if shape is None or not shape[axis]]
        residual = output[axis] - sum(shape[axis] for index, shape in enumerate(input_shapes)
                                      if index not in unknown)
        if not 0 < len(unknown) <= 2 or residual < 0 or residual % len(unknown):
            raise self.shape_error(f"cannot share {residual} entries of output {output} "
                                   f"among {len(unknown)} unknown input(s) {input_shapes}")
        piece = output[:axis] + (residual // len(unknown),) + output[axis + 1:]
        return [piece if index in unknown else shape
                for index, shape in enumerate(input_shapes)]
