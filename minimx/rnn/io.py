"""Bucketing for variable-length sequences: encode_sentences and BucketSentenceIter.

Lesson: 11-data. Sentences are padded up to the smallest bucket length that holds them;
each batch comes from one bucket and carries its length as ``bucket_key``, so a
BucketingModule can run the unrolled network of that length. The label of each step is
the next token (language modelling), ``invalid_label`` after the end.
Mirrors python/mxnet/rnn/io.py.
"""
import bisect
import random

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..io import DataBatch, DataDesc, DataIter

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n", start_label=0,
                     unknown_token=None):
    """Map lists of string tokens to lists of integer ids, growing ``vocab`` as needed.

    Returns ``(encoded sentences, vocab)``. With a given ``vocab``, an unknown word is an
    error unless ``unknown_token`` names the token to use instead.

    Examples
    --------
    >>> encode_sentences([["a", "b"], ["b", "c"]])[0]
    [[0, 1], [1, 2]]
    """
    next_id = start_label
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    encoded = []
    for sentence in sentences:
        ids = []
        for word in sentence:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise MXNetError(f"encode_sentences: unknown token {word!r} (pass "
                                     f"unknown_token to map unknown words)")
                if next_id == invalid_label:
                    next_id += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = next_id
                next_id += 1
            ids.append(vocab[word])
        encoded.append(ids)
    return encoded, vocab


class BucketSentenceIter(DataIter):
    """Batches of equal-length (bucketed, padded) sentences with next-token labels.

    Parameters
    ----------
    sentences : list of list of int
    batch_size : int
    buckets : list of int, optional
        Bucket lengths; by default every length that has at least batch_size sentences.
    invalid_label : int
        Padding value and the label after the last token.
    data_name, label_name : str
    dtype : str
    layout : {'NT', 'TN'}
        Batch-major or time-major batches.
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name="data",
                 label_name="softmax_label", dtype="float32", layout="NT"):
        super().__init__(batch_size)
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, count in enumerate(counts) if count >= batch_size]
        buckets = sorted(buckets)
        rows = [[] for _ in buckets]
        self.ndiscard = 0
        for sentence in sentences:
            bucket = bisect.bisect_left(buckets, len(sentence))
            if bucket == len(buckets):
                self.ndiscard += 1
                continue
            row = np.full((buckets[bucket],), invalid_label, dtype=dtype)
            row[:len(sentence)] = sentence
            rows[bucket].append(row)
        if self.ndiscard:
            print(f"WARNING: discarded {self.ndiscard} sentences longer than the largest "
                  f"bucket.")
        self.buckets = [length for length, r in zip(buckets, rows) if r]
        self.data = [np.asarray(r, dtype=dtype) for r in rows if r]
        if not self.buckets:
            raise MXNetError("BucketSentenceIter: no sentence fits in the buckets "
                             f"{buckets}")
        self.data_name, self.label_name = data_name, label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.layout = layout
        self.major_axis = layout.find("N")
        if self.major_axis not in (0, 1):
            raise MXNetError(f"BucketSentenceIter: invalid layout {layout!r}: must be 'NT' "
                             f"(batch major) or 'TN' (time major)")
        self.default_bucket_key = max(self.buckets)
        shape = self.batch_shape(self.default_bucket_key)
        self.provide_data = [DataDesc(data_name, shape, layout=layout)]
        self.provide_label = [DataDesc(label_name, shape, layout=layout)]
        self.idx = [(i, j) for i, rows_i in enumerate(self.data)
                    for j in range(0, len(rows_i) - batch_size + 1, batch_size)]
        self.curr_idx = 0
        self.reset()

    def batch_shape(self, length):
        return (self.batch_size, length) if self.major_axis == 0 else (length, self.batch_size)

    def reset(self):
        """Shuffle the batch order (``random``) and the sentences in each bucket (numpy)."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for rows in self.data:
            np.random.shuffle(rows)
        self.nddata, self.ndlabel = [], []
        for rows in self.data:
            label = np.empty_like(rows)
            label[:, :-1] = rows[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(nd.array(rows, dtype=self.dtype))
            self.ndlabel.append(nd.array(label, dtype=self.dtype))

    def next(self):
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(self.data_name, data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(self.label_name, label.shape,
                                                 layout=self.layout)])
