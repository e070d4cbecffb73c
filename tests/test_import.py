"""``import minimx`` makes only what a program needs first: the rest on first use.

Every lesson, test process and data-loader worker pays the import, so the operator
functions of the frontends are made when first asked for, and the parts of MXNet's API a
first program does not touch are imported when first reached -- with ``mx.<name>``,
``from minimx import <name>`` and ``dir()`` working as before.  Each case runs in a fresh
interpreter (this test process has imported everything already).
"""
import subprocess
import sys
import textwrap


def run_fresh(code):
    """Run ``code`` in a fresh interpreter; its stdout's words."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_generated_functions_are_made_on_first_use_and_listed_before():
    """No generated ``nd``/``sym`` function is made by the import; ``dir`` and ``__all__``
    name every one; asking makes it once, the same object under each of its names."""
    words = run_fresh("""
        import inspect
        import minimx as mx
        from minimx.op import list_ops
        nd, sym = mx.nd, mx.sym
        names = {name for op in list_ops() for name in (op.name, *op.aliases)}
        made = {name for name in names if name in vars(nd.op) or name in vars(sym.op)}
        print("made_by_import", *sorted(made))      # Custom is written by hand
        print("listed", names <= set(dir(nd.op)) and names <= set(dir(sym.op)))
        print("in_all", "relu" in nd.__all__ and "relu" in dir(nd), "gemm2" in dir(nd.linalg))
        relu = nd.relu
        print("same", relu is nd.op.relu and "relu" in vars(nd) and "relu" in vars(nd.op))
        print("linalg", nd.linalg.gemm2 is nd.op._linalg_gemm2 is nd._internal._linalg_gemm2)
        print("signature", list(inspect.signature(nd.FullyConnected).parameters)[:4])
        from minimx.ndarray import sigmoid
        print("from_import", sigmoid is nd.op.sigmoid)
        x = nd.array([[1.0, -2.0]])
        print("values", x.relu().asnumpy().tolist(), nd.concatenate([x, x]).shape)
        print("symbol", sym.var("a").exp().name, sym.FullyConnected is sym.op.FullyConnected)
        try:
            nd.no_such_operator
        except AttributeError as error:
            print("missing", "no_such_operator" in str(error))
        """)
    assert words == ["made_by_import", "Custom", "listed", "True", "in_all", "True", "True",
                     "same", "True", "linalg", "True",
                     "signature", "['data',", "'weight',", "'bias',", "'num_hidden']",
                     "from_import", "True", "values", "[[1.0,", "0.0]]", "(2,", "2)",
                     "symbol", "exp0", "True", "missing", "True"]


# imported on first use; a plain ``import minimx`` and a first program leave them out
LEFT_FOR_FIRST_USE = ("minimx.io", "minimx.image", "minimx.recordio", "minimx.module",
                      "minimx.rnn", "minimx.contrib", "minimx.model", "minimx.callback",
                      "minimx.monitor", "minimx.viz", "minimx.profiler", "minimx.metric",
                      "minimx.runtime", "minimx.compat", "minimx.test_utils",
                      "minimx.gluon.data", "minimx.gluon.rnn", "minimx.gluon.utils",
                      "minimx.gluon.model_zoo", "minimx.gluon.contrib",
                      "scipy.sparse", "numpy.testing", "multiprocessing", "argparse")


def test_a_first_program_leaves_the_rest_unimported():
    """Arrays, autograd, a Gluon network trained one step by a Trainer: none of the parts
    left for first use is imported (each costs every process its import)."""
    words = run_fresh(f"""
        import sys
        import minimx as mx
        from minimx import autograd, gluon, nd
        from minimx.gluon import nn
        net = nn.Sequential()
        net.add(nn.Dense(4, activation="relu"), nn.Dense(1))
        net.initialize()
        trainer = gluon.Trainer(net.collect_params(), "sgd", {{"learning_rate": 0.1}})
        x, y = nd.ones((8, 3)), nd.ones((8, 1))
        with autograd.record():
            loss = gluon.loss.L2Loss()(net(x), y)
        loss.backward()
        trainer.step(8)
        print("loss", float(loss.mean().asscalar()) > 0)
        print("imported", *[m for m in {LEFT_FOR_FIRST_USE!r} if m in sys.modules])
        """)
    assert words == ["loss", "True", "imported"]


def test_the_parts_left_out_load_on_first_use_under_every_name():
    """``mx.<name>`` (MXNet's short names too), ``from minimx import <name>``, ``dir(mx)``,
    ``gluon.<name>`` and ``import mxnet.<name>`` after ``install_as_mxnet()`` all reach
    the parts a plain import leaves out, and each is the one module."""
    words = run_fresh("""
        import sys
        import minimx as mx
        names = ("io", "image", "img", "recordio", "module", "mod", "rnn", "contrib", "model",
                 "callback", "monitor", "mon", "viz", "profiler", "metric", "runtime",
                 "compat", "test_utils", "install_as_mxnet")
        print("listed", all(name in dir(mx) for name in names))
        print("data", mx.gluon.data.DataLoader.__module__, "data" in dir(mx.gluon))
        print("vision", type(mx.gluon.data.vision.transforms.ToTensor()).__name__)
        print("short", mx.img is mx.image, mx.mod is mx.module, mx.mon is mx.monitor)
        from minimx import viz, recordio
        from minimx.gluon import rnn, utils
        print("from", viz is sys.modules["minimx.viz"], rnn is mx.gluon.rnn,
              utils.split_and_load is mx.gluon.utils.split_and_load)
        it = mx.io.NDArrayIter(mx.nd.ones((4, 2)), batch_size=2)
        print("iter", next(iter(it)).data[0].shape, mx.metric.create("acc").name)
        print("sparse", "scipy.sparse" in sys.modules,
              mx.nd.sparse.csr_matrix(([1.0], [0], [0, 1]), shape=(1, 2)).stype,
              "scipy.sparse" in sys.modules)
        mx.install_as_mxnet()
        import mxnet
        import mxnet.gluon.contrib.nn as contrib_nn
        from mxnet.gluon.model_zoo import vision as zoo
        import mxnet.io
        print("mxnet", mxnet is mx, contrib_nn is mx.gluon.contrib.nn,
              zoo is mx.gluon.model_zoo.vision, mxnet.rnn.BucketSentenceIter.__module__,
              mxnet.io is mx.io, mx.gluon.contrib.__spec__.name)
        try:
            mx.no_such_part
        except AttributeError as error:
            print("missing", "no_such_part" in str(error))
        """)
    assert words == ["listed", "True", "data", "minimx.gluon.data.dataloader", "True",
                     "vision", "ToTensor", "short", "True", "True", "True",
                     "from", "True", "True", "True", "iter", "(2,", "2)", "accuracy",
                     "sparse", "False", "csr", "True",
                     "mxnet", "True", "True", "True", "minimx.rnn.io", "True",
                     "minimx.gluon.contrib", "missing", "True"]
