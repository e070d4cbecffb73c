"""``text.vocab.Vocabulary``: tokens indexed by frequency, with an unknown token.

Lesson: 11-data.  Mirrors ``python/mxnet/contrib/text/vocab.py``.  Index 0 is the unknown
token, then the reserved tokens in the order given, then the counted tokens, most frequent
first (ties in alphabetical order), keeping those seen at least ``min_freq`` times and at
most ``most_freq_count`` of them.
"""
from ...base import InvalidArgumentError, InvalidParameterError

__all__ = ["Vocabulary"]


class Vocabulary:
    """Maps tokens to indices and back (``token_to_idx``, ``idx_to_token``)."""

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        if min_freq <= 0:
            raise InvalidArgumentError(f"Vocabulary: min_freq must be positive, got {min_freq}")
        reserved = list(reserved_tokens or [])
        if unknown_token in reserved:
            raise InvalidArgumentError(f"Vocabulary: reserved_tokens {reserved} must not "
                                       f"contain the "
                             f"unknown token {unknown_token!r}")
        if len(set(reserved)) != len(reserved):
            raise InvalidArgumentError(f"Vocabulary: reserved_tokens {reserved} repeat a token")
        self._index_unknown_and_reserved_tokens(unknown_token, reserved_tokens)
        if counter is not None:
            self._index_counter_keys(counter, unknown_token, reserved, most_freq_count,
                                     min_freq)

    def _index_unknown_and_reserved_tokens(self, unknown_token, reserved_tokens):
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token, *(reserved_tokens or [])]
        self._token_to_idx = {token: index for index, token in enumerate(self._idx_to_token)}

    def _index_counter_keys(self, counter, unknown_token, reserved, most_freq_count,
                            min_freq):
        special = {unknown_token, *reserved}
        by_frequency = sorted(counter.items(), key=lambda item: item[0])
        by_frequency.sort(key=lambda item: item[1], reverse=True)
        limit = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, frequency in by_frequency:
            if frequency < min_freq or len(self._idx_to_token) == limit:
                break
            if token not in special:
                self._idx_to_token.append(token)
                self._token_to_idx[token] = len(self._idx_to_token) - 1

    def __len__(self):
        return len(self._idx_to_token)

    def __contains__(self, token):
        return token in self._token_to_idx

    @property
    def token_to_idx(self):
        """dict: token -> index."""
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list: index -> token."""
        return self._idx_to_token

    @property
    def unknown_token(self):
        return self._unknown_token

    @property
    def reserved_tokens(self):
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a token, or a list of indices for a list (unknown tokens give 0)."""
        single = not isinstance(tokens, list)
        indices = [self._token_to_idx.get(token, 0) for token in ([tokens] if single
                                                                   else tokens)]
        return indices[0] if single else indices

    def to_tokens(self, indices):
        """The token of an index, or a list of tokens for a list of indices."""
        single = not isinstance(indices, list)
        tokens = []
        for index in [indices] if single else indices:
            if not isinstance(index, int) or not 0 <= index < len(self._idx_to_token):
                raise InvalidParameterError(f"Vocabulary.to_tokens: index {index!r} is not in "
                                 f"[0, {len(self._idx_to_token)})")
            tokens.append(self._idx_to_token[index])
        return tokens[0] if single else tokens
