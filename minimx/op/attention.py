"""Multi-head attention's two products on interleaved projections (``contrib``).

Lesson: 09-gluon.  Mirrors ``src/operator/contrib/transformer.cc``.  Self-attention keeps
the query, key and value projections of every head in one tensor
``(seq, batch, heads * 3 * d)``, laid out head by head as ``[q, k, v]``; encoder-decoder
attention keeps the queries apart ``(q_seq, batch, heads * d)`` and the keys and values
interleaved ``(kv_seq, batch, heads * 2 * d)``.  ``*_qk`` gives the scores
``q k^T / sqrt(d)`` for every (batch, head) pair, ``(batch * heads, q_seq, kv_seq)``;
``*_valatt`` multiplies attention weights of that shape with the values and lays the
result out as ``(q_seq, batch, heads * d)``.  Each is linear in each input, so each
gradient is the same kind of product.
"""
import math

from .params import Param
from .registry import OpDef, TestHints, register_op

_HEADS = Param(int, doc="number of attention heads")


def _split_heads(x, heads, parts):
    """(seq, batch, heads * parts * d) -> (parts, batch * heads, seq, d)."""
    seq, batch, width = x.shape
    d = width // (heads * parts)
    split = x.reshape(seq, batch, heads, parts, d).transpose(3, 1, 2, 0, 4)
    return split.reshape(parts, batch * heads, seq, d)


def _merge_heads(xp, parts, heads, seq, batch):
    """The inverse of ``_split_heads``: (parts, batch * heads, seq, d) -> (seq, batch, ...)."""
    count, _, _, d = parts.shape
    joined = parts.reshape(count, batch, heads, seq, d).transpose(3, 1, 2, 0, 4)
    return xp.ascontiguousarray(joined).reshape(seq, batch, heads * count * d)


def _check_width(op, shape, heads, parts, what):
    if len(shape) != 3 or shape[2] % (heads * parts):
        raise op.shape_error(f"{what} must be (seq, batch, heads * {parts} * d) for "
                             f"heads={heads}, got {tuple(shape)}")
    return shape[2] // (heads * parts)


def _swap(x):
    return x.swapaxes(-1, -2)


def _reference_selfatt_qk(np, qkv, heads):
    q, k, _ = _split_heads(qkv, heads, 3)
    return q @ _swap(k) / math.sqrt(q.shape[-1])


def _reference_selfatt_valatt(np, qkv, attention, heads):
    seq, batch = qkv.shape[:2]
    out = attention @ _split_heads(qkv, heads, 3)[2]
    return out.reshape(batch, heads, seq, -1).transpose(2, 0, 1, 3).reshape(seq, batch, -1)


@register_op
class SelfAttQK(OpDef):
    """Scores ``q k^T / sqrt(d)`` of self-attention: (batch * heads, seq, seq)."""
    name = "_contrib_interleaved_matmul_selfatt_qk"
    inputs = ("queries_keys_values",)
    params = {"heads": _HEADS}
    saves = ("queries_keys_values",)
    test = TestHints(shapes=((4, 2, 12),), params={"heads": 2}, reference=_reference_selfatt_qk)

    def infer_shape(self, qkv):
        _check_width(self, qkv, self.heads, 3, "queries_keys_values")
        return (qkv[1] * self.heads, qkv[0], qkv[0])

    def forward(self, xp, qkv):
        q, k, _ = _split_heads(qkv, self.heads, 3)
        return (q @ _swap(k)) * (1.0 / math.sqrt(q.shape[-1]))

    def backward(self, xp, out_grad, queries_keys_values):
        qkv = queries_keys_values
        q, k, _ = _split_heads(qkv, self.heads, 3)
        scale = 1.0 / math.sqrt(q.shape[-1])
        grad_q, grad_k = (out_grad @ k) * scale, (_swap(out_grad) @ q) * scale
        parts = xp.stack([grad_q, grad_k, xp.zeros_like(grad_q)])
        return _merge_heads(xp, parts, self.heads, qkv.shape[0], qkv.shape[1])


@register_op
class SelfAttValAtt(OpDef):
    """Attention weights (batch * heads, seq, seq) times the values: (seq, batch, heads * d)."""
    name = "_contrib_interleaved_matmul_selfatt_valatt"
    inputs = ("queries_keys_values", "attention")
    params = {"heads": _HEADS}
    saves = ("queries_keys_values", "attention")
    test = TestHints(shapes=((4, 2, 12), (4, 4, 4)), params={"heads": 2},
                     reference=_reference_selfatt_valatt)

    def infer_shape(self, qkv, attention):
        d = _check_width(self, qkv, self.heads, 3, "queries_keys_values")
        expected = (qkv[1] * self.heads, qkv[0], qkv[0])
        if tuple(attention) != expected:
            raise self.shape_error(f"attention must be {expected}, got {tuple(attention)}")
        return (qkv[0], qkv[1], self.heads * d)

    def forward(self, xp, qkv, attention):
        v = _split_heads(qkv, self.heads, 3)[2]
        return _merge_heads(xp, (attention @ v)[None], self.heads, qkv.shape[0], qkv.shape[1])

    def backward(self, xp, out_grad, queries_keys_values, attention):
        qkv = queries_keys_values
        v = _split_heads(qkv, self.heads, 3)[2]
        grad_out = _split_heads(out_grad, self.heads, 1)[0]
        grad_v = _swap(attention) @ grad_out
        parts = xp.stack([xp.zeros_like(grad_v), xp.zeros_like(grad_v), grad_v])
        grad_qkv = _merge_heads(xp, parts, self.heads, qkv.shape[0], qkv.shape[1])
        return grad_qkv, grad_out @ _swap(v)


def _reference_encdec_qk(np, queries, keys_values, heads):
    q = _split_heads(queries, heads, 1)[0]
    k = _split_heads(keys_values, heads, 2)[0]
    return q @ _swap(k) / math.sqrt(q.shape[-1])


def _reference_encdec_valatt(np, keys_values, attention, heads):
    batch = keys_values.shape[1]
    out = attention @ _split_heads(keys_values, heads, 2)[1]
    seq = attention.shape[1]
    return out.reshape(batch, heads, seq, -1).transpose(2, 0, 1, 3).reshape(seq, batch, -1)


@register_op
class EncDecQK(OpDef):
    """Scores of encoder-decoder attention: (batch * heads, q_seq, kv_seq)."""
    name = "_contrib_interleaved_matmul_encdec_qk"
    inputs = ("queries", "keys_values")
    params = {"heads": _HEADS}
    saves = ("queries", "keys_values")
    test = TestHints(shapes=((3, 2, 6), (5, 2, 12)), params={"heads": 2},
                     reference=_reference_encdec_qk)

    def infer_shape(self, queries, keys_values):
        d = _check_width(self, queries, self.heads, 1, "queries")
        if _check_width(self, keys_values, self.heads, 2, "keys_values") != d or \
                keys_values[1] != queries[1]:
            raise self.shape_error(f"keys_values {tuple(keys_values)} do not fit queries "
                                   f"{tuple(queries)}")
        return (queries[1] * self.heads, queries[0], keys_values[0])

    def forward(self, xp, queries, keys_values):
        q = _split_heads(queries, self.heads, 1)[0]
        k = _split_heads(keys_values, self.heads, 2)[0]
        return (q @ _swap(k)) * (1.0 / math.sqrt(q.shape[-1]))

    def backward(self, xp, out_grad, queries, keys_values):
        q = _split_heads(queries, self.heads, 1)[0]
        k = _split_heads(keys_values, self.heads, 2)[0]
        scale = 1.0 / math.sqrt(q.shape[-1])
        grad_q = _merge_heads(xp, ((out_grad @ k) * scale)[None], self.heads, *queries.shape[:2])
        grad_k = (_swap(out_grad) @ q) * scale
        parts = xp.stack([grad_k, xp.zeros_like(grad_k)])
        return grad_q, _merge_heads(xp, parts, self.heads, *keys_values.shape[:2])


@register_op
class EncDecValAtt(OpDef):
    """Attention weights (batch * heads, q_seq, kv_seq) times the values:
    (q_seq, batch, heads * d)."""
    name = "_contrib_interleaved_matmul_encdec_valatt"
    inputs = ("keys_values", "attention")
    params = {"heads": _HEADS}
    saves = ("keys_values", "attention")
    test = TestHints(shapes=((5, 2, 12), (4, 3, 5)), params={"heads": 2},
                     reference=_reference_encdec_valatt)

    def infer_shape(self, keys_values, attention):
        d = _check_width(self, keys_values, self.heads, 2, "keys_values")
        if len(attention) != 3 or attention[0] != keys_values[1] * self.heads or \
                attention[2] != keys_values[0]:
            raise self.shape_error(f"attention must be (batch * heads, q_seq, "
                                   f"{keys_values[0]}), got {tuple(attention)}")
        return (attention[1], keys_values[1], self.heads * d)

    def forward(self, xp, keys_values, attention):
        v = _split_heads(keys_values, self.heads, 2)[1]
        return _merge_heads(xp, (attention @ v)[None], self.heads, attention.shape[1],
                            keys_values.shape[1])

    def backward(self, xp, out_grad, keys_values, attention):
        v = _split_heads(keys_values, self.heads, 2)[1]
        grad_out = _split_heads(out_grad, self.heads, 1)[0]
        grad_v = _swap(attention) @ grad_out
        parts = xp.stack([xp.zeros_like(grad_v), grad_v])
        return (_merge_heads(xp, parts, self.heads, *keys_values.shape[:2]),
                grad_out @ _swap(v))
