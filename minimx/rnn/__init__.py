"""mx.rnn: the bucketing data iterator for sequences (BucketSentenceIter, encode_sentences).

Lesson: 10-data. Mirrors python/mxnet/rnn/ (its io.py; the cells live in gluon.rnn here).
"""
from .io import BucketSentenceIter, encode_sentences

__all__ = ["BucketSentenceIter", "encode_sentences"]
