"""``text.utils``: counting the tokens of a string.

Lesson: 11-data.  Mirrors ``python/mxnet/contrib/text/utils.py``.
"""
import collections
import re

__all__ = ["count_tokens_from_str"]


def count_tokens_from_str(source_str, token_delim=" ", seq_delim="\n", to_lower=False,
                          counter_to_update=None):
    """A ``collections.Counter`` of the tokens in ``source_str``.

    Tokens are separated by ``token_delim`` and sequences by ``seq_delim``; as in MXNet
    both are regular expressions (``'|'``-joined), and empty tokens are not counted.  ``to_lower`` lowers every
    token first; ``counter_to_update`` is updated in place and returned instead of a new
    counter.
    """
    pattern = f"{token_delim}|{seq_delim}"
    tokens = [token for token in re.split(pattern, source_str) if token]
    if to_lower:
        tokens = [token.lower() for token in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
