"""Write small stand-ins for the data files *Dive into Deep Learning* downloads, with no network.

    .venv/bin/python tools/d2l_standins.py WORK [--seed S]

The book's ``d2l.download(name)`` fetches ``DATA_HUB[name]``'s URL into ``../data``; on a
machine without network the pages stop there.  This writes, into ``WORK/files``, a file of
the same name and format for each data set the pages read (made up by the functions below
from a seeded generator, not the real data: figures differ from the book's, but every page
runs on them, the same on MXNet and on minimx), and into ``WORK/mxhome`` (a ``MXNET_HOME``)
the FashionMNIST and MNIST stand-ins of ``tools/make_standin_mnist.py``.
``tools/d2l_site/sitecustomize.py`` serves ``WORK/files`` to ``d2l.download``;
``tools/run_d2l_pages.sh`` runs pages on both sides with them.

Each function takes a ``numpy.random.Generator`` and returns the file's bytes.
"""
import argparse
import io
import pathlib
import sys
import zipfile

import numpy as np

#: A small English vocabulary and a French word for each (the translation pages' pairs).
DICTIONARY = dict(pair.split(":") for pair in """the:le time:temps traveller:voyageur said:dit
    that:que we:nous all:tous know:savons a:une line:ligne has:a length:longueur
    breadth:largeur and:et thickness:epaisseur but:mais it:il is:est only:seulement in:dans
    mind:esprit of:de man:homme there:la any:toute real:vraie difference:difference
    between:entre space:espace he:il went:alla on:sur to:pour show:montrer us:nous his:sa
    machine:machine which:qui could:pouvait travel:voyager direction:direction as:comme
    ship:navire moves:bouge sea:mer psychologist:psychologue laughed:rit at:de
    idea:idee""".split())
WORDS = tuple(DICTIONARY)


def words_text(rng, count, words=WORDS):
    """``count`` words drawn by a first-order chain over ``words`` (each word follows one of
    five fixed successors), so a language model has something to learn."""
    successors = rng.integers(0, len(words), size=(len(words), 5))
    index, chosen = 0, []
    for step in rng.integers(0, 5, size=count):
        index = successors[index, step]
        chosen.append(words[index])
    return chosen


def timemachine(rng, lines=3000, words_per_line=10):
    """``timemachine.txt``: lines of lower-case English words and punctuation (the book keeps
    only letters and spaces)."""
    words = words_text(rng, lines * words_per_line)
    text = [" ".join(words[i:i + words_per_line]) + rng.choice([",", ".", ";", ""])
            for i in range(0, len(words), words_per_line)]
    return ("The Time Machine, a stand-in\n\n" + "\n".join(text) + "\n").encode()


def fra_eng(rng, pairs=4000):
    """``fra-eng.zip``: ``fra-eng/fra.txt``, one ``English<TAB>French`` pair a line, each a
    short sentence ending in a punctuation mark, the French a word-by-word image of it."""
    lines = []
    for length, mark in zip(rng.integers(2, 7, size=pairs), rng.choice([".", "!", "?"], pairs)):
        english = words_text(rng, int(length))
        french = [DICTIONARY[word] for word in english]
        lines.append(f"{' '.join(english).capitalize()} {mark}\t"
                     f"{' '.join(french).capitalize()} {mark}")
    return zipped({"fra-eng/fra.txt": ("\n".join(lines) + "\n").encode()})


def airfoil(rng, rows=1503):
    """``airfoil_self_noise.dat``: 1503 rows of 6 tab-separated numbers (frequency, angle,
    chord length, velocity, displacement thickness; sound level, a noisy function of them)."""
    frequency = rng.choice([200, 400, 800, 1250, 2000, 3150, 5000, 8000], rows)
    angle = rng.uniform(0, 22, rows).round(1)
    chord = rng.choice([0.0254, 0.0508, 0.1016, 0.1524, 0.2286, 0.3048], rows)
    velocity = rng.choice([31.7, 39.6, 55.5, 71.3], rows)
    thickness = rng.uniform(0.0004, 0.058, rows).round(8)
    level = (135 - 4 * np.log10(frequency) - 0.3 * angle - 20 * chord + 0.05 * velocity
             - 80 * thickness + rng.normal(0, 2, rows)).round(3)
    table = np.stack([frequency, angle, chord, velocity, thickness, level], axis=1)
    return "".join("\t".join(f"{value:g}" for value in row) + "\n" for row in table).encode()


def png(pixels):
    """An (H, W, 3) or (H, W, 4) uint8 array as PNG bytes."""
    from PIL import Image
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def banana_detection(rng, train=40, val=10, size=256):
    """``banana-detection.zip``: ``bananas_train`` and ``bananas_val``, each ``images/N.png``
    (256x256 RGB) and ``label.csv`` (``img_name,label,xmin,ymin,xmax,ymax``): one yellow box
    on a blocky background per image."""
    files = {}
    for split, count in (("bananas_train", train), ("bananas_val", val)):
        rows = ["img_name,label,xmin,ymin,xmax,ymax"]
        for index in range(count):
            coarse = rng.integers(0, 120, size=(size // 32, size // 32, 3), dtype=np.uint8)
            pixels = np.kron(coarse, np.ones((32, 32, 1), dtype=np.uint8))
            width, height = rng.integers(30, 70, size=2)
            xmin, ymin = rng.integers(0, size - 70, size=2)
            pixels[ymin:ymin + height, xmin:xmin + width] = (230, 200, 40)
            files[f"banana-detection/{split}/images/{index}.png"] = png(pixels)
            rows.append(f"{index}.png,0,{xmin},{ymin},{xmin + width},{ymin + height}")
        files[f"banana-detection/{split}/label.csv"] = ("\n".join(rows) + "\n").encode()
    return zipped(files)


def ml_100k(rng, users=150, items=600, per_user=(20, 40)):
    """``ml-100k.zip``: ``ml-100k/u.data``, ``user<TAB>item<TAB>rating<TAB>timestamp``; user
    ids 1..users and item ids 1..items all occur (the book sizes its embeddings by the count
    of distinct ids; AutoRec batches the items by 256, dropping a short last batch), every
    user rates at least 20 items (the sequence-aware pages need 5 in a row), ratings 1..5
    from user and item tastes."""
    taste_user, taste_item = rng.normal(size=(users, 3)), rng.normal(size=(items, 3))
    ratings = [(user, int(item)) for user in range(users)
               for item in rng.choice(items, size=int(rng.integers(*per_user)), replace=False)]
    unrated = sorted(set(range(items)) - {item for _, item in ratings})
    ratings += [(int(rng.integers(users)), item) for item in unrated]
    lines, time = [], 874_724_710
    for user, item in ratings:
        score = taste_user[user] @ taste_item[item] + rng.normal(0, 0.5)
        rating = int(np.clip(np.round(3 + score), 1, 5))
        time += int(rng.integers(1, 5000))
        lines.append(f"{user + 1}\t{item + 1}\t{rating}\t{time}")
    return zipped({"ml-100k/u.data": ("\n".join(lines) + "\n").encode()})


def ctr(rng, train=12000, test=2500, fields=34):
    """``ctr.zip``: ``ctr/train.csv`` and ``ctr/test.csv``, a click (0/1) then 34 categorical
    fields a line, tab-separated; each field's values are hex-like tokens of a few dozen
    kinds, and the click depends on some of them.  The book's ``train_ch13`` reports every
    fifth of an epoch and both loaders drop a short last batch, so the training file holds
    at least 5 batches of 2048 and the test file one."""
    vocab = rng.integers(4, 40, size=fields)
    weights = [rng.normal(size=int(n)) for n in vocab]

    def lines(count):
        out = []
        for _ in range(count):
            picks = [int(rng.integers(n)) for n in vocab]
            logit = sum(weights[f][p] for f, p in enumerate(picks[:8])) / 2
            click = int(rng.random() < 1 / (1 + np.exp(-logit)))
            out.append("\t".join([str(click)] + [f"{f:02d}{p:06x}" for f, p in enumerate(picks)]))
        return ("\n".join(out) + "\n").encode()

    return zipped({"ctr/train.csv": lines(train), "ctr/test.csv": lines(test)})


def pokemon(rng, classes=4, per_class=64, size=96):
    """``pokemon.zip``: ``pokemon/<class>/<n>.png``, 96x96 RGBA sprites on a white background
    (a coloured blob per image), as ``ImageFolderDataset`` reads them."""
    files = {}
    rows, cols = np.mgrid[0:size, 0:size]
    for label in range(classes):
        for index in range(per_class):
            pixels = np.full((size, size, 4), 255, dtype=np.uint8)
            cy, cx = rng.integers(30, 66, size=2)
            radius = rng.integers(12, 28)
            blob = (rows - cy) ** 2 + (cols - cx) ** 2 < radius ** 2
            pixels[blob, :3] = rng.integers(0, 256, size=3, dtype=np.uint8)
            files[f"pokemon/{label}/{index}.png"] = png(pixels)
    return zipped(files)


def zipped(files):
    """A zip archive (bytes) holding ``{path: bytes}``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return buffer.getvalue()


#: The file name d2l.download saves each URL as -> the function that makes it.
STANDINS = {"timemachine.txt": timemachine, "fra-eng.zip": fra_eng,
            "airfoil_self_noise.dat": airfoil, "banana-detection.zip": banana_detection,
            "ml-100k.zip": ml_100k, "ctr.zip": ctr, "pokemon.zip": pokemon}


def write_all(work, seed=0, nlp=True):
    """Write every stand-in into ``WORK/files`` (with ``nlp``, also the NLP chapters' ones:
    tools/d2l_standins_nlp.py) and the (Fashion-)MNIST ones into ``WORK/mxhome/datasets``;
    return the paths written."""
    work = pathlib.Path(work)
    files = work / "files"
    files.mkdir(parents=True, exist_ok=True)
    written = []
    for offset, (name, make) in enumerate(STANDINS.items()):
        (files / name).write_bytes(make(np.random.default_rng(seed + offset)))
        written.append(files / name)
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import make_standin_mnist
    if nlp:
        import d2l_standins_nlp
        written += [pathlib.Path(path) for path in
                    d2l_standins_nlp.main([str(files), "--seed", str(seed)])]
    for folder in ("fashion-mnist", "mnist"):
        target = work / "mxhome" / "datasets" / folder
        make_standin_mnist.main([str(target), "--train", "2000", "--test", "500",
                                 "--seed", str(seed)])
        written.append(target)
    (files / ".done").write_text("written by tools/d2l_standins.py\n")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", help="folder for files/ and mxhome/")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-nlp", action="store_true",
                        help="leave out the NLP chapters' stand-ins (tools/d2l_standins_nlp.py)")
    options = parser.parse_args(argv)
    for path in write_all(options.work, options.seed, nlp=not options.no_nlp):
        print(path)


if __name__ == "__main__":
    main()
