"""Does the ImageIter pipeline with random-size crops keep up with a LeNet training step?

    python bench/image_pipeline.py

A RecordIO file of 512 random 40x40 RGB JPEGs (what im2rec writes: JPEG bytes behind a
header) is read by ``mx.image.ImageIter`` with ``CreateAugmenter(data_shape, rand_crop=True,
rand_resize=True, rand_mirror=True, mean=True, std=True)`` -- RandomSizedCropAug (bicubic),
mirror, cast, normalise -- into batches of 64 at 3x28x28; one figure is images per second
over a full pass.  Beside it, in the same process, the samples/s of an imperative Gluon
LeNet training step (batch 64, 1x28x28: bench/gluon_bench.py's TRAINING text).  The same
text runs on minimx and on MXNet 1.9.1, each in a fresh process, in alternating rounds;
each figure is the best of its rounds.  "Keeps up" = the iterator's images/s >= the
step's samples/s.
"""
from _util import best_of_rounds, fmt, print_table, ratio
from gluon_bench import TRAINING

ROUNDS = 3
WORKLOAD = TRAINING + """
import io, json, os, random, tempfile
from PIL import Image
from {lib} import recordio

rng = np.random.RandomState(0)
folder = tempfile.mkdtemp()
rec, idx = os.path.join(folder, "images.rec"), os.path.join(folder, "images.idx")
writer = recordio.MXIndexedRecordIO(idx, rec, "w")
for i in range(512):
    buffer = io.BytesIO()
    Image.fromarray((rng.rand(40, 40, 3) * 255).astype("uint8")).save(buffer, format="JPEG",
                                                                      quality=90)
    writer.write_idx(i, recordio.pack(recordio.IRHeader(0, float(i % 10), i, 0),
                                      buffer.getvalue()))
writer.close()

def images_per_second():
    random.seed(0)
    augs = mx.image.CreateAugmenter((3, 28, 28), rand_crop=True, rand_resize=True,
                                    rand_mirror=True, mean=True, std=True)
    it = mx.image.ImageIter(64, (3, 28, 28), path_imgrec=rec, path_imgidx=idx,
                            shuffle=True, aug_list=augs)
    start, count = time.perf_counter(), 0
    for batch in it:
        batch.data[0].wait_to_read()
        count += batch.data[0].shape[0] - batch.pad
    return count / (time.perf_counter() - start)

pipeline = max(images_per_second() for _ in range(2))
step = max(train_rate(lenet, 20, False) for _ in range(2))   # imperative LeNet
print(json.dumps({{"pipeline": -pipeline, "lenet": -step}}))   # negated: best_of_rounds
                                                               # keeps each key's minimum
"""


def main(rounds=ROUNDS):
    ours, theirs = best_of_rounds(WORKLOAD, rounds)
    ours = {key: -value for key, value in ours.items()}
    theirs = {key: -value for key, value in theirs.items()}
    pipeline, step = ours.get("pipeline"), ours.get("lenet")
    rows = [
        ("ImageIter rand-size crop 40x40 -> 3x28x28, b64", fmt(pipeline, " img/s"),
         fmt(theirs.get("pipeline"), " img/s"), ratio(pipeline, theirs.get("pipeline")), ""),
        ("Trainer LeNet imperative, b64 (same process)", fmt(step, " samples/s"),
         fmt(theirs.get("lenet"), " samples/s"), ratio(step, theirs.get("lenet")), ""),
        ("ImageIter img/s / LeNet step samples/s", fmt(pipeline and step and pipeline / step),
         fmt(theirs.get("pipeline") and theirs.get("lenet")
             and theirs["pipeline"] / theirs["lenet"]), "", ">= 1 (keeps up)"),
    ]
    print_table("ImageIter pipeline vs a LeNet step, best of rounds",
                ("measure", "minimx", "MXNet 1.9.1", "ratio", "target"), rows)
    return rows


if __name__ == "__main__":
    main()
