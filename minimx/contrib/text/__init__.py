"""``mx.contrib.text``: token counting, vocabularies and pretrained token embeddings.

Lesson: 11-data.  Mirrors ``python/mxnet/contrib/text/``.  ``utils.count_tokens_from_str``
counts tokens, ``vocab.Vocabulary`` indexes them, and ``embedding`` reads word vectors
(GloVe, fastText or a file of your own) from disk -- minimx never downloads one: a missing
file raises an error naming the file and the folder it belongs in.
"""
from . import embedding, utils, vocab

__all__ = ["embedding", "utils", "vocab"]
