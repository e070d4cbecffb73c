"""``text.embedding``: pretrained token embeddings read from files already on disk.

Lesson: 11-data.  Mirrors ``python/mxnet/contrib/text/embedding.py``.  An embedding is a
``Vocabulary`` whose every index also has a vector (``idx_to_vec``, one row per token; row
0, the unknown token's, comes from ``init_unknown_vec`` unless the file has one).  A file
holds one token per line followed by its vector, separated by ``elem_delim``.

``GloVe`` and ``FastText`` read ``<embedding_root>/<glove|fasttext>/<pretrained_file_name>``
(the layout MXNet downloads into), or take that member out of a ``.zip`` archive in the
same folder.  minimx never downloads: when neither is there the error names the file and
the folder to put it in.  ``get_pretrained_file_names`` lists the names MXNet knows.
"""
import json
import os
import pathlib
import warnings
import zipfile

from ... import ndarray as nd
from ...base import InvalidArgumentError, InvalidParameterError, MXNetError
from .vocab import Vocabulary

__all__ = ["register", "create", "get_pretrained_file_names", "TokenEmbedding", "GloVe",
           "FastText", "CustomEmbedding", "CompositeEmbedding"]

_EMBEDDINGS = {}
_PRETRAINED = json.loads((pathlib.Path(__file__).with_name("pretrained_files.json"))
                         .read_text())
_DEFAULT_ROOT = os.path.join(os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet")),
                             "embeddings")


def register(embedding_cls):
    """Class decorator: make an embedding class available to ``create`` by its lower-case
    name."""
    _EMBEDDINGS[embedding_cls.__name__.lower()] = embedding_cls
    return embedding_cls


def create(embedding_name, **kwargs):
    """An instance of the registered embedding ``embedding_name`` (``'glove'``, ``'fasttext'``)."""
    name = embedding_name.lower()
    if name not in _EMBEDDINGS:
        raise KeyError(f"Cannot find token embedding {embedding_name}. Valid token embedding "
                       f"names: {', '.join(sorted(_EMBEDDINGS))}")
    return _EMBEDDINGS[name](**kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pretrained file names of one embedding (a list), or of all (a dict by name)."""
    if embedding_name is None:
        return {name: list(files) for name, files in _PRETRAINED.items()}
    name = embedding_name.lower()
    if name not in _PRETRAINED:
        raise KeyError(f"Cannot find pretrained files for token embedding {embedding_name}. "
                       f"Valid token embedding names: {', '.join(sorted(_PRETRAINED))}")
    return list(_PRETRAINED[name])


class TokenEmbedding(Vocabulary):
    """A vocabulary with a vector per token (the base of every embedding)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._idx_to_vec = None

    # -- reading a file --------------------------------------------------------------------
    def _load_embedding(self, path, elem_delim, init_unknown_vec, encoding="utf8"):
        """Index every token of the file at ``path`` and stack its vectors."""
        vectors, vec_len, loaded_unknown = [], None, None
        with open(path, encoding=encoding) as file:
            for number, line in enumerate(file, 1):
                elems = line.rstrip().split(elem_delim)
                if len(elems) < 2:
                    raise InvalidArgumentError(f"{path}, line {number}: expected a token and its "
                                     f"vector separated by {elem_delim!r}, got {line[:60]!r}")
                token = elems[0]
                try:
                    values = [float(value) for value in elems[1:]]
                except ValueError:
                    raise MXNetError(f"{path}, line {number}: the vector of {token!r} is not "
                                     f"a list of numbers") from None
                if token == self.unknown_token and loaded_unknown is None:
                    loaded_unknown = values
                elif token in self._token_to_idx:
                    warnings.warn(f"{path}, line {number}: a second vector for token "
                                  f"{token!r} is skipped", stacklevel=3)
                elif len(values) == 1:
                    warnings.warn(f"{path}, line {number}: token {token!r} with a "
                                  f"1-dimensional vector is taken for a header and skipped",
                                  stacklevel=3)
                else:
                    if vec_len is None:
                        vec_len = len(values)
                    elif len(values) != vec_len:
                        raise InvalidArgumentError(
                            f"{path}, line {number}: the vector of {token!r} has "
                            f"{len(values)} numbers, earlier ones {vec_len}")
                    self._idx_to_token.append(token)
                    self._token_to_idx[token] = len(self._idx_to_token) - 1
                    vectors.append(values)
        if vec_len is None:
            raise MXNetError(f"{path}: no token vectors found")
        unknown = nd.array(loaded_unknown) if loaded_unknown is not None else \
            init_unknown_vec(shape=vec_len)
        rows = nd.array(vectors) if vectors else nd.zeros((0, vec_len))
        self._idx_to_vec = nd.concat(unknown.reshape((1, vec_len)), rows, dim=0)

    def _build_embedding_for_vocabulary(self, vocabulary):
        """Re-index to ``vocabulary``'s tokens; the vectors follow (unknown ones get row 0)."""
        if vocabulary is None:
            return
        vectors = self._vectors_for(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = vocabulary.reserved_tokens
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_vec = vectors

    def _vectors_for(self, idx_to_token):
        """Vectors for a vocabulary's tokens: its unknown token (index 0) gets this
        embedding's unknown vector, whatever that token is called (even a token the
        embedding knows), the others their own vectors."""
        unknown = self._idx_to_vec[0:1]
        if len(idx_to_token) == 1:
            return unknown
        return nd.concat(unknown, self.get_vecs_by_tokens(list(idx_to_token[1:])), dim=0)

    # -- reading vectors ----------------------------------------------------------------------
    @property
    def idx_to_vec(self):
        """NDArray (len(self), vec_len): row i is the vector of token i."""
        return self._idx_to_vec

    @property
    def vec_len(self):
        return self._idx_to_vec.shape[1]

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (shape (vec_len,)) or of a list of tokens (n, vec_len).

        Unknown tokens get the unknown token's vector; with ``lower_case_backup`` a token
        not found is looked up again in lower case.
        """
        single = not isinstance(tokens, list)
        indices = [self._index_of(token, lower_case_backup)
                   for token in ([tokens] if single else tokens)]
        vectors = nd.take(self._idx_to_vec, nd.array(indices, dtype="int32"))
        return vectors[0] if single else vectors

    def _index_of(self, token, lower_case_backup):
        if token in self._token_to_idx:
            return self._token_to_idx[token]
        if lower_case_backup:
            return self._token_to_idx.get(token.lower(), 0)
        return 0

    def update_token_vectors(self, tokens, new_vectors):
        """Replace the vectors of known ``tokens`` with ``new_vectors`` (an NDArray)."""
        tokens = tokens if isinstance(tokens, list) else [tokens]
        shape = tuple(new_vectors.shape)
        if shape not in ((len(tokens), self.vec_len),) and not (len(tokens) == 1 and
                                                                 shape == (self.vec_len,)):
            raise InvalidArgumentError(f"update_token_vectors: {len(tokens)} token(s) of length "
                             f"{self.vec_len} need vectors of shape "
                             f"({len(tokens)}, {self.vec_len}), got {shape}")
        unknown = [token for token in tokens if token not in self._token_to_idx]
        if unknown:
            raise InvalidParameterError(f"update_token_vectors: tokens {unknown} are not "
                                        f"indexed; only "
                             f"known tokens can be updated")
        rows = new_vectors.reshape((len(tokens), self.vec_len))
        for position, token in enumerate(tokens):
            self._idx_to_vec[self._token_to_idx[token]] = rows[position]

    # -- finding a pretrained file ---------------------------------------------------------------
    @classmethod
    def _pretrained_path(cls, pretrained_file_name, embedding_root):
        """The path of a pretrained file on disk (taken out of a .zip beside it if need be)."""
        name = cls.__name__.lower()
        known = _PRETRAINED.get(name, [])
        if pretrained_file_name not in known:
            raise KeyError(f"Cannot find pretrained file {pretrained_file_name} for token "
                           f"embedding {name}. Valid pretrained files for embedding {name}: "
                           f"{', '.join(known)}")
        folder = os.path.join(os.path.expanduser(embedding_root), name)
        path = os.path.join(folder, pretrained_file_name)
        if os.path.isfile(path):
            return path
        for archive in sorted(pathlib.Path(folder).glob("*.zip")) if os.path.isdir(folder) \
                else ():
            with zipfile.ZipFile(archive) as zipped:
                if pretrained_file_name in zipped.namelist():
                    zipped.extract(pretrained_file_name, folder)
                    return path
        raise FileNotFoundError(
            f"{cls.__name__}: the pretrained file {pretrained_file_name} is not in {folder} "
            f"(nor in a .zip archive there).  minimx does not download embeddings: fetch "
            f"{pretrained_file_name} (or its archive) from the embedding's publisher and put "
            f"it in that folder, or pass embedding_root= the folder that holds "
            f"{name}/{pretrained_file_name}.")


_TokenEmbedding = TokenEmbedding          # MXNet 1.9's name for the base class


@register
class GloVe(TokenEmbedding):
    """GloVe word vectors (Stanford NLP), read from ``<embedding_root>/glove/``."""

    def __init__(self, pretrained_file_name="glove.840B.300d.txt", embedding_root=_DEFAULT_ROOT,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        path = self._pretrained_path(pretrained_file_name, embedding_root)
        super().__init__(**kwargs)
        self._load_embedding(path, " ", init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)


@register
class FastText(TokenEmbedding):
    """fastText word vectors (Facebook Research), read from ``<embedding_root>/fasttext/``."""

    def __init__(self, pretrained_file_name="wiki.simple.vec", embedding_root=_DEFAULT_ROOT,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        path = self._pretrained_path(pretrained_file_name, embedding_root)
        super().__init__(**kwargs)
        self._load_embedding(path, " ", init_unknown_vec, encoding="utf8")
        self._build_embedding_for_vocabulary(vocabulary)


class CustomEmbedding(TokenEmbedding):
    """Token vectors from a file of your own: ``token<elem_delim>v1<elem_delim>v2 ...``."""

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8",
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(TokenEmbedding):
    """``vocabulary``'s tokens with the vectors of several embeddings side by side."""

    def __init__(self, vocabulary, token_embeddings):
        embeddings = token_embeddings if isinstance(token_embeddings, list) else \
            [token_embeddings]
        for embedding in embeddings:
            if not isinstance(embedding, TokenEmbedding):
                raise InvalidArgumentError(f"CompositeEmbedding: {embedding!r} is not a "
                                           f"TokenEmbedding")
        super().__init__(unknown_token=vocabulary.unknown_token,
                         reserved_tokens=vocabulary.reserved_tokens)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_vec = nd.concat(*[embedding._vectors_for(self._idx_to_token)
                                       for embedding in embeddings], dim=1)
