"""``Block.save``/``Block.load`` (minimx/gluon/model_file.py) against MXNet 1.9.1.

One program (``same_program``) builds a small network -- hybridized or not -- and either
saves it (``<prefix>-model.json`` and ``-model.params``) or builds it again after other
blocks took its names and loads it.  The structure files of both frameworks are equal
(traced graphs aside), and each framework loads the other's files: the loaded network
gives the saver's outputs and has the saver's parameter names.
"""
import json

import minimx
from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json, os
folder, mode, hybrid = json.loads(INPUT)
mx.random.seed(1)
def build():
    net = mx.gluon.nn.HybridSequential() if hybrid else mx.gluon.nn.Sequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(5, activation='relu'))
        net.add(mx.gluon.nn.Dense(3))
    return net
x = mx.nd.array([[0.5, -1.0, 2.0, 0.25], [1.5, 0.5, -0.5, 1.0]])
result = {}
if mode == 'save':
    with mx.name.NameManager():      # names from zero, whatever ran before in this process
        net = build()
    net.initialize(mx.init.Xavier())
    if hybrid:
        net.hybridize()
    result['y'] = net(x).asnumpy().round(5).tolist()
    net.save(os.path.join(folder, 'm'))
    def strip(d):
        return {k: strip(v) if isinstance(v, dict) else v for k, v in d.items()
                if k not in ('symbol', 'inputs')}
    with open(os.path.join(folder, 'm-model.json')) as stream:
        result['structure'] = strip(json.load(stream))
else:
    build(), build()                 # the names the saved blocks had are taken now
    net = build()
    net.load(os.path.join(folder, 'm'))
    result['y'] = net(x).asnumpy().round(5).tolist()
    result['params'] = sorted(net.collect_params().keys())
print(json.dumps(result))
"""


def test_save_and_load_across_frameworks(mxnet_python, tmp_path):
    for hybrid in (True, False):
        theirs_dir, ours_dir = tmp_path / f"mxnet{hybrid}", tmp_path / f"minimx{hybrid}"
        theirs_dir.mkdir()
        ours_dir.mkdir()
        saved_theirs = on_mxnet(mxnet_python, PROGRAM, json.dumps([str(theirs_dir), "save",
                                                                    hybrid]))
        with minimx.cpu():          # as MXNet: Block.load puts the parameters on the cpu
            saved_ours = on_minimx(PROGRAM, json.dumps([str(ours_dir), "save", hybrid]))
        assert saved_ours["structure"] == saved_theirs["structure"]
        with minimx.cpu():
            loaded_ours = on_minimx(PROGRAM, json.dumps([str(theirs_dir), "load", hybrid]))
        loaded_theirs = on_mxnet(mxnet_python, PROGRAM, json.dumps([str(ours_dir), "load",
                                                                     hybrid]))
        assert loaded_ours["y"] == saved_theirs["y"]
        assert loaded_theirs["y"] == saved_ours["y"]
        assert loaded_ours["params"] == loaded_theirs["params"]
