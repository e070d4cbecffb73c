"""A DCGAN training step in Gluon, minimx beside MXNet 1.9.1.

    MINIMX_MXNET_PYTHON=.venv-mxnet/bin/python .venv/bin/python bench/dcgan_step.py

The shape of the Gluon DCGAN programs students run: a generator of ``Conv2DTranspose`` +
``BatchNorm`` + ReLU (100-d noise to a 3x32x32 image), a discriminator of ``Conv2D`` +
``BatchNorm`` + ``LeakyReLU(0.2)``, ``SigmoidBinaryCrossEntropyLoss`` and two ``Trainer``s
with Adam (lr 2e-4, beta1 0.5).  One step is the discriminator's update on a real and a
fake batch, then the generator's update through the discriminator, batch 64.  Each
framework runs the same text in a fresh process; they take turns, ``ROUNDS`` times, and
each figure is the best of its rounds (seconds per step, and the forward+backward of the
generator and of the discriminator alone, to say where the time goes).
"""
import sys

from _util import best_of_rounds, print_table, ratio

ROUNDS = 3
STEPS = 4            # timed steps per round, after one warm-up step

PROGRAM = """
import json, time, warnings
import numpy as np
import {lib} as mx
from {lib} import nd, autograd, gluon
from {lib}.gluon import nn
warnings.simplefilter("ignore")
BATCH, NOISE = 64, 100

def generator():
    net = nn.HybridSequential()
    for channels, stride, pad in ((256, 1, 0), (128, 2, 1), (64, 2, 1)):
        net.add(nn.Conv2DTranspose(channels, 4, stride, pad, use_bias=False),
                nn.BatchNorm(), nn.Activation("relu"))
    net.add(nn.Conv2DTranspose(3, 4, 2, 1, use_bias=False), nn.Activation("tanh"))
    return net

def discriminator():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(64, 4, 2, 1, use_bias=False), nn.LeakyReLU(0.2))
    for channels in (128, 256):
        net.add(nn.Conv2D(channels, 4, 2, 1, use_bias=False), nn.BatchNorm(),
                nn.LeakyReLU(0.2))
    net.add(nn.Conv2D(1, 4, 1, 0, use_bias=False))
    return net

mx.random.seed(0)
rng = np.random.RandomState(0)
netG, netD = generator(), discriminator()
for net in (netG, netD):
    net.initialize(mx.init.Normal(0.02))
    net.hybridize()
loss = gluon.loss.SigmoidBinaryCrossEntropyLoss()
adam = {{"learning_rate": 2e-4, "beta1": 0.5}}
trainerG = gluon.Trainer(netG.collect_params(), "adam", adam)
trainerD = gluon.Trainer(netD.collect_params(), "adam", adam)
real = nd.array(rng.uniform(-1, 1, (BATCH, 3, 32, 32)).astype("float32"))
noise = nd.array(rng.normal(0, 1, (BATCH, NOISE, 1, 1)).astype("float32"))
ones, zeros = nd.ones((BATCH,)), nd.zeros((BATCH,))

def step():
    fake = netG(noise)
    with autograd.record():
        errD = loss(netD(real).reshape((-1,)), ones) + \\
            loss(netD(fake.detach()).reshape((-1,)), zeros)
    errD.backward()
    trainerD.step(BATCH)
    with autograd.record():
        errG = loss(netD(netG(noise)).reshape((-1,)), ones)
    errG.backward()
    trainerG.step(BATCH)

def alone(net, x):
    with autograd.record():
        y = net(x)
    y.backward()

def per_call(function, count):
    nd.waitall()
    start = time.perf_counter()
    for _ in range(count):
        function()
    nd.waitall()
    return (time.perf_counter() - start) / count

step()
figures = {{"step": per_call(step, {steps}),
           "G fwd+bwd": per_call(lambda: alone(netG, noise), {steps}),
           "D fwd+bwd": per_call(lambda: alone(netD, real), {steps})}}
print(json.dumps(figures))
"""


def main(rounds=ROUNDS):
    ours, mxnet = best_of_rounds(PROGRAM.replace("{steps}", str(STEPS)), rounds)
    rows = [(key, f"{ours[key] * 1e3:.0f} ms",
             f"{mxnet[key] * 1e3:.0f} ms" if key in mxnet else "-", ratio(ours[key],
                                                                          mxnet.get(key)))
            for key in ours]
    print_table(f"DCGAN step, Gluon, batch 64, 3x32x32, Adam (best of {rounds})",
                ("part", "minimx", "MXNet 1.9.1", "ratio"), rows)
    return ours, mxnet


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
