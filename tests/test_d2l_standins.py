"""tools/d2l_standins.py: the stand-in data files Dive into Deep Learning's pages download,
each read back the way the book's helper module reads the real one."""
import gzip
import io
import pathlib
import struct
import sys
import zipfile

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import d2l_standins  # noqa: E402

Image = pytest.importorskip("PIL.Image")


def rng():
    return np.random.default_rng(0)


def archive(data):
    return zipfile.ZipFile(io.BytesIO(data))


def test_timemachine_is_text_with_letters_after_the_books_cleaning():
    text = d2l_standins.timemachine(rng()).decode()
    cleaned = "".join(c if c.isalpha() else " " for c in text.lower())
    assert len(cleaned.split()) > 20000
    assert set(cleaned) <= set("abcdefghijklmnopqrstuvwxyz ")


def test_fra_eng_lines_are_two_tab_separated_sentences():
    lines = archive(d2l_standins.fra_eng(rng())).read("fra-eng/fra.txt").decode().splitlines()
    parts = [line.split("\t") for line in lines]
    assert len(parts) == 4000 and all(len(p) == 2 for p in parts)
    english, french = parts[0]
    assert len(english.split()) == len(french.split()) and english[-1] in ".!?"


def test_airfoil_is_1503_rows_of_six_numbers():
    table = np.genfromtxt(io.BytesIO(d2l_standins.airfoil(rng())), dtype=np.float32,
                          delimiter="\t")
    assert table.shape == (1503, 6) and not np.isnan(table).any()


def test_banana_detection_boxes_lie_inside_256_pixel_rgb_images():
    files = archive(d2l_standins.banana_detection(rng(), train=3, val=2))
    for split, count in (("bananas_train", 3), ("bananas_val", 2)):
        rows = files.read(f"banana-detection/{split}/label.csv").decode().splitlines()
        assert rows[0] == "img_name,label,xmin,ymin,xmax,ymax" and len(rows) == count + 1
        name, label, *box = rows[1].split(",")
        image = Image.open(io.BytesIO(files.read(f"banana-detection/{split}/images/{name}")))
        assert image.size == (256, 256) and image.mode == "RGB" and label == "0"
        xmin, ymin, xmax, ymax = map(int, box)
        assert 0 <= xmin < xmax <= 256 and 0 <= ymin < ymax <= 256


def test_ml_100k_ids_are_contiguous_and_every_user_has_a_sequence():
    text = archive(d2l_standins.ml_100k(rng())).read("ml-100k/u.data").decode()
    table = np.array([line.split("\t") for line in text.splitlines()], dtype=np.int64)
    users, items, ratings, times = table.T
    assert sorted(set(users)) == list(range(1, 151)) and sorted(set(items)) == list(range(1, 601))
    assert set(ratings) <= {1, 2, 3, 4, 5} and len(set(ratings)) > 2
    assert np.bincount(users)[1:].min() >= 20
    assert len(set(zip(users, items))) == len(users)  # no user rates an item twice
    assert (np.diff(times) > 0).all()


def test_ctr_lines_are_a_click_and_34_fields_seen_often_enough():
    files = archive(d2l_standins.ctr(rng(), train=400, test=50))
    for name, count in (("ctr/train.csv", 400), ("ctr/test.csv", 50)):
        rows = [line.split("\t") for line in files.read(name).decode().splitlines()]
        assert len(rows) == count and all(len(row) == 35 for row in rows)
        assert {row[0] for row in rows} == {"0", "1"}
    first_field = [row[1] for row in rows]
    assert max(first_field.count(value) for value in first_field) >= 4  # min_threshold


def test_pokemon_is_a_folder_per_class_of_96_pixel_pngs():
    files = archive(d2l_standins.pokemon(rng(), classes=2, per_class=3))
    names = files.namelist()
    assert sorted({name.split("/")[1] for name in names}) == ["0", "1"] and len(names) == 6
    image = Image.open(io.BytesIO(files.read(names[0])))
    assert image.size == (96, 96) and image.mode in ("RGB", "RGBA")


def test_write_all_names_the_files_as_d2l_download_saves_them(tmp_path, monkeypatch):
    small = dict(d2l_standins.STANDINS)
    small["banana-detection.zip"] = lambda g: d2l_standins.banana_detection(g, 2, 1)
    small["pokemon.zip"] = lambda g: d2l_standins.pokemon(g, 1, 2)
    monkeypatch.setattr(d2l_standins, "STANDINS", small)
    d2l_standins.write_all(tmp_path, nlp=False)     # the NLP ones: test_d2l_standins_nlp.py
    assert sorted(p.name for p in (tmp_path / "files").iterdir()) == sorted(
        [".done", "timemachine.txt", "fra-eng.zip", "airfoil_self_noise.dat",
         "banana-detection.zip", "ml-100k.zip", "ctr.zip", "pokemon.zip"])
    for folder in ("fashion-mnist", "mnist"):
        images = tmp_path / "mxhome" / "datasets" / folder / "train-images-idx3-ubyte.gz"
        assert struct.unpack(">IIII", gzip.open(images).read(16)) == (2051, 2000, 28, 28)


def test_default_sizes_give_the_pages_full_batches():
    """AutoRec batches the items by 256 and the CTR pages the lines by 2048, each dropping a
    short last batch; train_ch13 reports every fifth of an epoch (5 batches at least)."""
    import inspect
    ml = inspect.signature(d2l_standins.ml_100k).parameters
    ctr = inspect.signature(d2l_standins.ctr).parameters
    assert ml["items"].default >= 256
    assert ctr["train"].default >= 5 * 2048 and ctr["test"].default >= 2048
