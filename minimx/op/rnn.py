"""The fused recurrent layer: vanilla RNN, LSTM and GRU over a whole sequence.

Lesson: 12-training-with-module.  Mirrors ``src/operator/rnn.cc`` (``rnn-inl.h``).
All weights of all layers and directions travel in one flat ``parameters``
vector, in MXNet's (cuDNN's) order: first every layer's and direction's
``i2h`` and ``h2h`` weights, then all their biases.  Gates are ordered
(input, forget, cell, output) for LSTM and (reset, update, new) for GRU.
An LSTM with ``projection_size=P`` (LSTMP) carries ``r = W_hr h`` (P features, no bias)
as its output and recurrent state instead of ``h``; each layer's and direction's
``h2r`` weight (P, H) follows its ``h2h`` weight (4H, P) in the vector.
The forward pass keeps each step's arrays in a hidden ``reserve`` output; the
backward pass reads them back and runs backpropagation through time, step by step
in reverse.  ``_rnn_param_concat`` joins the
weights into that vector and infers a weight's unknown input size from it.
"""
import math

from .common import sigmoid
from .join_split import Concat
from .params import Choice, Optional, Param
from .registry import OpDef, TestHints, register_op

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


# -- one time step of each cell: forward returns (h, c, cache); backward the input grads --------
# (LSTM's forward steps run in _lstm_steps, which writes straight into the reserve)
def _simple_step(xp, mode, x_part, h, c, w_hh_t, b_hh):
    pre = xp.dot(h, w_hh_t)
    pre += x_part                        # x_part holds both biases already
    h_new = xp.maximum(pre, 0) if mode == "rnn_relu" else xp.tanh(pre)
    return h_new, None, (h, h_new)


def _simple_step_back(xp, mode, grad_h, grad_c, w_hh, cache, out=None):
    h, h_new = cache
    slope = (h_new > 0).astype(h.dtype) if mode == "rnn_relu" else 1 - h_new * h_new
    grad_pre = grad_h * slope
    return grad_pre, grad_pre, grad_pre @ w_hh, None


def _lstm_gate_scale(xp, hidden, dtype):
    """Factors that turn every LSTM gate into one ``tanh``: ``sigmoid(x) = (1 + tanh(x/2)) / 2``,
    so the input, forget and output gates' rows of the weights and biases are halved."""
    scale = xp.full(4 * hidden, 0.5, dtype=dtype)
    scale[2 * hidden:3 * hidden] = 1          # the cell candidate is a tanh already
    return scale


def _lstm_steps(xp, x_parts, w_hh_t, caches, order, h, c, w_hr_t=None):
    """The LSTM steps of one layer and direction, in ``order``.

    ``x_parts`` (T, N, 4H) and ``w_hh_t`` (H, 4H) come scaled by ``_lstm_gate_scale``.
    Every array a step computes goes straight into its slot of ``caches`` (k, T, N, H):
    ``h_prev, c_prev, i, f, g, o, tanh(c)``; a step's new h and c are the next step's
    ``h_prev`` and ``c_prev``.  Returns the outputs (T, N, H) and the final h and c.

    With a projection ``w_hr_t`` (H, P) the state carried on is ``r = h W_hr^T`` (N, P):
    ``w_hh_t`` is (P, 4H), the ``h_prev`` slot holds the previous r (T, N, P) and the
    outputs and final state are r's (``h`` itself is ``o * tanh(c)``, from the caches).
    """
    hidden = x_parts.shape[-1] // 4
    h_prev, c_prev, i_gate, f_gate, g_gate, o_gate, tanh_c = caches
    h_prev[order[0]], c_prev[order[0]] = h, c
    h_last, c_last = xp.empty_like(h_prev[0]), xp.empty_like(c_prev[0])
    for k, t in enumerate(order):
        last = k + 1 == len(order)
        h_new = h_last if last else h_prev[order[k + 1]]
        c_new = c_last if last else c_prev[order[k + 1]]
        gates = xp.dot(h_prev[t], w_hh_t)
        gates += x_parts[t]
        xp.tanh(gates, out=gates)
        for slot, column in ((i_gate, 0), (f_gate, 1), (o_gate, 3)):
            xp.multiply(gates[:, column * hidden:(column + 1) * hidden], 0.5, out=slot[t])
            slot[t] += 0.5
        g_gate[t] = gates[:, 2 * hidden:3 * hidden]
        xp.multiply(f_gate[t], c_prev[t], out=c_new)
        xp.multiply(i_gate[t], g_gate[t], out=tanh_c[t])
        c_new += tanh_c[t]
        xp.tanh(c_new, out=tanh_c[t])
        if w_hr_t is None:
            xp.multiply(o_gate[t], tanh_c[t], out=h_new)
        else:                                             # LSTMP: r = W_hr h goes on
            h_new[...] = xp.dot(o_gate[t] * tanh_c[t], w_hr_t)
    ordered = [h_prev[order[k + 1]] if k + 1 < len(order) else h_last
               for k in range(len(order))]                # step k's output, in order
    outputs = xp.stack(ordered if order[0] == 0 else ordered[::-1])
    return outputs, h_last, c_last


def _lstm_step_back(xp, mode, grad_h, grad_c, w_hh, cache, out):
    """The gate gradients are written into ``out`` (N, 4H)."""
    h, c, i, f, g, o, tanh_c = cache
    hidden = i.shape[-1]
    grad_i, grad_f, grad_g, grad_o = (out[:, k * hidden:(k + 1) * hidden] for k in range(4))
    xp.multiply(grad_h, tanh_c, out=grad_o)                 # dL/do
    slope = 1 - tanh_c * tanh_c
    slope *= grad_h
    slope *= o
    grad_c = grad_c + slope                                 # dL/dc of this step
    xp.multiply(grad_c, g, out=grad_i)
    xp.multiply(grad_c, c, out=grad_f)
    xp.multiply(grad_c, i, out=grad_g)
    for grad, gate in ((grad_i, i), (grad_f, f), (grad_o, o)):
        grad *= gate
        grad *= 1 - gate                                    # through the sigmoid
    grad_g *= 1 - g * g                                     # through the tanh
    return out, out, xp.dot(out, w_hh), grad_c * f


def _gru_step(xp, mode, x_part, h, c, w_hh_t, b_hh):
    hidden = xp.dot(h, w_hh_t)
    hidden += b_hh
    x_r, x_z, x_n = xp.split(x_part, 3, axis=-1)
    h_r, h_z, h_n = xp.split(hidden, 3, axis=-1)
    r, z = sigmoid(xp, x_r + h_r), sigmoid(xp, x_z + h_z)
    n = xp.tanh(x_n + r * h_n)
    return (1 - z) * n + z * h, None, (h, r, z, n, h_n)


def _gru_step_back(xp, mode, grad_h, grad_c, w_hh, cache, out=None):
    h, r, z, n, h_n = cache
    grad_n = grad_h * (1 - z) * (1 - n * n)
    grad_r = grad_n * h_n * r * (1 - r)
    grad_z = grad_h * (h - n) * z * (1 - z)
    grad_x = xp.concatenate([grad_r, grad_z, grad_n], -1)
    grad_hidden = xp.concatenate([grad_r, grad_z, grad_n * r], -1)
    return grad_x, grad_hidden, grad_hidden @ w_hh + grad_h * z, None


_STEPS = {"rnn_relu": (_simple_step, _simple_step_back),
          "rnn_tanh": (_simple_step, _simple_step_back),
          "lstm": (None, _lstm_step_back), "gru": (_gru_step, _gru_step_back)}


_CACHED = {"rnn_relu": 2, "rnn_tanh": 2, "lstm": 7, "gru": 5}   # arrays a step keeps
GATE_NAMES = {"rnn_relu": ("",), "rnn_tanh": ("",), "lstm": ("_i", "_f", "_c", "_o"),
              "gru": ("_r", "_z", "_o")}


def fused_input_size(mode, state_size, num_layers, bidirectional, total):
    """The input size of a fused RNN whose ``parameters`` vector has ``total`` entries."""
    directions, rows = 1 + bool(bidirectional), _GATES[mode] * state_size
    upper = (num_layers - 1) * (state_size + directions * state_size + 2)
    return total // directions // rows - upper - state_size - 2


def fused_parameter_pieces(mode, state_size, num_layers, bidirectional, input_size):
    """``(name, offset, shape)`` of every per-gate piece of an RNN ``parameters`` vector,
    named as MXNet's unfused cells name their weights: ``l0_i2h_f_weight`` is the forget
    gate's input weights of layer 0, left-to-right direction (``r`` is the other)."""
    op = RNN(state_size=state_size, num_layers=num_layers, mode=mode,
             bidirectional=bidirectional)
    weights, biases, _ = op._layout(input_size)
    pieces = []
    for kind, specs in (("weight", weights), ("bias", biases)):
        for index, spec_pair in enumerate(specs):
            layer, direction = divmod(index, op.directions)
            for group, (offset, shape) in zip(("i2h", "h2h"), spec_pair):
                width = shape[1] if kind == "weight" else 1
                piece = (state_size, shape[1]) if kind == "weight" else (state_size,)
                for gate_index, gate in enumerate(GATE_NAMES[mode]):
                    name = f"{'lr'[direction]}{layer}_{group}{gate}_{kind}"
                    pieces.append((name, offset + gate_index * state_size * width, piece))
    return pieces


@register_op
class RNN(OpDef):
    """A multi-layer, optionally bidirectional RNN/LSTM/GRU over ``data (T, N, C)``.

    Outputs: ``output (T, N, D * state_size)`` and, with ``state_outputs``,
    the final hidden state ``(L * D, N, state_size)`` (and cell state for LSTM).
    With ``projection_size=P`` (LSTM only) the output is ``(T, N, D * P)`` and the
    hidden state, in and out, ``(L * D, N, P)``; the cell state keeps ``state_size``.
    MXNet 1.9.1's CPU kernel runs LSTMP forward only (it refuses training); minimx also
    computes its gradient.  ``lstm_state_clip_*`` are ignored, as by MXNet's CPU kernel
    (its GPU/cuDNN option), and refused with a projection, as MXNet's CPU refuses them.
    A hidden last output, ``reserve``, keeps what the backward pass needs: each step's
    cached arrays, each upper layer's input and, with dropout ``p`` between layers, its
    masks (the "reserve space" of MXNet's and cuDNN's RNN kernels).
    """
    name = "RNN"
    inputs = ("data", "parameters", "state", "state_cell", "sequence_length")
    outputs = ("output", "state_output", "statecell_output", "reserve")
    named_outputs = True            # rnn_state_output, rnn_statecell_output
    params = {
        "state_size": Param(int, doc="hidden units per layer and direction"),
        "num_layers": Param(int, doc="stacked layers"),
        "bidirectional": Param(bool, default=False),
        "mode": Param(Choice("gru", "lstm", "rnn_relu", "rnn_tanh")),
        "p": Param(float, default=0.0, doc="dropout on the outputs of all layers but the last"),
        "state_outputs": Param(bool, default=False, doc="also return the final states"),
        "projection_size": Param(Optional(int), default=None,
                                 doc="lstm only: the size of r = W_hr h, output and state"),
        "lstm_state_clip_min": Param(Optional(float), default=None,
                                     doc="ignored, refused with projection_size (as MXNet's CPU)"),
        "lstm_state_clip_max": Param(Optional(float), default=None,
                                     doc="ignored, refused with projection_size (as MXNet's CPU)"),
        "lstm_state_clip_nan": Param(bool, default=False, doc="ignored"),
        "use_sequence_length": Param(bool, default=False, doc="not supported"),
    }
    saves = ("data", "parameters", "state", "state_cell", "reserve")
    test = TestHints(shapes=((3, 2, 3), (96,), (1, 2, 3), (1, 2, 3)), low=-0.5, high=0.5,
                     params={"state_size": 3, "num_layers": 1, "mode": "lstm"},
                     cases=(({"state_size": 2, "num_layers": 2, "mode": "gru",
                              "bidirectional": True}, ((3, 2, 3), (180,), (4, 2, 2))),
                            ({"state_size": 2, "num_layers": 1, "mode": "rnn_tanh",
                              "state_outputs": True}, ((2, 2, 3), (14,), (1, 2, 2))),
                            ({"state_size": 3, "num_layers": 2, "mode": "lstm",
                              "bidirectional": True, "projection_size": 2,
                              "state_outputs": True},
                             ((3, 2, 3), (384,), (4, 2, 2), (4, 2, 3)))))

    def check_params(self):
        if not 0 <= self.p < 1:
            raise self.param_error(f"p must be in [0, 1), got {self.p}")
        if self.use_sequence_length:
            raise self.param_error("use_sequence_length=True is not supported by minimx's RNN "
                                   "(MXNet 1.9.1 runs it on GPU with cuDNN only)")
        if self.projection_size is None:
            return            # MXNet's CPU RNN ignores lstm_state_clip_* without a projection
        if self.mode != "lstm":
            raise self.param_error(f"projection_size is for mode 'lstm' only, not {self.mode!r}")
        if not 0 < self.projection_size <= self.state_size:
            raise self.param_error(f"projection_size must be in [1, state_size="
                                   f"{self.state_size}], got {self.projection_size}")
        if self.lstm_state_clip_min is not None or self.lstm_state_clip_max is not None:
            raise self.param_error("lstm_state_clip_min/max with projection_size: MXNet 1.9.1 "
                                   "clips LSTM states on GPU (cuDNN >= 7.2.1) only")

    def draws_random(self):
        return self.p > 0 and self.num_layers > 1

    @property
    def directions(self):
        return 2 if self.bidirectional else 1

    def blas_work(self, data, *others):
        """The product of one time step, hidden state x recurrent weights: the loop over
        time makes many of these small ones (the input projection is one larger call)."""
        recurrent = self.projection_size or self.state_size
        projection = self.state_size * recurrent if self.projection_size else 0
        return data[1] * (_GATES[self.mode] * self.state_size * recurrent + projection)

    def list_inputs(self, num_args=None):
        return self.inputs[:4] if self.mode == "lstm" else self.inputs[:3]

    def list_outputs(self):
        names = ("output", "state_output", "statecell_output")
        return (names if self.mode == "lstm" else names[:2]) + ("reserve",)

    def num_visible(self):
        return len(self.list_outputs()) - 1 if self.state_outputs else 1

    def num_mxnet_outputs(self):
        """MXNet's RNN node has the visible outputs only (its reserve is a workspace)."""
        return self.num_visible()

    # -- shapes --------------------------------------------------------------------------
    def _layout(self, input_size):
        """``(offset, shape)`` of each weight and bias, per (layer, direction), in MXNet order:
        weights ``(i2h, h2h)``, or ``(i2h, h2h, h2r)`` with a projection; biases ``(i2h, h2h)``."""
        rows, hidden = _GATES[self.mode] * self.state_size, self.state_size
        recurrent = self.projection_size or hidden          # the width of the state fed back
        weights, biases, offset = [], [], 0
        for layer in range(self.num_layers):
            width = input_size if layer == 0 else self.directions * recurrent
            for _ in range(self.directions):
                spec = ((offset, (rows, width)), (offset + rows * width, (rows, recurrent)))
                offset += rows * (width + recurrent)
                if self.projection_size:
                    spec += ((offset, (recurrent, hidden)),)
                    offset += recurrent * hidden
                weights.append(spec)
        for _ in range(self.num_layers * self.directions):
            biases.append(((offset, (rows,)), (offset + rows, (rows,))))
            offset += 2 * rows
        return weights, biases, offset

    def _reserve_layout(self, steps, batch):
        """``(offset, shape)`` of the reserve's parts: per (layer, direction) the step
        caches ``(k, T, N, H)`` (with a projection a pair: the previous r's ``(T, N, P)``
        and the other six ``(6, T, N, H)``), per upper layer its input and its dropout
        mask ``(T, N, D * H)`` (``D * P``); and the total length."""
        hidden, offset = self.state_size, 0
        recurrent = self.projection_size or hidden
        caches, inputs, masks = [], [None], [None]
        for _ in range(self.num_layers * self.directions):
            if self.projection_size is None:
                shape = (_CACHED[self.mode], steps, batch, hidden)
                caches.append((offset, shape))
                offset += math.prod(shape)
            else:
                r_prev = (steps, batch, recurrent)
                rest = (_CACHED["lstm"] - 1, steps, batch, hidden)
                caches.append(((offset, r_prev), (offset + math.prod(r_prev), rest)))
                offset += math.prod(r_prev) + math.prod(rest)
        between = (steps, batch, self.directions * recurrent)
        for _ in range(1, self.num_layers):
            inputs.append((offset, between))
            offset += math.prod(between)
            if self.p > 0:
                masks.append((offset, between))
                offset += math.prod(between)
            else:
                masks.append(None)
        return caches, inputs, masks, offset

    def _state_shape(self, data, cell=False):
        """The shape of ``state`` (with a projection ``(L * D, N, P)``) or ``state_cell``."""
        width = self.state_size if cell else self.projection_size or self.state_size
        return (self.num_layers * self.directions, data[1], width)

    def infer_input_shapes(self, data, parameters=None, state=None, state_cell=None):
        if data is None:
            return [data, parameters, state, state_cell][:len(self.list_inputs())]
        completed = [data, parameters or (self._layout(data[2])[2],),
                     state or self._state_shape(data)]
        return completed + ([state_cell or self._state_shape(data, cell=True)]
                            if self.mode == "lstm" else [])

    def infer_shape(self, data, parameters, state, state_cell=None):
        if len(data) != 3:
            raise self.shape_error(f"data must be (seq_len, batch, input_size), got {data}")
        expected = {"parameters": (self._layout(data[2])[2],), "state": self._state_shape(data),
                    "state_cell": self._state_shape(data, cell=True)}
        for name, shape in (("parameters", parameters), ("state", state),
                            ("state_cell", state_cell)):
            if shape is not None and tuple(shape) != expected[name]:
                raise self.shape_error(f"{name} must have shape {expected[name]}, got {shape}")
        output = tuple(data[:2]) + (self.directions * (self.projection_size or self.state_size),)
        states = [self._state_shape(data), self._state_shape(data, cell=True)]
        return [output] + states[:len(self.list_outputs()) - 2] + [
            (self._reserve_layout(data[0], data[1])[3],)]

    # -- computation ---------------------------------------------------------------------
    @staticmethod
    def _part(flat, spec):
        offset, shape = spec
        return flat[offset:offset + math.prod(shape)].reshape(shape)

    def _caches(self, reserve, spec):
        """The step caches of one layer and direction, as views: see ``_reserve_layout``."""
        if self.projection_size is None:
            return self._part(reserve, spec)
        r_prev, rest = spec
        return [self._part(reserve, r_prev)] + list(self._part(reserve, rest))

    def _unpack(self, parameters, input_size):
        """One ``(w_ih, w_hh, b_ih, b_hh)`` per (layer, direction), as views
        (``(w_ih, w_hh, w_hr, b_ih, b_hh)`` with a projection)."""
        weights, biases, _ = self._layout(input_size)
        return [tuple(self._part(parameters, s) for s in w + b) for w, b in zip(weights, biases)]

    def _run_direction(self, xp, inputs, weights, h, c, reverse, caches):
        """Run one layer in one direction, keeping each step's arrays in ``caches``
        ``(k, T, N, H)``; returns the outputs (T, N, H) and the final h and c."""
        w_ih, w_hh, *projection, b_ih, b_hh = weights
        x_parts = xp.dot(inputs.reshape(-1, inputs.shape[-1]), w_ih.T).reshape(
            inputs.shape[:2] + (w_ih.shape[0],))
        x_parts += b_ih
        if self.mode != "gru":           # GRU multiplies part of b_hh by its reset gate
            x_parts += b_hh
        order = range(len(inputs) - 1, -1, -1) if reverse else range(len(inputs))
        w_hh_t = xp.ascontiguousarray(w_hh.T)    # h @ w_hh_t runs faster than h @ w_hh.T
        if self.mode == "lstm":
            scale = _lstm_gate_scale(xp, self.state_size, x_parts.dtype)
            x_parts *= scale
            w_hh_t *= scale
            w_hr_t = xp.ascontiguousarray(projection[0].T) if projection else None
            return _lstm_steps(xp, x_parts, w_hh_t, caches, list(order), h, c, w_hr_t)
        step = _STEPS[self.mode][0]
        outputs = xp.empty(inputs.shape[:2] + (self.state_size,), dtype=x_parts.dtype)
        for t in order:
            h, c, cache = step(xp, self.mode, x_parts[t], h, c, w_hh_t, b_hh)
            for kept, value in zip(caches, cache):
                kept[t] = value
            outputs[t] = h
        return outputs, h, c

    def forward(self, xp, data, parameters, state, state_cell=None, rng=None, is_train=False):
        steps, batch = data.shape[:2]
        cache_specs, input_specs, mask_specs, size = self._reserve_layout(steps, batch)
        reserve = xp.empty(size, dtype=data.dtype)
        all_weights = self._unpack(parameters, data.shape[2])
        inputs, final_h, final_c = data, [], []
        for layer in range(self.num_layers):
            if layer:
                if mask_specs[layer] is not None:
                    mask = self._part(reserve, mask_specs[layer])
                    mask[...] = self._dropout_mask(xp, rng, inputs.shape, is_train)
                    inputs = inputs * mask
                self._part(reserve, input_specs[layer])[...] = inputs
            outputs = []
            for direction in range(self.directions):
                index = layer * self.directions + direction
                cell = None if state_cell is None else state_cell[index]
                out, h, c = self._run_direction(
                    xp, inputs, all_weights[index], state[index], cell, direction == 1,
                    self._caches(reserve, cache_specs[index]))
                outputs.append(out)
                final_h.append(h)
                final_c.append(c)
            inputs = xp.concatenate(outputs, axis=-1) if self.directions == 2 else outputs[0]
        results = [inputs, xp.stack(final_h)]
        if self.mode == "lstm":
            results.append(xp.stack(final_c))
        return tuple(r.astype(data.dtype, copy=False) for r in results) + (reserve,)

    def _dropout_mask(self, xp, rng, shape, is_train):
        """Keep each element with probability ``1 - p``, scaled by ``1 / (1 - p)``; all ones
        outside training."""
        if not is_train:
            return 1
        keep = rng.random(shape, dtype="float64") >= self.p
        return keep / (1 - self.p)

    def _back_direction(self, xp, grad_out, grad_h, grad_c, weights, inputs, caches, reverse):
        """BPTT through one layer and direction; returns the input, weight and state grads.

        The loop over time only carries the state gradients back; the weight gradients
        are then one product each over all steps (the step caches hold every ``h_prev``).
        With a projection the gradient reaching a step is r's; ``W_hr`` carries it to h.
        """
        step_back = _STEPS[self.mode][1]
        w_ih, w_hh, *projection, _, _ = weights
        shape = (len(inputs), inputs.shape[1], w_ih.shape[0])
        grad_parts = xp.empty(shape, dtype=w_ih.dtype)
        grad_hiddens = grad_parts if self.mode != "gru" else xp.empty(shape, dtype=w_ih.dtype)
        grad_rs = xp.empty(grad_out.shape, dtype=w_ih.dtype) if projection else None
        order = range(len(inputs)) if reverse else range(len(inputs) - 1, -1, -1)
        for t in order:
            buffer = grad_parts[t]
            grad_step = grad_out[t] + grad_h
            if projection:                                  # back through r = W_hr h
                grad_rs[t] = grad_step
                grad_step = xp.dot(grad_step, projection[0])
            grad_x, grad_hidden, grad_h, grad_c = step_back(
                xp, self.mode, grad_step, grad_c, w_hh, [kept[t] for kept in caches], buffer)
            if grad_x is not buffer:
                buffer[...] = grad_x
            if grad_hiddens is not grad_parts:
                grad_hiddens[t] = grad_hidden
        flat_parts = grad_parts.reshape(-1, shape[-1])
        flat_hiddens = grad_hiddens.reshape(-1, shape[-1])
        h_prev = caches[0].reshape(-1, w_hh.shape[1])           # every step's h_prev
        grad_w_ih = xp.dot(flat_parts.T, inputs.reshape(-1, inputs.shape[-1]))
        grads = (grad_w_ih, xp.dot(flat_hiddens.T, h_prev), flat_parts.sum(axis=0),
                 flat_hiddens.sum(axis=0))
        if projection:                  # every step's h = o * tanh(c), from the caches
            h_all = (caches[5] * caches[6]).reshape(-1, self.state_size)
            grad_w_hr = xp.dot(grad_rs.reshape(-1, grad_rs.shape[-1]).T, h_all)
            grads = grads[:2] + (grad_w_hr,) + grads[2:]
        grad_inputs = xp.dot(flat_parts, w_ih).reshape(inputs.shape)
        return grad_inputs, grads, grad_h, grad_c

    def backward(self, xp, out_grad, *state_grads, data, parameters, state, state_cell=None,
                 reserve=None):
        steps, batch = data.shape[:2]
        cache_specs, input_specs, mask_specs, _ = self._reserve_layout(steps, batch)
        all_weights = self._unpack(parameters, data.shape[2])
        width, count = self.projection_size or self.state_size, self.num_layers * self.directions
        grad_hy = state_grads[0] if state_grads else xp.zeros_like(state)
        grad_cy = state_grads[1] if len(state_grads) > 1 else None
        grad_state = xp.zeros_like(state)
        grad_cell = None if state_cell is None else xp.zeros_like(state_cell)
        grad_weights = [None] * count
        grad_above = out_grad
        for layer in reversed(range(self.num_layers)):
            inputs = self._part(reserve, input_specs[layer]) if layer else data
            grad_inputs = 0
            for direction in range(self.directions):
                index = layer * self.directions + direction
                part = grad_above[..., direction * width:(direction + 1) * width]
                cell_grad = None if grad_cell is None else (
                    xp.zeros_like(state_cell[index]) if grad_cy is None else grad_cy[index])
                grad_x, grad_weights[index], grad_h0, grad_c0 = self._back_direction(
                    xp, part, grad_hy[index], cell_grad, all_weights[index], inputs,
                    self._caches(reserve, cache_specs[index]), direction == 1)
                grad_inputs = grad_inputs + grad_x
                grad_state[index] = grad_h0
                if grad_cell is not None:
                    grad_cell[index] = grad_c0
            if layer and mask_specs[layer] is not None:
                grad_inputs = grad_inputs * self._part(reserve, mask_specs[layer])
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
