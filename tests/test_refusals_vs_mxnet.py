"""What MXNet 1.9.1 refuses, minimx refuses, with an error of the same builtin kind (issue 28).

Each case is a few lines of MXNet code run unchanged by both libraries (``mx`` is the
library; ``nd``, ``sym``, ``autograd``, ``gluon``, ``np`` and a folder ``tmp`` are given).
The reference says whether the code runs or raises, and which builtin exception kinds its
error is (``ValueError``; an MXNetError is a ``RuntimeError``).  minimx must do the same:
run where MXNet runs, and raise an error that is an instance of MXNet's builtin kind, so a
program's ``except ValueError:`` behaves the same.  A case that runs may end with
``result = ...``: the values must then agree too.
"""
import builtins
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minimx

# -- BatchNorm: the channel axis must be an axis of the data ------------------------------------
BATCHNORM = {
    "nd BatchNorm axis=1 on 1-d": "nd.BatchNorm(nd.array([1, 2, 3, 4]), nd.ones(4), nd.zeros(4), "
                                  "nd.zeros(4), nd.ones(4), axis=1).asnumpy()",
    "nd BatchNorm axis=2 on 2-d": "nd.BatchNorm(nd.ones((2, 3)), nd.ones(3), nd.zeros(3), "
                                  "nd.zeros(3), nd.ones(3), axis=2).asnumpy()",
    "nd BatchNorm axis=-3 on 2-d": "nd.BatchNorm(nd.ones((2, 3)), nd.ones(2), nd.zeros(2), "
                                   "nd.zeros(2), nd.ones(2), axis=-3).asnumpy()",
    "nd BatchNorm axis=0 on 1-d": "result = nd.BatchNorm(nd.array([1, 2, 3, 4]), nd.ones(4), "
                                  "nd.zeros(4), nd.zeros(4), nd.ones(4), axis=0).shape",
    "nd BatchNorm axis=-1 on 1-d": "result = nd.BatchNorm(nd.array([1, 2, 3, 4]), nd.ones(4), "
                                   "nd.zeros(4), nd.zeros(4), nd.ones(4), axis=-1).shape",
    "sym BatchNorm infer_shape": "sym.BatchNorm(sym.var('data'), axis=1, name='bn')"
                                 ".infer_shape(data=(4,))",
    "sym BatchNorm infer_shape_partial": "sym.BatchNorm(sym.var('data'), axis=1, name='bn')"
                                         ".infer_shape_partial(data=(4,))",
    "sym BatchNorm axis=2 on 2-d": "sym.BatchNorm(sym.var('data'), axis=2).infer_shape("
                                  "data=(4, 3))",
    "gluon BatchNorm on 1-d": "net = gluon.nn.BatchNorm(axis=1)\nnet.initialize()\n"
                              "net(nd.array([1, 2, 3, 4])).asnumpy()",
    "gluon BatchNorm hybridized on 1-d": "net = gluon.nn.BatchNorm(axis=1)\nnet.initialize()\n"
                                         "net.hybridize()\nnet(nd.array([1, 2, 3, 4])).asnumpy()",
    "nd LayerNorm axis=2 on 2-d": "nd.LayerNorm(nd.ones((2, 3)), nd.ones(3), nd.ones(3), "
                                  "axis=2).asnumpy()",
}

# -- in-place writes while recording --------------------------------------------------------------
_LEAF = "x = nd.arange(6).reshape((2, 3))\nx.attach_grad()\nwith autograd.record():\n    "
_PLAIN = "x = nd.zeros((2, 3))\ny = nd.ones((1, 3))\ny.attach_grad()\nwith autograd.record():\n    "
IN_PLACE = {
    "leaf x[0] = 5": _LEAF + "x[0] = 5",
    "leaf x[:] = 5": _LEAF + "x[:] = 5",
    "leaf x[0, 1] = nd": _LEAF + "x[0, 1] = nd.array([7])",
    "leaf x += 1": _LEAF + "x += 1",
    "leaf x -= 1": _LEAF + "x -= 1",
    "leaf x *= 2": _LEAF + "x *= 2",
    "leaf x /= 2": _LEAF + "x /= 2",
    "leaf x += nd": _LEAF + "x += nd.ones((2, 3))",
    "leaf copyto": _LEAF + "nd.ones((2, 3)).copyto(x)",
    "leaf out=": _LEAF + "nd.elemwise_add(nd.ones((2, 3)), nd.ones((2, 3)), out=x)",
    "leaf relu out=x": _LEAF + "nd.relu(x, out=x)",
    "leaf after backward": "x = nd.ones(3)\nx.attach_grad()\nwith autograd.record():\n"
                           "    y = (x * 2).sum()\ny.backward()\nwith autograd.record():\n"
                           "    x += 1",
    "leaf paused": _LEAF + "with autograd.pause():\n        x += 1\nresult = x.asnumpy()",
    "recorded output y += 1": _LEAF + "y = x * 2\n    y += 1",
    "output after backward": "x = nd.ones(3)\nx.attach_grad()\nwith autograd.record():\n"
                             "    y = x * 2\ny.backward()\nwith autograd.record():\n    y += 1\n"
                             "result = y.asnumpy()",
    "input read by a recorded call": "x = nd.ones(3)\nw = nd.ones(3)\nw.attach_grad()\n"
                                     "with autograd.record():\n    y = x * w\n    x += 1",
    "input, read in an earlier section": "x = nd.ones(3)\nw = nd.ones(3)\nw.attach_grad()\n"
                                         "with autograd.record():\n    y = x * w\n"
                                         "with autograd.record():\n    x += 1",
    "input, after backward": "x = nd.ones(3)\nw = nd.ones(3)\nw.attach_grad()\n"
                            "with autograd.record():\n    y = (x * w).sum()\ny.backward()\n"
                            "with autograd.record():\n    x += 1\nresult = x.asnumpy()",
    "x *= w (x read and written)": "x = nd.ones(3)\nw = nd.ones(3)\nw.attach_grad()\n"
                                   "with autograd.record():\n    x *= w",
    "plain x[0] = graph value": _PLAIN + "x[0] = y[0]",
    "plain x[0:1] = graph value": _PLAIN + "x[0:1] = y",
    "plain x[:, 1] = graph value": _PLAIN + "x[:, 1] = nd.ones(2) * y[0, 0]",
    "plain x[[0, 1]] = graph value": _PLAIN + "x[[0, 1]] = y",
    "plain x[:] = graph value (a recorded copy)":
        _PLAIN + "x[:] = y * 2\n    z = (x * 3).sum()\nz.backward()\nresult = y.grad.asnumpy()",
    "plain x[...] = graph value": _PLAIN + "x[...] = y\nresult = x.asnumpy()",
    "plain x[None] = graph value": "x = nd.zeros((2, 3))\ny = nd.ones((1, 2, 3))\n"
                                   "y.attach_grad()\nwith autograd.record():\n    x[None] = y\n"
                                   "result = x.asnumpy()",
    "copyto from the graph (a recorded copy)":
        "w = nd.ones(3)\nw.attach_grad()\nt = nd.zeros(3)\nwith autograd.record():\n"
        "    w.copyto(t)\n    z = (t * 3).sum()\nz.backward()\nresult = w.grad.asnumpy()",
    "plain x[0] = scalar": _PLAIN + "x[0] = 3\nresult = x.asnumpy()",
    "plain x[0] = plain nd": _PLAIN + "x[0] = nd.ones(3)\nresult = x.asnumpy()",
    "plain x += 1": _PLAIN + "x += 1\nresult = x.asnumpy()",
    "detached copy += 1": _LEAF + "z = x.detach()\n    z += 1\nresult = z.asnumpy()",
    "gradient buffer written": _LEAF + "x.grad[:] = 1\nresult = x.grad.asnumpy()",
    "view taken inside record": _LEAF + "v = x[0]\n    v += 1",
    "training mode only": "x = nd.ones(3)\nx.attach_grad()\nwith autograd.train_mode():\n"
                          "    x += 1\nresult = x.asnumpy()",
}

# -- a gradient asked of an operator that has none ------------------------------------------------
_TAKE = ("x = sym.var('x')\nidx = sym.var('idx')\ny = sym.batch_take(x, idx)\n"
         "types = {'x': np.float32, 'idx': np.int32}\n")
NO_GRADIENT = {
    "batch_take simple_bind write": _TAKE + "y.simple_bind(mx.cpu(), x=(10, 10), idx=(10,), "
                                            "type_dict=types)",
    "batch_take simple_bind add": _TAKE + "y.simple_bind(mx.cpu(), x=(10, 10), idx=(10,), "
                                          "type_dict=types, grad_req='add')",
    "batch_take, gradient of idx not asked": _TAKE + "y.simple_bind(mx.cpu(), x=(10, 10), "
                                                     "idx=(10,), type_dict=types, grad_req="
                                                     "{'x': 'write', 'idx': 'null'})",
    "batch_take, no gradient asked": _TAKE + "e = y.simple_bind(mx.cpu(), x=(10, 10), "
                                             "idx=(10,), type_dict=types, grad_req='null')\n"
                                             "e.forward()\ne.backward()\nresult = 'bound'",
    "batch_take behind stop_gradient": _TAKE + "e = sym.stop_gradient(y).simple_bind("
                                               "mx.cpu(), x=(10, 10), idx=(10,), type_dict="
                                               "types)\ne.forward()\ne.backward()\n"
                                               "result = 'bound'",
    "batch_take, another argument's gradient": _TAKE + "w = sym.var('w')\n(y + w).simple_bind("
                                                       "mx.cpu(), x=(10, 10), idx=(10,), "
                                                       "w=(10,), type_dict=types, grad_req="
                                                       "{'x': 'null', 'idx': 'null', "
                                                       "'w': 'write'})",
    "batch_take bind with gradients": _TAKE + "y.bind(mx.cpu(), {'x': nd.ones((10, 10)), "
                                              "'idx': nd.zeros(10, dtype='int32')}, "
                                              "args_grad={'x': nd.zeros((10, 10))})",
    "pick (has a gradient)": _TAKE + "sym.pick(x, idx).simple_bind(mx.cpu(), x=(10, 10), "
                                     "idx=(10,), type_dict=types)\nresult = 'bound'",
    "take with int indices": _TAKE + "sym.take(x, idx).simple_bind(mx.cpu(), x=(10, 10), "
                                     "idx=(3,), type_dict=types)\nresult = 'bound'",
    "argmax_channel simple_bind": "sym.argmax_channel(sym.var('a')).simple_bind(mx.cpu(), "
                                  "a=(2, 3))",
    "argmax (a zero gradient)": "sym.argmax(sym.var('a')).simple_bind(mx.cpu(), a=(2, 3))\n"
                                "result = 'bound'",
    "imperative batch_take backward": "x = nd.ones((10, 10))\nx.attach_grad()\n"
                                      "with autograd.record():\n"
                                      "    y = nd.batch_take(x, nd.zeros(10, dtype='int32'))\n"
                                      "y.backward()",
    "imperative sgd_update backward": "w = nd.ones(3)\nw.attach_grad()\n"
                                      "with autograd.record():\n"
                                      "    y = nd.sgd_update(w, nd.ones(3), lr=0.1)\n"
                                      "y.backward()",
    "hybridized batch_take backward": "class Net(gluon.HybridBlock):\n"
                                      "    def hybrid_forward(self, F, x, idx):\n"
                                      "        return F.batch_take(x, idx) * 2\n"
                                      "net = Net()\nnet.hybridize()\nx = nd.ones((4, 3))\n"
                                      "x.attach_grad()\nwith autograd.record():\n"
                                      "    y = net(x, nd.array([0, 1, 2, 0], dtype='int32'))\n"
                                      "y.backward()",
    "imperative, input without gradient": "x = nd.ones((10, 10))\nw = nd.ones(10)\n"
                                          "w.attach_grad()\nwith autograd.record():\n"
                                          "    y = nd.batch_take(x, nd.zeros(10, "
                                          "dtype='int32')) + w\ny.backward()\n"
                                          "result = w.grad.asnumpy()",
}

# -- error kinds ----------------------------------------------------------------------------------
_NET = "net = gluon.nn.Dense(2, in_units=3, prefix='dense0_')\nnet.initialize()\n"
ERROR_KINDS = {
    "asscalar of two elements": "nd.ones(2).asscalar()",
    "unknown output name": "sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')"
                           ".get_internals()['nope']",
    "output name twice": "sym.Group([sym.var('a'), sym.var('a')])['a']",
    "output index out of range": "sym.var('a').get_internals()[5]",
    "output index a float": "sym.var('a')[1.5]",
    "unknown metric": "mx.metric.create('nope')",
    "metric not a name": "mx.metric.create(3)",
    "unknown metric in a list": "mx.metric.create(['acc', 'nope'])",
    "unknown initializer": "mx.init.create('nope')",
    "unknown optimizer": "mx.optimizer.create('nope')",
    "Trainer, unknown optimizer": _NET + "gluon.Trainer(net.collect_params(), 'nope')",
    "Trainer of NDArrays": "gluon.Trainer([nd.ones(2)], 'sgd')",
    "Trainer of an NDArray": "gluon.Trainer(nd.ones(2), 'sgd')",
    "Trainer of a string": "gluon.Trainer('abc', 'sgd')",
    "Trainer, optimizer instance and params": _NET + "gluon.Trainer(net.collect_params(), "
                                                     "mx.optimizer.SGD(), {'learning_rate': 1})",
    "load_parameters, a name missing": _NET + "nd.save(tmp + '/m.params', {'weight': "
                                              "nd.ones((2, 3))})\n"
                                              "net.load_parameters(tmp + '/m.params')",
    "load_parameters, an extra full name": _NET + "nd.save(tmp + '/e.params', {'weight': "
                                                  "nd.ones((2, 3)), 'bias': nd.ones(2), "
                                                  "'other': nd.ones(1)})\n"
                                                  "net.load_parameters(tmp + '/e.params')",
    "load_parameters, an extra structural name":
        "net = gluon.nn.HybridSequential()\nnet.add(gluon.nn.Dense(2, in_units=3))\n"
        "net.initialize()\nnd.save(tmp + '/s.params', {'0.weight': nd.ones((2, 3)), "
        "'0.bias': nd.ones(2), '1.weight': nd.ones(1)})\nnet.load_parameters(tmp + '/s.params')",
    "ParameterDict.load, a name missing": _NET + "nd.save(tmp + '/p.params', {'dense0_weight': "
                                                 "nd.ones((2, 3))})\n"
                                                 "net.collect_params().load(tmp + '/p.params')",
    "ParameterDict.load, an extra name": _NET + "nd.save(tmp + '/q.params', {'dense0_weight': "
                                                "nd.ones((2, 3)), 'dense0_bias': nd.ones(2), "
                                                "'zz': nd.ones(1)})\n"
                                                "net.collect_params().load(tmp + '/q.params')",
    "imresize interp=-1": "mx.image.imresize(nd.ones((4, 4, 3), dtype='uint8'), 2, 2, "
                          "interp=-1).asnumpy()",
    "imresize interp=9": "mx.image.imresize(nd.ones((4, 4, 3), dtype='uint8'), 2, 2, "
                         "interp=9).asnumpy()",
    "imresize interp=5": "result = mx.image.imresize(nd.ones((4, 4, 3), dtype='uint8'), 2, 2, "
                         "interp=5).asnumpy()",
    "resize_short interp=-1": "mx.image.resize_short(nd.ones((4, 4, 3), dtype='uint8'), 2, "
                              "interp=-1)",
    "imdecode of a number": "mx.image.imdecode(3)",
    "bind, too few arrays": "(sym.var('a') + sym.var('b')).bind(mx.cpu(), [nd.ones(2)])",
    "bind, a name missing": "(sym.var('a') + sym.var('b')).bind(mx.cpu(), {'a': nd.ones(2)})",
    "bind, not an NDArray": "(sym.var('a') + sym.var('b')).bind(mx.cpu(), {'a': nd.ones(2), "
                            "'b': 3})",
    "bind, unknown grad_req": "(sym.var('a') + sym.var('b')).bind(mx.cpu(), {'a': nd.ones(2), "
                              "'b': nd.ones(2)}, grad_req='bad')",
    "simple_bind, unknown grad_req": "(sym.var('a') + sym.var('b')).simple_bind(mx.cpu(), "
                                     "a=(2,), b=(2,), grad_req='bad')",
    "Variable named by a number": "sym.var(3)",
    "Symbol + a string": "sym.var('a') + 'x'",
    "Symbol.save to a number": "sym.var('a').save(3)",
    "sym.load of a number": "sym.load(3)",
    "reshape to another size": "nd.ones(6).reshape((4,))",
    # d2l-en's geometry page reshapes a test set of another size: X.reshape(2000, -1)
    "np reshape, a -1 that does not fit": "mx.np.ones((93, 784)).reshape(2000, -1)",
    "np.reshape, a -1 that does not fit": "mx.np.reshape(mx.np.ones(6), (4, -1))",
    "np reshape to another size": "mx.np.ones(6).reshape(4)",
    "np reshape with a -1 that fits": "result = mx.np.ones((93, 784)).reshape(-1, 4).shape",
    "split_v2 unequal": "nd.split_v2(nd.ones(5), 2)",
    "broadcast_to a wrong shape": "nd.ones((2, 3)).broadcast_to((4, 3))",
    "slice step 0": "nd.ones(5)[::0]",
    "NDArray + a string": "nd.ones(2) + 'a'",
    "copyto a number": "nd.ones(2).copyto(3)",
    "F1 of three classes": "mx.metric.F1().update([nd.array([0, 1, 2])], [nd.array([[0.1, 0.9, "
                           "0], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]])])",
    "Accuracy, labels and predictions apart": "mx.metric.Accuracy().update([nd.array([0, 1, 2])]"
                                              ", [nd.array([[0.1, 0.9], [0.2, 0.8]])])",
    "image flip of 2 channels": "nd.image.flip_left_right(nd.ones((4, 2, 2))).asnumpy()",
    "image flip of a batch": "nd.image.flip_top_bottom(nd.ones((2, 4, 2, 3))).asnumpy()",
    "image flip of 1 channel": "result = nd.image.flip_left_right(nd.ones((4, 2, 1))).asnumpy()",
    "random_hue below 0": "nd.image.random_hue(nd.ones((4, 3, 3)), -0.4, 0.4).asnumpy()",
    "random_brightness max below 0": "nd.image.random_brightness(nd.ones((4, 3, 3)), 0.5, "
                                     "-0.1).asnumpy()",
}

CASES = {**BATCHNORM, **IN_PLACE, **NO_GRADIENT, **ERROR_KINDS}

# Runs the cases with the library given on the command line; prints one JSON answer.
RUNNER = textwrap.dedent('''
    import builtins, importlib, json, sys, tempfile
    import numpy as np
    mx = importlib.import_module(sys.argv[1])
    cases = json.load(sys.stdin)

    def builtin_kinds(error):
        return [k.__name__ for k in type(error).__mro__
                if k.__module__ == "builtins" and k not in (Exception, BaseException, object)]

    def run(code):
        scope = {"mx": mx, "nd": mx.nd, "sym": mx.sym, "autograd": mx.autograd,
                 "gluon": mx.gluon, "np": np, "tmp": tempfile.mkdtemp()}
        try:
            exec(code, scope)
            mx.nd.waitall()
        except Exception as error:
            return {"raised": builtin_kinds(error), "message": str(error)[-300:]}
        result = scope.get("result")
        if hasattr(result, "tolist"):
            result = result.tolist()
        return {"raised": None, "result": result if result is None else repr(result)}

    print(json.dumps({name: run(code) for name, code in cases.items()}))
''')


def _answers(python, library):
    done = subprocess.run([python, "-c", RUNNER, library], input=json.dumps(CASES),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def answers(mxnet_python):
    """(MXNet's answers, minimx's answers), each case run in a fresh process per library."""
    return _answers(mxnet_python, "mxnet"), _answers(sys.executable, "minimx")


@pytest.mark.mxnet
@pytest.mark.parametrize("name", list(CASES))
def test_refuses_what_mxnet_refuses_with_its_kind(name, answers):
    reference, mine = answers[0][name], answers[1][name]
    if reference["raised"] is None:
        assert mine["raised"] is None, f"MXNet runs it; minimx raised {mine}"
        assert mine["result"] == reference["result"]
        return
    assert mine["raised"] is not None, f"MXNet refuses it ({reference}); minimx runs it"
    kind = reference["raised"][0]          # MXNet's most specific builtin kind
    assert kind in mine["raised"], (f"MXNet raises a {kind} ({reference['message']}); "
                                    f"minimx's error is {mine['raised']}: {mine['message']}")


# -- what minimx's messages say (no reference needed) ---------------------------------------------
def _error(code):
    scope = {"mx": minimx, "nd": minimx.nd, "sym": minimx.sym, "autograd": minimx.autograd,
             "gluon": minimx.gluon, "np": np, "tmp": "/nonexistent"}
    with pytest.raises(minimx.base.MXNetError) as info:
        exec(code, scope)
        minimx.nd.waitall()
    return str(info.value)


# (case, what its message must say): the operator, the values, why, and what to do instead
MESSAGES = [
    ("nd BatchNorm axis=1 on 1-d", ["BatchNorm", "axis 1", "(4,)"]),
    ("sym BatchNorm infer_shape", ["'bn'", "axis 1"]),
    ("np reshape, a -1 that does not fit", ["_np_reshape", "72912", "(2000, -1)"]),
    # the words MXNet's own tests look for, then minimx's reason and remedy
    ("plain x[0] = graph value", ["Inplace operations (+=, -=, x[:]=, etc) are not supported "
                                  "when recording", "x[:] = y", "autograd.record()"]),
    ("input read by a recorded call", ["part of the recorded graph"]),
    ("batch_take simple_bind write", ["batch_take", "grad_req='null'", "BlockGrad"]),
    ("imperative batch_take backward", ["batch_take", "detach"]),
]


@pytest.mark.parametrize("name, fragments", MESSAGES)
def test_message_names_the_mistake_and_the_way_out(name, fragments):
    message = _error(CASES[name])
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_error_classes_are_both_mxnet_errors_and_builtin_kinds():
    base = minimx.base
    for cls, kind in ((base.UnknownNameError, ValueError),
                      (base.NotRegisteredError, AssertionError),
                      (base.ParameterMismatchError, AssertionError),
                      (base.StateError, AssertionError),
                      (base.InvalidParameterError, ValueError)):
        assert issubclass(cls, base.MXNetError) and issubclass(cls, kind), cls
        assert issubclass(cls, getattr(builtins, kind.__name__))
