"""WikiText-2 and WikiText-103: word-level language-model data sets read from disk.

Lesson: 11-data.  Mirrors ``python/mxnet/gluon/contrib/data/text.py``.  A segment's file
(``wiki.train.tokens``, ``wiki.valid.tokens`` or ``wiki.test.tokens`` in ``root``) is read
as words; each non-empty line ends with ``<eos>``.  The words become indices of a
vocabulary (built from this file's counts unless one is given), the stream is cut into rows
of ``seq_len`` and each sample is ``(data, label)``, the label being the data shifted by one
word.  minimx never downloads: a missing file is an error naming it (MXNet fetches the
archive ``wikitext-2-v1.zip`` / ``wikitext-103-v1.zip`` from its repository).
"""
import os

import numpy as np

from .... import ndarray as nd
from ....base import data_dir
from ....contrib.text import utils as text_utils
from ....contrib.text.vocab import Vocabulary
from ...data.dataset import Dataset

__all__ = ["WikiText2", "WikiText103"]

EOS_TOKEN = "<eos>"
_SEGMENT_FILES = {"train": "wiki.train.tokens", "validation": "wiki.valid.tokens",
                  "test": "wiki.test.tokens"}


class _WikiText(Dataset):
    _name = ""

    def __init__(self, root, segment, vocab, seq_len):
        if segment not in _SEGMENT_FILES:
            raise ValueError(f"{type(self).__name__}: segment must be one of "
                             f"{sorted(_SEGMENT_FILES)}, got {segment!r}")
        self._root = os.path.expanduser(root)
        self._segment = segment
        self._vocab = vocab
        self._counter = None
        self._seq_len = seq_len
        self._read(os.path.join(self._root, _SEGMENT_FILES[segment]))

    @property
    def vocabulary(self):
        """The ``contrib.text.vocab.Vocabulary`` the words are indexed by."""
        return self._vocab

    @property
    def frequencies(self):
        """A ``collections.Counter`` of this segment's words."""
        return self._counter

    def _read(self, path):
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"{type(self).__name__}: {path} does not exist; minimx does not download. "
                f"Unpack {self._name}-v1.zip (the WikiText archive) into {self._root}")
        with open(path, encoding="utf8") as source:
            content = source.read()
        self._counter = text_utils.count_tokens_from_str(content)
        if self._vocab is None:
            self._vocab = Vocabulary(counter=self._counter, reserved_tokens=[EOS_TOKEN])
        words = [word for line in content.splitlines() if line.split()
                 for word in line.split() + [EOS_TOKEN]]
        indices = np.array(self._vocab.to_indices(words), dtype=np.int32)
        usable = (len(indices) - 1) // self._seq_len * self._seq_len
        self._data = nd.array(indices[:usable], dtype=np.int32).reshape((-1, self._seq_len))
        self._label = nd.array(indices[1:usable + 1], dtype=np.int32).reshape(
            (-1, self._seq_len))

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (Salesforce research; CC BY-SA): 2 million training words.

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/wikitext-2
        The folder holding ``wiki.{train,valid,test}.tokens``.
    segment : str, default 'train'
        'train', 'validation' or 'test'.
    vocab : contrib.text.vocab.Vocabulary, optional
        Index the words by this vocabulary (e.g. the training segment's).
    seq_len : int, default 35
        Words per sample, regardless of sentence boundaries.
    """
    _name = "wikitext-2"

    def __init__(self, root=os.path.join(data_dir(), "datasets", "wikitext-2"),
                 segment="train", vocab=None, seq_len=35):
        super().__init__(root, segment, vocab, seq_len)


class WikiText103(_WikiText):
    """WikiText-103 (Salesforce research; CC BY-SA): 103 million training words; arguments
    as ``WikiText2``'s, ``root`` defaulting to $MXNET_HOME/datasets/wikitext-103."""
    _name = "wikitext-103"

    def __init__(self, root=os.path.join(data_dir(), "datasets", "wikitext-103"),
                 segment="train", vocab=None, seq_len=35):
        super().__init__(root, segment, vocab, seq_len)
