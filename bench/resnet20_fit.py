"""ResNet-20 (CIFAR's) as a Symbol under ``Module.fit`` over ``ImageRecordIter``, minimx
beside MXNet 1.9.1.

    MINIMX_MXNET_PYTHON=.venv-mxnet/bin/python .venv/bin/python bench/resnet20_fit.py

The shape of the symbolic training programs MXNet users ran (MXNet's own
``example/image-classification`` with ``--network resnet --num-layers 20``): a RecordIO file
of 256 random 36x36 JPEGs, read by ``mx.io.ImageRecordIter`` with random 32x32 crops,
mirroring and mean subtraction, batches of 32; ResNet-20 (a 3x3 convolution, three stages
of three basic blocks at 16, 32 and 64 channels, a 1x1 projection where a stage halves the
plane, global pooling, a 10-way SoftmaxOutput); ``Module.fit`` with SGD (momentum 0.9,
weight decay 1e-4) and Xavier initialisation for two epochs.  Figures: the first epoch
(binding, initialisation and the iterator's start included) and the second, in seconds
per batch.  Each framework runs the same text in a fresh process; they take turns,
``ROUNDS`` times, and each figure is the best of its rounds.
"""
import sys

from _util import best_of_rounds, print_table, ratio

ROUNDS = 3
IMAGES, BATCH = 256, 32

PROGRAM = """
import io, json, os, tempfile, time, warnings
import numpy as np
from PIL import Image
import {lib} as mx
from {lib} import recordio
warnings.simplefilter("ignore")

rng = np.random.RandomState(0)
folder = tempfile.mkdtemp()
rec = os.path.join(folder, "images.rec")
writer = recordio.MXRecordIO(rec, "w")
for i in range({images}):
    buffer = io.BytesIO()
    Image.fromarray((rng.rand(36, 36, 3) * 255).astype("uint8")).save(buffer, format="JPEG",
                                                                      quality=90)
    writer.write(recordio.pack(recordio.IRHeader(0, float(i % 10), i, 0), buffer.getvalue()))
writer.close()

def conv_bn(x, channels, kernel, stride, name, relu=True):
    pad = (kernel // 2, kernel // 2)
    x = mx.sym.Convolution(x, num_filter=channels, kernel=(kernel, kernel),
                           stride=(stride, stride), pad=pad, no_bias=True, name=name + "_conv")
    x = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, momentum=0.9, name=name + "_bn")
    return mx.sym.Activation(x, act_type="relu", name=name + "_relu") if relu else x

def basic_block(x, channels, stride, name):
    body = conv_bn(x, channels, 3, stride, name + "_a")
    body = conv_bn(body, channels, 3, 1, name + "_b", relu=False)
    shortcut = x if stride == 1 else conv_bn(x, channels, 1, stride, name + "_proj",
                                             relu=False)
    return mx.sym.Activation(body + shortcut, act_type="relu", name=name + "_out")

def resnet20():
    x = conv_bn(mx.sym.Variable("data"), 16, 3, 1, "stem")
    for stage, channels in enumerate((16, 32, 64)):
        for unit in range(3):
            stride = 2 if stage > 0 and unit == 0 else 1
            x = basic_block(x, channels, stride, f"stage{{stage}}_unit{{unit}}")
    x = mx.sym.Pooling(x, global_pool=True, pool_type="avg", kernel=(8, 8), name="pool")
    x = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(x, name="softmax")

train = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 32, 32), batch_size={batch},
                              rand_crop=True, rand_mirror=True, mean_r=123.68,
                              mean_g=116.78, mean_b=103.94, seed=0)
mx.random.seed(0)
module = mx.mod.Module(resnet20(), context=mx.cpu())
ends = []
start = time.perf_counter()
module.fit(train, num_epoch=2, optimizer="sgd",
           optimizer_params={{"learning_rate": 0.05, "momentum": 0.9, "wd": 1e-4}},
           initializer=mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2),
           epoch_end_callback=lambda *args: ends.append(time.perf_counter()))
batches = {images} // {batch}
print(json.dumps({{"first epoch, s per batch": (ends[0] - start) / batches,
                  "second epoch, s per batch": (ends[1] - ends[0]) / batches}}))
"""


def main(rounds=ROUNDS):
    program = PROGRAM.replace("{images}", str(IMAGES)).replace("{batch}", str(BATCH))
    ours, mxnet = best_of_rounds(program, rounds)
    rows = [(key, f"{ours[key] * 1e3:.1f} ms",
             f"{mxnet[key] * 1e3:.1f} ms" if key in mxnet else "-",
             ratio(ours[key], mxnet.get(key))) for key in ours]
    print_table(f"ResNet-20 Module.fit over ImageRecordIter, batch {BATCH}, {IMAGES} "
                f"images (best of {rounds})", ("part", "minimx", "MXNet 1.9.1", "ratio"),
                rows)
    return ours, mxnet


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
