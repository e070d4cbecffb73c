"""python -m minimx.tools.im2rec: list making and packing, read back with ImageRecordIter."""
import os
import subprocess
import sys

import numpy as np
import pytest

import minimx as mx
from minimx import recordio
from minimx.image_codec import encode_array
from minimx.tools import im2rec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def image_folder(tmp_path):
    """cats/ (3 images) and dogs/ (2 images) of different sizes, plus a non-image."""
    rng = np.random.RandomState(0)
    root = tmp_path / "images"
    for folder, count in (("cats", 3), ("dogs", 2)):
        (root / folder).mkdir(parents=True)
        for i in range(count):
            img = rng.randint(0, 256, (20 + 4 * i, 30, 3)).astype(np.uint8)
            (root / folder / f"{i}.png").write_bytes(encode_array(img, img_fmt=".png"))
    (root / "cats" / "notes.txt").write_text("not an image")
    return root


def run_tool(*args):
    result = subprocess.run([sys.executable, "-m", "minimx.tools.im2rec", *map(str, args)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_list_then_pack_then_read(tmp_path, image_folder):
    prefix = tmp_path / "data"
    run_tool("--list", "--recursive", prefix, image_folder)
    lines = [line.split("\t") for line in (tmp_path / "data.lst").read_text().splitlines()]
    assert len(lines) == 5
    labels = {path.strip().split("/")[0]: float(label) for _, label, path in lines}
    assert labels == {"cats": 0.0, "dogs": 1.0}
    out = run_tool(prefix, image_folder, "--resize", 16, "--quality", 90, "--num-thread", 2)
    assert "packed 5 images" in out
    rec = recordio.MXIndexedRecordIO(str(tmp_path / "data.idx"), str(tmp_path / "data.rec"),
                                     "r")
    assert sorted(rec.keys) == list(range(5))
    for key in rec.keys:
        header, img = recordio.unpack_img(rec.read_idx(key))
        assert min(img.shape[:2]) == 16 and header.id == key
    it = mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "data.rec"), data_shape=(3, 16, 16),
                               batch_size=5)
    assert sorted(it.next().label[0].asnumpy().tolist()) == [0, 0, 0, 1, 1]


def test_train_test_split_and_center_crop(tmp_path, image_folder):
    prefix = str(tmp_path / "split")
    im2rec.main(["--list", "--recursive", "--train-ratio", "0.6", "--test-ratio", "0.2",
                 prefix, str(image_folder)])
    sizes = {name: len((tmp_path / f"split_{name}.lst").read_text().splitlines())
             for name in ("train", "val", "test")}
    assert sizes == {"train": 3, "val": 1, "test": 1}
    im2rec.main([prefix + "_train", str(image_folder), "--center-crop", "--encoding", ".png"])
    reader = recordio.MXRecordIO(str(tmp_path / "split_train.rec"), "r")
    _, img = recordio.unpack_img(reader.read())
    assert img.shape[0] == img.shape[1]


def test_pass_through_keeps_the_bytes(tmp_path, image_folder):
    prefix = str(tmp_path / "raw")
    im2rec.main(["--list", "--recursive", "--no-shuffle", prefix, str(image_folder)])
    im2rec.main([prefix, str(image_folder), "--pass-through"])
    reader = recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "r")
    _, payload = recordio.unpack(reader.read_idx(0))
    assert payload == (image_folder / "cats" / "0.png").read_bytes()
