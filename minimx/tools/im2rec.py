"""im2rec: make an image list (``.lst``) from a folder, and pack a list into ``.rec``/``.idx``.

Lesson: 11-data. ``python -m minimx.tools.im2rec --list PREFIX ROOT`` writes
``index<TAB>label<TAB>relative path`` lines (labels from sub-folder names with
``--recursive``); ``python -m minimx.tools.im2rec PREFIX ROOT`` reads every
``PREFIX*.lst`` and writes the matching ``.rec`` and ``.idx``, decoding, cropping,
resizing and re-encoding images in ``--num-thread`` threads (``--pass-through`` copies
the file bytes unchanged). Same options and file layout as MXNet's tools/im2rec.py.
"""
import argparse
import os
import random
import sys
from concurrent.futures import ThreadPoolExecutor

from ..image_codec import decode_array, encode_array, resize_array
from ..recordio import IRHeader, MXIndexedRecordIO, pack

__all__ = ["list_image", "write_list", "make_list", "read_list", "image_record", "pack_list",
           "main"]


def list_image(root, recursive, exts):
    """Yield (index, relative path, label) for the images under ``root``."""
    exts = {e.lower() for e in exts}
    index = 0
    if recursive:
        labels = {}
        for path, dirs, files in os.walk(root, followlinks=True):
            dirs.sort()
            for name in sorted(files):
                if os.path.splitext(name)[1].lower() in exts:
                    folder = os.path.relpath(path, root)
                    label = labels.setdefault(folder, len(labels))
                    yield index, os.path.relpath(os.path.join(path, name), root), label
                    index += 1
        return
    for name in sorted(os.listdir(root)):
        if os.path.isfile(os.path.join(root, name)) and \
                os.path.splitext(name)[1].lower() in exts:
            yield index, name, 0
            index += 1


def write_list(path, items):
    with open(path, "w") as out:
        for index, rel_path, *labels in items:
            fields = [str(index)] + [f"{float(x):f}" for x in labels] + [rel_path]
            out.write("\t".join(fields) + "\n")


def make_list(args):
    """Write the .lst file(s) for ``args.root``, split into chunks and train/val/test."""
    items = [(i, path, label) for i, path, label in list_image(args.root, args.recursive,
                                                              args.exts)]
    if args.shuffle:
        random.seed(100)
        random.shuffle(items)
    chunk_size = (len(items) + args.chunks - 1) // args.chunks
    for chunk_index in range(args.chunks):
        chunk = items[chunk_index * chunk_size:(chunk_index + 1) * chunk_size]
        suffix = f"_{chunk_index}" if args.chunks > 1 else ""
        n_test = int(len(chunk) * args.test_ratio)
        n_train = int(len(chunk) * args.train_ratio)
        if args.train_ratio == 1.0 and args.test_ratio == 0:
            write_list(args.prefix + suffix + ".lst", chunk)
            continue
        if args.test_ratio:
            write_list(args.prefix + suffix + "_test.lst", chunk[:n_test])
        if args.train_ratio + args.test_ratio < 1.0:
            write_list(args.prefix + suffix + "_val.lst", chunk[n_test + n_train:])
        write_list(args.prefix + suffix + "_train.lst", chunk[n_test:n_test + n_train])


def read_list(path):
    """(index, relative path, labels) for each line of a .lst file."""
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            fields = [f.strip() for f in line.strip().split("\t")]
            if not line.strip():
                continue
            if len(fields) < 3:
                raise ValueError(f"{path}, line {number}: expected 'index<TAB>label(s)<TAB>"
                                 f"path', got {line.strip()!r}")
            yield int(fields[0]), fields[-1], [float(x) for x in fields[1:-1]]


def center_square(img):
    h, w = img.shape[:2]
    side = min(h, w)
    top, left = (h - side) // 2, (w - side) // 2
    return img[top:top + side, left:left + side]


def image_record(item, args):
    """The packed record of one .lst item (or None when the image cannot be read)."""
    index, rel_path, labels = item
    label = labels[0] if len(labels) == 1 and not args.pack_label else labels
    header = IRHeader(0, label, index, 0)
    with open(os.path.join(args.root, rel_path), "rb") as handle:
        raw = handle.read()
    if args.pass_through:
        return pack(header, raw)
    try:
        img = decode_array(raw, flag=args.color, to_rgb=True)
    except Exception as err:  # reported and skipped, as MXNet's tool does
        print(f"imread error: {rel_path}: {err}", file=sys.stderr)
        return None
    if args.center_crop:
        img = center_square(img)
    if args.resize:
        h, w = img.shape[:2]
        new_h, new_w = ((args.resize * h // w, args.resize) if h > w
                        else (args.resize, args.resize * w // h))
        img = resize_array(img, new_w, new_h, interp=1)
    return pack(header, encode_array(img, quality=args.quality, img_fmt=args.encoding))


def pack_list(lst_path, args):
    """Pack every image of ``lst_path`` into the .rec/.idx beside it, in list order."""
    base = os.path.splitext(lst_path)[0]
    items = list(read_list(lst_path))
    writer = MXIndexedRecordIO(base + ".idx", base + ".rec", "w")
    with ThreadPoolExecutor(max(1, args.num_thread)) as pool:
        for item, record in zip(items, pool.map(lambda it: image_record(it, args), items)):
            if record is not None:
                writer.write_idx(item[0], record)
    writer.close()
    return len(items)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description="Create an image list or pack a list into a RecordIO file (.rec/.idx)")
    parser.add_argument("prefix", help="prefix of the .lst/.rec files")
    parser.add_argument("root", help="folder of the images")
    group = parser.add_argument_group("list making")
    group.add_argument("--list", action="store_true", help="make a list instead of packing")
    group.add_argument("--exts", nargs="+", default=[".jpeg", ".jpg", ".png"])
    group.add_argument("--chunks", type=int, default=1)
    group.add_argument("--train-ratio", type=float, default=1.0)
    group.add_argument("--test-ratio", type=float, default=0)
    group.add_argument("--recursive", action="store_true",
                       help="label images by their sub-folder")
    group.add_argument("--no-shuffle", dest="shuffle", action="store_false")
    group = parser.add_argument_group("packing")
    group.add_argument("--pass-through", action="store_true", help="store the files as is")
    group.add_argument("--resize", type=int, default=0, help="shorter side after resizing")
    group.add_argument("--center-crop", action="store_true", help="crop the centre square")
    group.add_argument("--quality", type=int, default=95,
                       help="JPEG quality (1-100) or PNG compression (0-9)")
    group.add_argument("--num-thread", type=int, default=1)
    group.add_argument("--color", type=int, default=1, choices=[-1, 0, 1])
    group.add_argument("--encoding", default=".jpg", choices=[".jpg", ".png"])
    group.add_argument("--pack-label", action="store_true", help="store every label column")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    args.prefix = os.path.abspath(args.prefix)
    args.root = os.path.abspath(args.root)
    if args.list:
        make_list(args)
        return 0
    folder, name = os.path.split(args.prefix)
    lists = sorted(os.path.join(folder, f) for f in os.listdir(folder or ".")
                   if f.startswith(name) and f.endswith(".lst"))
    if not lists:
        print(f"no .lst file starts with {args.prefix}", file=sys.stderr)
        return 1
    for lst in lists:
        count = pack_list(lst, args)
        print(f"packed {count} images from {lst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
