"""Small stand-ins for the data sets of *Dive into Deep Learning*'s NLP chapters, made here.

    .venv/bin/python tools/d2l_standins_nlp.py FOLDER [--seed S]

The book's pages (``chapter_natural-language-processing-pretraining`` and
``-applications``) download PTB, WikiText-2, the IMDb reviews (aclImdb), SNLI, GloVe vectors
and a pretrained small BERT.  On a machine that cannot download them, this writes files of
the same names and layouts into FOLDER -- the archives ``d2l.download`` fetches
(``ptb.zip``, ``wikitext-2-v1.zip``, ``aclImdb_v1.tar.gz``, ``snli_1.0.zip``,
``glove.6B.50d.zip``, ``glove.6B.100d.zip``, ``wiki.en.zip``, ``bert.small.zip``) -- whose
text comes from one made-up English vocabulary: sentences drawn word by word (frequent words
often, as in real text), reviews that lean on positive or negative words by their label,
premise/hypothesis pairs whose label follows from how the hypothesis was made, word vectors
in which ``man : woman = son : daughter`` holds, and BERT weights drawn at random in the
shapes of the book's ``bert.small`` (the real pretrained weights cannot be made; both MXNet
and minimx load the same file).  Figures differ from the book's; every page runs on them, the
same on MXNet and on minimx.  The sha1 sums differ from the book's ``DATA_HUB`` ones, so
``d2l.download`` fetches again: serve FOLDER's files for the archive names it asks for.
"""
import argparse
import io
import json
import os
import pathlib
import tarfile
import zipfile

import numpy as np

FUNCTION = ("the , . a of and to in is was it that for on with as by he at from his an "
            "are be this which or her had not but they she were have their has its one "
            "all we who you i been so there would when what more can if no out up into "
            "do did go went will than then them some could other new very").split()
POSITIVE = ("good great excellent wonderful beautiful brilliant best amazing fun enjoyable "
            "superb moving perfect lovely touching charming delightful strong").split()
NEGATIVE = ("bad terrible awful worst boring poor horrible dull waste stupid weak mess "
            "annoying pointless disappointing lame ugly").split()
# pairs related the same way: the GloVe stand-in puts one offset per relation between them
RELATIONS = {
    "gender": [("man", "woman"), ("son", "daughter"), ("king", "queen"), ("boy", "girl"),
               ("father", "mother"), ("brother", "sister"), ("he", "she")],
    "capital": [("beijing", "china"), ("tokyo", "japan"), ("paris", "france"),
                ("berlin", "germany"), ("london", "britain"), ("rome", "italy")],
    "superlative": [("bad", "worst"), ("big", "biggest"), ("good", "best"),
                    ("small", "smallest"), ("fast", "fastest"), ("old", "oldest")],
    "past": [("do", "did"), ("go", "went"), ("see", "saw"), ("take", "took"),
             ("come", "came"), ("run", "ran"), ("give", "gave")],
}
NOUNS = ("movie film story plot actor actress chip computer baby child people dog cat car "
         "city house road river music song game team player world war year time day "
         "company market price government school water food book man woman boy girl "
         "park street guitar ball shirt hat table bike horse beach window").split()
VERBS = ("playing eating walking running sitting reading riding holding watching wearing "
         "singing cooking jumping sleeping").split()
SYLLABLES = "ba be bi bo ka ke ki ko la le li lo ma me mi mo na ne ni no ra re ri ro ta te ti to".split()


def vocabulary(size, rng):
    """The made-up English: real words first, then invented ones up to ``size`` words."""
    words = list(dict.fromkeys(FUNCTION + NOUNS + VERBS + POSITIVE + NEGATIVE +
                               [w for pairs in RELATIONS.values() for p in pairs for w in p]))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(SYLLABLES, rng.integers(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def sentences(words, count, rng, length=(5, 25)):
    """``count`` sentences of words drawn with Zipf-like frequencies (word k: 1 / (k + 2))."""
    weights = 1.0 / (np.arange(len(words)) + 2.0)
    weights /= weights.sum()
    lengths = rng.integers(length[0], length[1], count)
    picks = rng.choice(len(words), int(lengths.sum()), p=weights)
    out, start = [], 0
    for n in lengths:
        out.append([words[i] for i in picks[start:start + n]])
        start += n
    return out


def write_zip(path, files):
    """A zip archive of ``{name inside: text or bytes}``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return path


def make_ptb(folder, rng, words, train=3000, other=300):
    """``ptb.zip``: ``ptb/ptb.{train,valid,test}.txt``, one lower-case sentence a line, rare
    words as ``<unk>`` and numbers as ``N`` (as the Penn Treebank text is)."""
    def text(count):
        lines = sentences(words[:1200] + ["<unk>", "N"], count, rng)
        return "".join(" " + " ".join(line) + " \n" for line in lines)
    return write_zip(pathlib.Path(folder) / "ptb.zip",
                     {f"ptb/ptb.{part}.txt": text(train if part == "train" else other)
                      for part in ("train", "valid", "test")})


def make_wikitext2(folder, rng, words, paragraphs=600):
    """``wikitext-2-v1.zip``: ``wikitext-2/wiki.{train,valid,test}.tokens``: headings
    `` = Title = `` and paragraphs of sentences joined by `` . ``."""
    def text(count):
        lines = []
        for k in range(count):
            if k % 8 == 0:
                lines.append(f" = {words[200 + k % 300].capitalize()} = \n")
            body = sentences(words[:2000], int(rng.integers(2, 7)), rng, (6, 20))
            lines.append(" " + " . ".join(" ".join(s) for s in body) + " . \n")
        return "".join(lines)
    return write_zip(pathlib.Path(folder) / "wikitext-2-v1.zip",
                     {f"wikitext-2/wiki.{part}.tokens": text(paragraphs if part == "train" else 60)
                      for part in ("train", "valid", "test")})


def review(words, label, rng):
    """A review of 40-250 words, one in eight a positive (label 1) or negative word."""
    body = sentences(words[:1500], 1, rng, (40, 250))[0]
    lean = POSITIVE if label else NEGATIVE
    for i in range(0, len(body), 8):
        body[i] = lean[int(rng.integers(len(lean)))]
    return " ".join(body).capitalize() + "."


def make_aclimdb(folder, rng, words, per_label=250):
    """``aclImdb_v1.tar.gz``: ``aclImdb/{train,test}/{pos,neg}/ID_RATING.txt``."""
    path = pathlib.Path(folder) / "aclImdb_v1.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for split in ("train", "test"):
            for label, ratings in ((1, (7, 11)), (0, (1, 5))):
                for k in range(per_label):
                    data = review(words, label, rng).encode()
                    rating = int(rng.integers(*ratings))
                    info = tarfile.TarInfo(
                        f"aclImdb/{split}/{'pos' if label else 'neg'}/{k}_{rating}.txt")
                    info.size = len(data)
                    archive.addfile(info, io.BytesIO(data))
    return path


def nli_pair(rng):
    """A premise and a hypothesis with its label: the hypothesis keeps the premise's subject
    and action (entailment), swaps the action (contradiction) or adds a place (neutral)."""
    subject = ["a man", "a woman", "a boy", "a girl", "the dog", "two people"][int(rng.integers(6))]
    verb, other = rng.choice(VERBS, 2, replace=False)
    thing = NOUNS[int(rng.integers(len(NOUNS)))]
    premise = f"{subject} is {verb} with a {thing} ."
    label = ["entailment", "contradiction", "neutral"][int(rng.integers(3))]
    if label == "entailment":
        hypothesis = f"{subject} is {verb} ."
    elif label == "contradiction":
        hypothesis = f"{subject} is {other} ."
    else:
        hypothesis = f"{subject} is {verb} in the {NOUNS[int(rng.integers(len(NOUNS)))]} ."
    return label, premise, hypothesis


def binary_parse(sentence):
    """SNLI's binary-parse column: the tokens in nested brackets."""
    tokens = sentence.split()
    tree = tokens[-1]
    for token in reversed(tokens[:-1]):
        tree = f"( {token} {tree} )"
    return tree


def snli_table(count, rng):
    header = ["gold_label", "sentence1_binary_parse", "sentence2_binary_parse",
              "sentence1_parse", "sentence2_parse", "sentence1", "sentence2", "captionID",
              "pairID", "label1", "label2", "label3", "label4", "label5"]
    rows = ["\t".join(header)]
    for k in range(count):
        label, premise, hypothesis = nli_pair(rng)
        if k % 50 == 49:
            label = "-"                  # SNLI keeps pairs the annotators did not agree on
        rows.append("\t".join([label, binary_parse(premise), binary_parse(hypothesis),
                               f"(ROOT {premise})", f"(ROOT {hypothesis})", premise,
                               hypothesis, f"{k}.jpg#0", f"{k}.jpg#0r1n", label, "", "", "",
                               ""]))
    return "\n".join(rows) + "\n"


def make_snli(folder, rng, train=3000, test=300):
    """``snli_1.0.zip``: ``snli_1.0/snli_1.0_{train,dev,test}.txt``, tab-separated with a
    header row, as SNLI 1.0's text files are; 3000 training pairs give the BERT page (batches
    of 512) the 5 batches an epoch d2l.train_ch13 needs."""
    return write_zip(pathlib.Path(folder) / "snli_1.0.zip",
                     {f"snli_1.0/snli_1.0_{part}.txt": snli_table(count, rng)
                      for part, count in (("train", train), ("dev", test), ("test", test))})


def word_vectors(words, dim, rng):
    """Vectors where related words sit near (each word ``0.5 * base + its group's centre``)
    and each relation in ``RELATIONS`` is one offset (``b = a + offset + noise``)."""
    groups = {w: g for g, members in (("noun", NOUNS), ("verb", VERBS), ("pos", POSITIVE),
                                      ("neg", NEGATIVE)) for w in members}
    centres = {g: rng.normal(0, 1, dim) for g in ("noun", "verb", "pos", "neg", None)}
    vectors = {w: 0.5 * rng.normal(0, 1, dim) + centres[groups.get(w)] for w in words}
    for pairs in RELATIONS.values():
        offset = rng.normal(0, 1, dim)
        for a, b in pairs:
            vectors[b] = vectors[a] + offset + 0.1 * rng.normal(0, 1, dim)
    return vectors


def vector_text(words, dim, rng, header=False):
    vectors = word_vectors(words, dim, rng)
    lines = [f"{len(words)} {dim}"] if header else []
    lines += [w + " " + " ".join(f"{v:.5f}" for v in vectors[w]) for w in words]
    return "\n".join(lines) + "\n"


def make_embeddings(folder, rng, words):
    """``glove.6B.50d.zip``, ``glove.6B.100d.zip`` and ``wiki.en.zip`` (fastText, with its
    ``COUNT DIM`` header line): each one folder holding ``vec.txt``, ``WORD v1 v2 ...`` a line."""
    folder = pathlib.Path(folder)
    return [write_zip(folder / f"{name}.zip", {f"{name}/vec.txt": vector_text(words, dim, rng, header)})
            for name, dim, header in (("glove.6B.50d", 50, False), ("glove.6B.100d", 100, False),
                                      ("wiki.en", 300, True))]


def bert_shapes(vocab_size, num_hiddens=256, ffn_num_hiddens=512, num_blks=2, max_len=512):
    """The parameter names (as ``Block.save_parameters`` writes them) and shapes of the book's
    ``d2l.BERTModel`` with its ``bert.small`` settings."""
    h = num_hiddens
    shapes = {"encoder.token_embedding.weight": (vocab_size, h),
              "encoder.segment_embedding.weight": (2, h),
              "encoder.pos_embedding": (1, max_len, h)}
    for b in range(num_blks):
        block = f"encoder.blks.{b}."
        for w in ("W_q", "W_k", "W_v", "W_o"):
            shapes.update({block + f"attention.{w}.weight": (h, h), block + f"attention.{w}.bias": (h,)})
        for norm in ("addnorm1", "addnorm2"):
            shapes.update({block + f"{norm}.ln.gamma": (h,), block + f"{norm}.ln.beta": (h,)})
        shapes.update({block + "ffn.dense1.weight": (ffn_num_hiddens, h),
                       block + "ffn.dense1.bias": (ffn_num_hiddens,),
                       block + "ffn.dense2.weight": (h, ffn_num_hiddens),
                       block + "ffn.dense2.bias": (h,)})
    shapes.update({"hidden.weight": (h, h), "hidden.bias": (h,),
                   "mlm.mlp.0.weight": (h, h), "mlm.mlp.0.bias": (h,),
                   "mlm.mlp.1.gamma": (h,), "mlm.mlp.1.beta": (h,),
                   "mlm.mlp.2.weight": (vocab_size, h), "mlm.mlp.2.bias": (vocab_size,),
                   "nsp.output.weight": (2, h), "nsp.output.bias": (2,)})
    return shapes


def make_bert_small(folder, rng, words):
    """``bert.small.zip``: ``bert.small/vocab.json`` (d2l.Vocab's tokens: ``<unk>``, the
    reserved ``<pad> <mask> <cls> <sep>``, then the words) and ``bert.small/pretrained.params``
    in MXNet's parameter format: weights N(0, 0.02), LayerNorm gammas 1, biases and betas 0."""
    import minimx as mx                       # writes MXNet's .params format
    tokens = ["<unk>", "<pad>", "<mask>", "<cls>", "<sep>"] + words
    arrays = {}
    for name, shape in bert_shapes(len(tokens)).items():
        kind = name.rsplit(".", 1)[-1]
        value = (np.ones(shape) if kind == "gamma" else np.zeros(shape)
                 if kind in ("bias", "beta") else rng.normal(0, 0.02, shape))
        arrays[name] = mx.nd.array(value.astype(np.float32))
    params = pathlib.Path(folder) / "pretrained.params"
    mx.nd.save(str(params), arrays)
    content = params.read_bytes()
    params.unlink()
    return write_zip(pathlib.Path(folder) / "bert.small.zip",
                     {"bert.small/vocab.json": json.dumps(tokens),
                      "bert.small/pretrained.params": content})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    os.makedirs(args.folder, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    words = vocabulary(4000, rng)
    written = [make_ptb(args.folder, rng, words), make_wikitext2(args.folder, rng, words),
               make_aclimdb(args.folder, rng, words), make_snli(args.folder, rng),
               *make_embeddings(args.folder, rng, words),
               make_bert_small(args.folder, rng, words)]
    for path in written:
        print(f"{path}  {os.path.getsize(path)} bytes")
    return written


if __name__ == "__main__":
    main()
