"""Write a small stand-in for (Fashion-)MNIST in its own file format, with no download.

    .venv/bin/python tools/make_standin_mnist.py [FOLDER] [--train N] [--test N] [--seed S]

Course code reads FashionMNIST from ``~/.mxnet/datasets/fashion-mnist`` (the default
FOLDER): four gzip'd IDX files, ``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz``,
``t10k-images-idx3-ubyte.gz`` and ``t10k-labels-idx1-ubyte.gz``.  On a machine that cannot
download them, this writes files of the same format from scikit-learn's digits (8x8, ten
classes, shipped inside its wheel): each image upscaled to 28x28, shifted by up to two
pixels and lightly noised, so that the training set has N distinct images.  The data is not
FashionMNIST -- accuracies differ from the book's -- but every program that reads
FashionMNIST runs on it, the same on MXNet and on minimx.
"""
import argparse
import gzip
import os
import pathlib
import struct

import numpy as np

FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
         "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def upscale(images, size=28):
    """(N, 8, 8) values 0..16 -> (N, size, size) uint8, bilinear."""
    positions = (np.arange(size) + 0.5) * images.shape[1] / size - 0.5
    low = np.clip(np.floor(positions).astype(int), 0, images.shape[1] - 1)
    high = np.clip(low + 1, 0, images.shape[1] - 1)
    weight = np.clip(positions - low, 0, 1)
    rows = images[:, low, :] * (1 - weight)[None, :, None] + \
        images[:, high, :] * weight[None, :, None]
    full = rows[:, :, low] * (1 - weight)[None, None, :] + rows[:, :, high] * weight[None, None, :]
    return np.clip(full * (255.0 / 16.0), 0, 255)


def make_split(images, labels, count, rng):
    """``count`` images drawn from the digits, each shifted and noised differently."""
    picks = rng.integers(0, len(images), count)
    big = upscale(images[picks].astype(np.float64))
    shifted = np.zeros_like(big)
    for index, (dy, dx) in enumerate(rng.integers(-2, 3, size=(count, 2))):
        shifted[index] = np.roll(np.roll(big[index], dy, axis=0), dx, axis=1)
    noisy = shifted + rng.normal(0, 12, size=shifted.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8), labels[picks].astype(np.uint8)


def write_idx(path, array):
    """An IDX file: magic (0, 0, dtype 0x08 = uint8, ndim), the sizes, the bytes."""
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim)
    header += struct.pack(">" + "I" * array.ndim, *array.shape)
    with gzip.open(path, "wb") as file:
        file.write(header + array.tobytes())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?",
                        default=os.path.join("~", ".mxnet", "datasets", "fashion-mnist"))
    parser.add_argument("--train", type=int, default=6000)
    parser.add_argument("--test", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args(argv)
    from sklearn.datasets import load_digits
    digits = load_digits()
    rng = np.random.default_rng(options.seed)
    folder = pathlib.Path(options.folder).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    for split, count in (("train", options.train), ("test", options.test)):
        images, labels = make_split(digits.images, digits.target, count, rng)
        image_file, label_file = FILES[split]
        write_idx(folder / image_file, images)
        write_idx(folder / label_file, labels)
    print(f"wrote {options.train} training and {options.test} test images to {folder}")


if __name__ == "__main__":
    main()
