"""Symbol files with MXNet's pre-1.0 operator names (``_Plus``, ``_MinusScalar``, ``_Power``,
``_Greater_Equal`` ...) load, compute what MXNet computes, and are written back under
today's names; symbol-symbol ``**``, ``%`` and comparisons write MXNet's same-shape ops."""
import json
import subprocess

import numpy as np
import pytest

import minimx as mx
from minimx.base import InvalidShapeError

# name, old op name, inputs (node names), scalar, numpy reference of the inputs' values
NODES = [
    ("plus", "_Plus", ("x", "y"), None, lambda a, b: a + b),
    ("minus", "_Minus", ("plus", "y"), None, lambda a, b: a - b),
    ("mul", "_Mul", ("x", "y"), None, lambda a, b: a * b),
    ("div", "_Div", ("mul", "y"), None, lambda a, b: a / b),
    ("plus_s", "_PlusScalar", ("x",), 2.0, lambda a: a + 2),
    ("minus_s", "_MinusScalar", ("x",), 0.5, lambda a: a - 0.5),
    ("rminus_s", "_RMinusScalar", ("x",), 3.0, lambda a: 3 - a),
    ("mul_s", "_MulScalar", ("x",), 4.0, lambda a: a * 4),
    ("div_s", "_DivScalar", ("x",), 4.0, lambda a: a / 4),
    ("rdiv_s", "_RDivScalar", ("x",), 3.0, lambda a: 3 / a),
    ("power", "_Power", ("x", "y"), None, lambda a, b: a ** b),
    ("power_s", "_PowerScalar", ("x",), 2.0, lambda a: a ** 2),
    ("rpower_s", "_RPowerScalar", ("x",), 2.0, lambda a: 2 ** a),
    ("mod", "_Mod", ("x", "y"), None, np.fmod),
    ("mod_s", "_ModScalar", ("x",), 0.7, lambda a: np.fmod(a, np.float32(0.7))),
    ("rmod_s", "_RModScalar", ("x",), 2.0, lambda a: np.fmod(2, a)),
    ("maximum", "_Maximum", ("x", "y"), None, np.maximum),
    ("minimum", "_Minimum", ("x", "y"), None, np.minimum),
    ("maximum_s", "_MaximumScalar", ("x",), 1.2, lambda a: np.maximum(a, 1.2)),
    ("minimum_s", "_MinimumScalar", ("x",), 1.2, lambda a: np.minimum(a, 1.2)),
    ("hypot", "_Hypot", ("x", "y"), None, np.hypot),
    ("hypot_s", "_HypotScalar", ("x",), 2.0, lambda a: np.hypot(a, 2)),
    ("equal", "_Equal", ("x", "y"), None, np.equal),
    ("not_equal", "_Not_Equal", ("x", "y"), None, np.not_equal),
    ("greater", "_Greater", ("x", "y"), None, np.greater),
    ("greater_equal", "_Greater_Equal", ("x", "y"), None, np.greater_equal),
    ("lesser", "_Lesser", ("x", "y"), None, np.less),
    ("lesser_equal", "_Lesser_Equal", ("x", "y"), None, np.less_equal),
    ("equal_s", "_EqualScalar", ("x",), 1.0, lambda a: a == 1),
    ("not_equal_s", "_NotEqualScalar", ("x",), 1.0, lambda a: a != 1),
    ("greater_s", "_GreaterScalar", ("x",), 1.0, lambda a: a > 1),
    ("greater_equal_s", "_GreaterEqualScalar", ("x",), 1.0, lambda a: a >= 1),
    ("lesser_s", "_LesserScalar", ("x",), 1.0, lambda a: a < 1),
    ("lesser_equal_s", "_LesserEqualScalar", ("x",), 1.0, lambda a: a <= 1),
    ("and", "_Logical_And", ("greater", "equal_s"), None, np.logical_and),
    ("or", "_Logical_Or", ("greater", "equal_s"), None, np.logical_or),
    ("xor", "_Logical_Xor", ("greater", "equal_s"), None, np.logical_xor),
    ("and_s", "_LogicalAndScalar", ("greater",), 1.0, lambda a: np.logical_and(a, 1)),
    ("or_s", "_LogicalOrScalar", ("greater",), 0.0, lambda a: np.logical_or(a, 0)),
    ("xor_s", "_LogicalXorScalar", ("greater",), 1.0, lambda a: np.logical_xor(a, 1)),
]
X = np.array([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]], dtype=np.float32)
Y = np.array([[1.5, 1.0, 0.5], [2.0, 0.7, 1.3]], dtype=np.float32)


def _old_style_json():
    """The graph as MXNet 0.8 wrote it: ``param``/``attr``, two-number entries, no version."""
    names = ["x", "y"] + [name for name, *_ in NODES]
    nodes = [{"op": "null", "param": {}, "name": name, "inputs": [], "backward_source_id": -1}
             for name in ("x", "y")]
    for name, op, inputs, scalar, _ in NODES:
        param = {} if scalar is None else {"scalar": repr(scalar)}
        nodes.append({"op": op, "param": param, "name": name, "attr": {},
                      "inputs": [[names.index(source), 0] for source in inputs],
                      "backward_source_id": -1})
    heads = [[names.index(name), 0] for name, *_ in NODES]
    return json.dumps({"nodes": nodes, "arg_nodes": [0, 1], "heads": heads}, indent=1)


def _expected():
    values = {"x": X, "y": Y}
    for name, _, inputs, _, reference in NODES:
        values[name] = np.asarray(reference(*[values[i] for i in inputs])).astype(np.float32)
    return [values[name] for name, *_ in NODES]


def test_old_operator_names_load_and_compute():
    symbol = mx.sym.load_json(_old_style_json())
    outputs = symbol.eval(x=mx.nd.array(X), y=mx.nd.array(Y))
    for (name, *_), output, expected in zip(NODES, outputs, _expected()):
        np.testing.assert_allclose(output.asnumpy(), expected, rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def test_old_names_are_written_back_under_todays_names():
    graph = json.loads(mx.sym.load_json(_old_style_json()).tojson())
    ops = {node["name"]: node["op"] for node in graph["nodes"]}
    assert ops["plus"] == "elemwise_add" and ops["div"] == "elemwise_div"
    assert ops["power"] == "_power" and ops["greater_equal"] == "_greater_equal"
    assert ops["rpower_s"] == "_rpower_scalar" and ops["and_s"] == "_logical_and_scalar"
    assert not any(op[1:2].isupper() for op in ops.values())


def test_same_shape_ops_reject_broadcasting_as_in_mxnet():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    for symbol in (x ** y, x % y, x == y, x < y, mx.sym.maximum(x, y)):
        with pytest.raises(InvalidShapeError, match="same shape"):
            symbol.infer_shape(x=(2, 3), y=(1, 3))
    assert mx.sym.broadcast_power(x, y).infer_shape(x=(2, 3), y=(1, 3))[1] == [(2, 3)]


def test_symbol_functions_take_numbers_on_either_side():
    x = mx.sym.var("x")
    values = {"x": mx.nd.array(X)}
    cases = [(mx.sym.pow(x, 2), X ** 2), (mx.sym.power(2, x), 2 ** X),
             (mx.sym.maximum(1.2, x), np.maximum(X, 1.2)), (mx.sym.minimum(x, 1.2),
                                                              np.minimum(X, 1.2)),
             (mx.sym.hypot(x, x), np.hypot(X, X)), (mx.sym.hypot(2, x), np.hypot(X, 2))]
    for symbol, expected in cases:
        np.testing.assert_allclose(symbol.eval(**values)[0].asnumpy(), expected, rtol=1e-5)
    assert mx.sym.maximum(2, 3) == 3 and mx.sym.pow(2, 3) == 8


MXNET_SCRIPT = r"""
import json, sys
import numpy as np
import mxnet as mx
text = open(sys.argv[1]).read()
symbol = mx.sym.load_json(text)
arrays = np.load(sys.argv[2])
outputs = symbol.eval(x=mx.nd.array(arrays["x"]), y=mx.nd.array(arrays["y"]))
print(json.dumps({"json": symbol.tojson(), "outputs": [o.asnumpy().tolist() for o in outputs]}))
"""


def test_old_style_file_gives_mxnets_values_and_json(mxnet_python, tmp_path):
    (tmp_path / "old.json").write_text(_old_style_json())
    np.savez(tmp_path / "inputs.npz", x=X, y=Y)
    done = subprocess.run([mxnet_python, "-c", MXNET_SCRIPT, str(tmp_path / "old.json"),
                           str(tmp_path / "inputs.npz")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    symbol = mx.sym.load_json(_old_style_json())
    assert symbol.tojson() == result["json"]
    outputs = symbol.eval(x=mx.nd.array(X), y=mx.nd.array(Y))
    for (name, *_), output, expected in zip(NODES, outputs, result["outputs"]):
        np.testing.assert_allclose(output.asnumpy(), expected, rtol=1e-5, atol=1e-6,
                                   err_msg=name)
