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

CASES = {**BATCHNORM}

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


def test_batchnorm_refusal_names_operator_axis_and_shape():
    message = _error(BATCHNORM["nd BatchNorm axis=1 on 1-d"])
    assert "BatchNorm" in message and "axis 1" in message and "(4,)" in message
    message = _error(BATCHNORM["sym BatchNorm infer_shape"])
    assert "bn" in message and "axis 1" in message
