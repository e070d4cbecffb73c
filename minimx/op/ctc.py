"""Connectionist Temporal Classification (CTC) loss: aligning a label to a longer sequence.

Lesson: 12-training-with-module.  Mirrors ``src/operator/nn/ctc_loss.cc``.  The
loss is ``-log p(label | data)``, summed over every alignment of the label to
the ``T`` time steps (labels may repeat and a blank class may be inserted).
The forward (alpha) and backward (beta) recursions run in log space over the
label extended with blanks; the gradient of the loss with respect to the
unnormalised scores is ``softmax(data) - occupancy``, computed in forward.
"""
from .params import Choice, Param
from .registry import OpDef, TestHints, register_op


def _log_add(xp, *terms):
    """``log(sum(exp(terms)))`` element-wise, safe when every term is ``-inf``."""
    stacked = xp.stack(terms)
    top = stacked.max(axis=0)
    safe = xp.where(xp.isfinite(top), top, 0)
    total = xp.exp(stacked - safe).sum(axis=0)
    reachable = total > 0
    return xp.where(reachable, safe + xp.log(xp.where(reachable, total, 1)), -xp.inf)


def _shift(xp, values, steps, fill):
    """``values`` moved ``steps`` places right (positive) or left (negative), padded."""
    out = xp.full_like(values, fill)
    if steps > 0:
        out[steps:] = values[:-steps]
    else:
        out[:steps] = values[-steps:]
    return out


def _one_sequence(xp, log_probs, label, blank):
    """(loss, gradient w.r.t. the scores) of one sequence: log_probs (T, C), label (L,)."""
    steps, classes = log_probs.shape
    extended = xp.full(2 * len(label) + 1, blank, dtype=xp.int64)
    extended[1::2] = label
    skip = xp.zeros(len(extended), dtype=bool)     # may jump over the blank before s
    skip[2:] = (extended[2:] != blank) & (extended[2:] != extended[:-2])
    emit = log_probs[:, extended]                  # (T, S)
    minus_inf = -xp.inf
    alpha = xp.full(emit.shape, minus_inf)
    alpha[0, :2] = emit[0, :2]
    for t in range(1, steps):
        jump = xp.where(skip, _shift(xp, alpha[t - 1], 2, minus_inf), minus_inf)
        alpha[t] = _log_add(xp, alpha[t - 1], _shift(xp, alpha[t - 1], 1, minus_inf),
                            jump) + emit[t]
    beta = xp.full(emit.shape, minus_inf)
    beta[-1, -2:] = emit[-1, -2:]
    skip_next = _shift(xp, skip, -2, False)        # s + 2 may be reached from s
    for t in range(steps - 2, -1, -1):
        jump = xp.where(skip_next, _shift(xp, beta[t + 1], -2, minus_inf), minus_inf)
        beta[t] = _log_add(xp, beta[t + 1], _shift(xp, beta[t + 1], -1, minus_inf),
                           jump) + emit[t]
    log_likelihood = _log_add(xp, alpha[-1, -1], alpha[-1, -2] if len(extended) > 1
                              else minus_inf)
    occupancy = xp.exp(alpha + beta - emit - log_likelihood)      # (T, S)
    one_hot = (extended[:, None] == xp.arange(classes)[None, :]).astype(occupancy.dtype)
    grad = xp.exp(log_probs) - occupancy @ one_hot
    return -log_likelihood, grad


@register_op
class CTCLoss(OpDef):
    """CTC loss of ``data (T, N, C)`` (unnormalised scores) against ``label (N, L)``.

    Labels are class indices; with ``blank_label='first'`` the blank is 0 and
    labels are padded with 0, with ``'last'`` the blank is ``C - 1`` and the
    padding is -1.  Returns one loss per sequence, shape ``(N,)``.
    """
    name = "CTCLoss"
    aliases = ("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss")
    inputs = ("data", "label", "data_lengths", "label_lengths")
    outputs = ("output0", "grad")
    visible_outputs = 1
    params = {
        "use_data_lengths": Param(bool, default=False, doc="read data_lengths (N,)"),
        "use_label_lengths": Param(bool, default=False, doc="read label_lengths (N,)"),
        "blank_label": Param(Choice("first", "last"), default="first"),
    }
    saves = ("grad",)
    no_grad_inputs = ("label", "data_lengths", "label_lengths")
    test = TestHints(shapes=((4, 2, 3), (2, 2)), low=-1, high=1,
                     integer_inputs={"label": (1, 3)})

    def list_inputs(self, num_args=None):
        return ("data", "label") + (("data_lengths",) if self.use_data_lengths else ()) + (
            ("label_lengths",) if self.use_label_lengths else ())

    def infer_shape(self, data, label, *lengths):
        if len(data) != 3 or len(label) != 2 or label[0] != data[1]:
            raise self.shape_error(f"expected data (T, N, C) and label (N, L), got data {data} "
                                   f"and label {label}")
        for shape in lengths:
            if tuple(shape) != (data[1],):
                raise self.shape_error(f"lengths must have shape ({data[1]},), got {shape}")
        return [(data[1],), tuple(data)]

    def infer_input_shapes(self, data, label=None, *lengths):
        lengths = [length or (data[1],) for length in lengths] if data else list(lengths)
        return [data, label] + lengths

    def _lengths(self, xp, data, label, lengths):
        steps, batch, classes = data.shape
        lengths = list(lengths)
        data_len = (lengths.pop(0).astype(int) if self.use_data_lengths
                    else xp.full(batch, steps, dtype=int))
        if self.use_label_lengths:
            label_len = lengths.pop(0).astype(int)
        else:
            padding = 0 if self.blank_label == "first" else -1
            is_pad = label == padding
            label_len = xp.where(is_pad.any(axis=1), is_pad.argmax(axis=1), label.shape[1])
        return data_len, label_len

    def forward(self, xp, data, label, *lengths):
        steps, batch, classes = data.shape
        blank = 0 if self.blank_label == "first" else classes - 1
        data_len, label_len = self._lengths(xp, data, label, lengths)
        scores = data.astype(xp.float64)
        log_probs = scores - scores.max(axis=2, keepdims=True)
        log_probs = log_probs - xp.log(xp.exp(log_probs).sum(axis=2, keepdims=True))
        losses = xp.zeros(batch, dtype=xp.float64)
        grad = xp.zeros(data.shape, dtype=xp.float64)
        for n in range(batch):
            steps_n, length = int(data_len[n]), int(label_len[n])
            target = label[n, :length].astype(xp.int64)
            losses[n], grad[:steps_n, n] = _one_sequence(xp, log_probs[:steps_n, n], target,
                                                         blank)
        return losses.astype(data.dtype), grad.astype(data.dtype)

    def backward(self, xp, out_grad, grad):
        return (out_grad[None, :, None] * grad,) + (None,) * (len(self.list_inputs()) - 1)
