"""``mx.optimizer.contrib.GroupAdaGrad`` (minimx/optimizer/contrib.py) against MXNet 1.9.1:
one program on both sides (``same_program``) runs four updates under several settings
(eps, rescale_grad, clip_gradient, a scheduler) and records the weight and the per-row
history after each, through ``create('groupadagrad')`` and through a Trainer; and the
refusals (a weight decay, a 3-D weight)."""
import numpy as np
from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
import numpy as np
nd = mx.nd
rng = np.random.RandomState(11)
weight0 = rng.standard_normal((4, 3)).astype('float32')
grads = [rng.standard_normal((4, 3)).astype('float32') for _ in range(4)]
result = {}
settings = {'plain': {}, 'eps': {'eps': 1e-8}, 'rescale': {'rescale_grad': 0.14},
            'clip': {'clip_gradient': 0.4, 'rescale_grad': 0.8},
            'scheduled': {'lr_scheduler': mx.lr_scheduler.FactorScheduler(step=2, factor=0.5,
                                                                         base_lr=0.1)}}
for name, kwargs in settings.items():
    opt = mx.optimizer.create('groupadagrad', learning_rate=0.1, **kwargs)
    weight = nd.array(weight0)
    state = opt.create_state(0, weight)
    weights, states = [], []
    for grad in grads:
        opt.update(0, weight, nd.array(grad), state)
        weights.append(weight.asnumpy().tolist())
        states.append(state.asnumpy().tolist())
    result[name + ' weights'], result[name + ' history'] = weights, states
net = mx.gluon.nn.Embedding(4, 3)
net.initialize(mx.init.Constant(0.5))
trainer = mx.gluon.Trainer(net.collect_params(), mx.optimizer.contrib.GroupAdaGrad(
    learning_rate=0.2))
for step in range(3):
    with mx.autograd.record():
        loss = (net(nd.array([0, 2, 2])) ** 2).sum()
    loss.backward()
    trainer.step(3)
result['trainer'] = net.weight.data().asnumpy().tolist()
for name, call in (('wd', lambda: mx.optimizer.contrib.GroupAdaGrad(wd=0.1).update(
                        0, nd.ones((2, 2)), nd.ones((2, 2)), nd.zeros((2, 1)))),
                   ('3-D', lambda: mx.optimizer.contrib.GroupAdaGrad().create_state(
                        0, nd.ones((2, 2, 2))))):
    try:
        call()
        result[name] = 'accepted'
    except (AssertionError, ValueError):
        result[name] = 'refused'
print(json.dumps(result))
"""


def test_group_adagrad_matches_mxnet(mxnet_python):
    ours, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    assert ours.keys() == theirs.keys()
    for key, expected in theirs.items():
        if isinstance(expected, str):
            assert ours[key] == expected == "refused", key
        else:
            np.testing.assert_allclose(ours[key], expected, rtol=1e-5, atol=1e-6, err_msg=key)
