"""mx.operator: user-written Python operators (CustomOp, CustomOpProp, register).

Each custom operator runs through the one ``Custom`` registry entry: imperatively
(``nd.Custom`` with autograd), in Symbols (names, inference, JSON) and in
Executors, on both engines; errors name the op_type; one example is compared
with MXNet 1.9.1.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minimx as mx
from minimx import autograd, nd
from minimx.base import InvalidParameterError, InvalidShapeError, MXNetError


# -- the operators under test ----------------------------------------------------------------
class Softmax(mx.operator.CustomOp):
    """The softmax loss of MXNet's custom-operator tutorial (numpy inside, as there)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
        y /= y.sum(axis=1).reshape((x.shape[0], 1))
        self.assign(out_data[0], req[0], mx.nd.array(y))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().ravel().astype(int)
        y = out_data[0].asnumpy()
        y[np.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y))


@mx.operator.register("test_softmax")
class SoftmaxProp(mx.operator.CustomOpProp):
    created = []          # the keyword arguments each Prop received

    def __init__(self, **kwargs):
        super().__init__(need_top_grad=False)
        SoftmaxProp.created.append(kwargs)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        data_shape = in_shape[0]
        return [data_shape, (data_shape[0],)], [data_shape], []

    def create_operator(self, ctx, shapes, dtypes):
        return Softmax()


class Counter(mx.operator.CustomOp):
    """``data * scale``; counts its forward calls in the auxiliary state ``count``."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * self.scale)
        aux[0][:] = aux[0] + 1

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * self.scale)


@mx.operator.register("test_counter")
class CounterProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1"):
        super().__init__()
        self.scale = float(scale)

    def list_auxiliary_states(self):
        return ["count"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [(1,)]

    def create_operator(self, ctx, shapes, dtypes):
        return Counter(self.scale)


class SumAndProduct(mx.operator.CustomOp):
    """Two outputs: ``a + b`` and ``a * b``; keeps ``a`` and ``b`` on itself for backward."""

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.kept = (a.copy(), b.copy())
        self.assign(out_data[0], req[0], a + b)
        self.assign(out_data[1], req[1], a * b)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = self.kept
        self.assign(in_grad[0], req[0], out_grad[0] + out_grad[1] * b)
        self.assign(in_grad[1], req[1], out_grad[0] + out_grad[1] * a)


@mx.operator.register("test_sum_product")
class SumAndProductProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["sum", "product"]

    def create_operator(self, ctx, shapes, dtypes):
        return SumAndProduct()


def softmax_reference(x, label):
    y = np.exp(x - x.max(axis=1, keepdims=True))
    y /= y.sum(axis=1, keepdims=True)
    grad = y.copy()
    grad[np.arange(len(label)), label.astype(int)] -= 1
    return y, grad


# -- imperative ------------------------------------------------------------------------------
def test_softmax_forward_and_backward_match_numpy(engine):
    x = np.random.uniform(-2, 2, (3, 4)).astype(np.float32)
    label = np.array([0, 3, 1], dtype=np.float32)
    data = nd.array(x)
    data.attach_grad()
    with autograd.record():
        out = nd.Custom(data, nd.array(label), op_type="test_softmax")
    out.backward()            # need_top_grad=False: no head gradient needed
    expected, grad = softmax_reference(x, label)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(data.grad.asnumpy(), grad, rtol=1e-5, atol=1e-6)


@settings(max_examples=10, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 5))
def test_softmax_rows_sum_to_one_for_any_shape(rows, cols):
    x = np.random.normal(size=(rows, cols)).astype(np.float32)
    out = nd.Custom(nd.array(x), nd.zeros((rows,)), op_type="test_softmax").asnumpy()
    np.testing.assert_allclose(out, softmax_reference(x, np.zeros(rows))[0], rtol=1e-5,
                               atol=1e-6)


def test_inputs_by_name_and_keyword_arguments_reach_the_prop_as_strings():
    SoftmaxProp.created.clear()
    x = nd.ones((2, 3))
    out = nd.Custom(data=x, label=nd.zeros((2,)), op_type="test_softmax", scale=2, flag=True)
    np.testing.assert_allclose(out.asnumpy(), np.full((2, 3), 1 / 3), rtol=1e-6)
    assert SoftmaxProp.created[-1] == {"scale": "2", "flag": "True"}


def test_auxiliary_state_is_updated_in_place_and_gets_no_gradient(engine):
    x, count = nd.array([1.0, 2.0]), nd.zeros((1,))
    x.attach_grad()
    with autograd.record():
        y = nd.Custom(x, count, op_type="test_counter", scale=3)
    y.backward(nd.array([1.0, 10.0]))
    nd.Custom(x, count, op_type="test_counter")
    np.testing.assert_allclose(y.asnumpy(), [3.0, 6.0])
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 30.0])
    assert count.asscalar() == 2.0


def test_two_outputs_and_state_kept_between_forward_and_backward(engine):
    a_np, b_np = np.array([1.0, 2.0], np.float32), np.array([3.0, -4.0], np.float32)
    a, b = nd.array(a_np), nd.array(b_np)
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        total, product = nd.Custom(a, b, op_type="test_sum_product")
        loss = (total * 2 + product).sum()
    loss.backward()
    np.testing.assert_allclose(total.asnumpy(), a_np + b_np)
    np.testing.assert_allclose(product.asnumpy(), a_np * b_np)
    np.testing.assert_allclose(a.grad.asnumpy(), 2 + b_np)
    np.testing.assert_allclose(b.grad.asnumpy(), 2 + a_np)


def test_custom_op_inside_a_longer_recorded_graph():
    x_np = np.array([[0.5, -1.0, 2.0]], np.float32)
    x = nd.array(x_np)
    x.attach_grad()
    with autograd.record():
        y = nd.Custom(nd.exp(x), op_type="_example_square") * 3
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), 3 * np.exp(2 * x_np), rtol=1e-5)
    np.testing.assert_allclose(x.grad.asnumpy(), 6 * np.exp(2 * x_np), rtol=1e-5)


def test_forward_sees_training_mode_and_records_nothing():
    seen = []

    class Probe(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            seen.append((is_train, autograd.is_recording()))
            self.assign(out_data[0], req[0], in_data[0] + 1)

    @mx.operator.register("test_probe")
    class ProbeProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Probe()

    x = nd.ones((2,))
    with autograd.record():
        nd.Custom(x, op_type="test_probe").wait_to_read()
    nd.Custom(x, op_type="test_probe").wait_to_read()
    assert seen == [(1, False), (0, False)]


DEADLOCK_SCRIPT = textwrap.dedent("""
    import numpy as np
    import minimx as mx
    from minimx import nd

    class Busy(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            y = nd.relu(in_data[0] - 1)
            nd.waitall()
            y.wait_to_read()
            self.assign(out_data[0], req[0], nd.array(y.asnumpy() * 2))

    @mx.operator.register("busy")
    class BusyProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Busy()

    outputs = [nd.Custom(nd.array([0.0, 3.0]) + i, op_type="busy") for i in range(3)]
    for i, out in enumerate(outputs):
        np.testing.assert_allclose(out.asnumpy(), 2 * np.maximum(np.array([0.0, 3.0]) + i - 1, 0))
    print("ok")
""")


def test_nd_calls_inside_an_operator_do_not_deadlock_a_one_worker_engine(tmp_path):
    """The user's code runs in the only worker; its nd calls and syncs must not wait for it.

    Run in a fresh process, so that a deadlock fails this test instead of hanging the suite.
    """
    script = tmp_path / "busy.py"
    script.write_text(DEADLOCK_SCRIPT)
    env = {**os.environ, "MINIMX_ENGINE_TYPE": "ThreadedEngine",
           "MINIMX_CPU_WORKER_NTHREADS": "1"}
    try:
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              timeout=60, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("nd calls inside a CustomOp deadlocked a one-worker ThreadedEngine")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


# -- symbols and executors -------------------------------------------------------------------
def test_symbol_names_and_shape_inference():
    data = mx.sym.Variable("data")
    net = mx.sym.Custom(data, op_type="test_softmax", name="sm")
    assert net.list_arguments() == ["data", "sm_label"]
    assert net.list_outputs() == ["sm_output"]
    assert net.infer_shape(data=(2, 5)) == ([(2, 5), (2,)], [(2, 5)], [])
    pair = mx.sym.Custom(mx.sym.var("a"), op_type="test_sum_product", name="sp")
    assert pair.list_arguments() == ["a", "sp_b"]
    assert pair.list_outputs() == ["sp_sum", "sp_product"]
    counter = mx.sym.Custom(data, op_type="test_counter", name="c")
    assert counter.list_arguments() == ["data"]
    assert counter.list_auxiliary_states() == ["c_count"]
    assert counter.infer_shape(data=(3,))[2] == [(1,)]


def test_executor_forward_backward_in_a_graph_with_other_ops(engine):
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    net = mx.sym.Custom(fc, op_type="test_softmax", name="sm")
    ex = net.simple_bind(mx.cpu(), data=(2, 4))
    x = np.random.normal(size=(2, 4)).astype(np.float32)
    w = np.random.normal(size=(3, 4)).astype(np.float32)
    label = np.array([2, 0], np.float32)
    ex.arg_dict["fc_weight"][:] = w
    ex.forward(is_train=True, data=x, sm_label=label)
    ex.backward()
    prob, grad_fc = softmax_reference(x @ w.T, label)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), prob, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex.grad_dict["fc_weight"].asnumpy(), grad_fc.T @ x, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(ex.grad_dict["sm_label"].asnumpy(), 0)


def test_executor_updates_auxiliary_states_and_accumulates_with_grad_req_add(engine):
    net = mx.sym.Custom(mx.sym.var("data"), op_type="test_counter", scale=2, name="c")
    ex = net.simple_bind(mx.cpu(), grad_req="add", data=(2,))
    for _ in range(2):
        ex.forward(is_train=True, data=nd.array([1.0, 5.0]))
        ex.backward(nd.array([1.0, 0.5]))
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), [2.0, 10.0])
    np.testing.assert_allclose(ex.grad_dict["data"].asnumpy(), [4.0, 2.0])
    assert ex.aux_dict["c_count"].asscalar() == 2.0


def test_json_round_trip_keeps_op_type_and_arguments():
    SoftmaxProp.created.clear()
    net = mx.sym.Custom(mx.sym.var("data"), op_type="test_softmax", name="sm", scale=2)
    text = net.tojson()
    node = json.loads(text)["nodes"][-1]
    assert node["op"] == "Custom"
    assert node["attrs"] == {"op_type": "test_softmax", "scale": "2"}
    loaded = mx.sym.load_json(text)
    assert loaded.list_arguments() == net.list_arguments()
    assert loaded.list_outputs() == net.list_outputs()
    assert loaded.tojson() == text
    x = np.random.normal(size=(2, 3)).astype(np.float32)
    args = {"data": nd.array(x), "sm_label": nd.array([1, 2])}
    out = loaded.bind(mx.cpu(), args).forward()[0].asnumpy()
    np.testing.assert_allclose(out, softmax_reference(x, np.array([1, 2]))[0], rtol=1e-5)
    assert SoftmaxProp.created and all(kw == {"scale": "2"} for kw in SoftmaxProp.created)


def test_json_marks_auxiliary_inputs():
    net = mx.sym.Custom(mx.sym.var("data"), op_type="test_counter", name="c")
    graph = json.loads(net.tojson())
    assert graph["nodes"][-1]["inputs"] == [[0, 0, 0], [1, 0, 1]]
    assert mx.sym.load_json(net.tojson()).list_auxiliary_states() == ["c_count"]


# -- errors ------------------------------------------------------------------------------------
def test_unknown_op_type_is_a_clear_error():
    with pytest.raises(InvalidParameterError, match="no_such_op"):
        nd.Custom(nd.ones((2,)), op_type="no_such_op")
    with pytest.raises(InvalidParameterError, match="no_such_op"):
        mx.sym.Custom(mx.sym.var("x"), op_type="no_such_op")
    with pytest.raises(InvalidParameterError, match="op_type"):
        nd.Custom(nd.ones((2,)))


def test_infer_shape_with_wrong_counts_names_the_op_type():
    @mx.operator.register("test_bad_shapes")
    class BadShapes(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0], in_shape[0]], []      # two outputs, one declared

    with pytest.raises(InvalidShapeError, match="test_bad_shapes"):
        nd.Custom(nd.ones((2,)), op_type="test_bad_shapes")
    with pytest.raises(InvalidShapeError, match="test_bad_shapes"):
        mx.sym.Custom(mx.sym.var("x"), op_type="test_bad_shapes").infer_shape(x=(2,))


def test_input_shape_disagreeing_with_infer_shape_is_rejected():
    with pytest.raises(InvalidShapeError, match="label"):
        nd.Custom(nd.ones((2, 3)), nd.ones((3,)), op_type="test_softmax")


def test_missing_or_extra_inputs_are_rejected():
    with pytest.raises(InvalidParameterError, match="label"):
        nd.Custom(nd.ones((2, 3)), op_type="test_softmax")
    with pytest.raises(InvalidParameterError, match="no input named 'weight'"):
        nd.Custom(nd.ones((2, 3)), weight=nd.ones((2,)), op_type="test_softmax")


def test_exception_in_forward_surfaces_at_the_sync_point_naming_the_op_type(engine):
    class Broken(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            raise ValueError("broken on purpose")

    @mx.operator.register("test_broken")
    class BrokenProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Broken()

    with pytest.raises(MXNetError, match="test_broken.*broken on purpose"):
        nd.Custom(nd.ones((2,)), op_type="test_broken").asnumpy()
    assert nd.ones((2,)).sum().asscalar() == 2.0      # the engine keeps working


def test_prop_init_error_names_the_op_type():
    with pytest.raises(InvalidParameterError, match="test_counter.*TypeError"):
        nd.Custom(nd.ones((2,)), nd.zeros((1,)), op_type="test_counter", no_such_arg=1)


def test_infer_type_chooses_the_output_dtype():
    class Cast(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0].astype("float64") / 3)

    @mx.operator.register("test_to_float64")
    class CastProp(mx.operator.CustomOpProp):
        def infer_type(self, in_type):
            return in_type, [np.float64], []

        def create_operator(self, ctx, shapes, dtypes):
            return Cast()

    out = nd.Custom(nd.ones((2,)), op_type="test_to_float64")
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), [1 / 3, 1 / 3], rtol=1e-12)
    net = mx.sym.Custom(mx.sym.var("x"), op_type="test_to_float64")
    assert net.infer_type(x=np.float32)[1] == [np.float64]


def test_assign_follows_req():
    op = mx.operator.CustomOp()
    target = nd.array([1.0, 2.0])
    op.assign(target, "null", nd.array([5.0, 5.0]))
    np.testing.assert_allclose(target.asnumpy(), [1.0, 2.0])
    op.assign(target, "add", nd.array([5.0, 5.0]))
    np.testing.assert_allclose(target.asnumpy(), [6.0, 7.0])
    op.assign(target, "write", nd.array([0.5, 0.5]))
    np.testing.assert_allclose(target.asnumpy(), [0.5, 0.5])
    op.assign(target, "inplace", nd.array([3.0, 3.0]))
    np.testing.assert_allclose(target.asnumpy(), [3.0, 3.0])


# -- against MXNet 1.9.1 ----------------------------------------------------------------------
PEER_SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    import {module} as mx

    class Scale(mx.operator.CustomOp):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * self.factor + in_data[1])
            self.assign(out_data[1], req[1], mx.nd.exp(in_data[0]))
            aux[0][:] = aux[0] + in_data[0].sum()
        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * self.factor + out_grad[1] * out_data[1])
            self.assign(in_grad[1], req[1], out_grad[0])

    @mx.operator.register("peer_scale")
    class ScaleProp(mx.operator.CustomOpProp):
        def __init__(self, factor="1"):
            super().__init__()
            self.factor = float(factor)
        def list_arguments(self):
            return ["data", "bias"]
        def list_outputs(self):
            return ["scaled", "exp"]
        def list_auxiliary_states(self):
            return ["total"]
        def infer_shape(self, in_shape):
            return [in_shape[0], in_shape[0]], [in_shape[0], in_shape[0]], [(1,)]
        def create_operator(self, ctx, shapes, dtypes):
            return ScaleProp_op(self.factor)

    ScaleProp_op = Scale
    x = mx.nd.array([[0.5, -1.0], [2.0, 0.25]])
    b = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    total = mx.nd.zeros((1,))
    x.attach_grad(); b.attach_grad()
    with mx.autograd.record():
        scaled, ex = mx.nd.Custom(x, b, total, op_type="peer_scale", factor=3)
        loss = (scaled * ex).sum()
    loss.backward()
    net = mx.sym.Custom(mx.sym.var("data"), op_type="peer_scale", factor=3, name="s")
    shapes = net.infer_shape(data=(2, 2))
    print(json.dumps({{
        "outputs": [scaled.asnumpy().tolist(), ex.asnumpy().tolist()],
        "grads": [x.grad.asnumpy().tolist(), b.grad.asnumpy().tolist()],
        "total": total.asnumpy().tolist(),
        "arguments": net.list_arguments(), "outputs_names": net.list_outputs(),
        "aux": net.list_auxiliary_states(), "shapes": [list(map(list, g)) for g in shapes],
        "json_attrs": json.loads(net.tojson())["nodes"][-1]["attrs"],
    }}))
''')


def _peer_run(python, module, tmp_path):
    path = tmp_path / f"peer_{module}.py"
    path.write_text(PEER_SCRIPT.format(module=module))
    done = subprocess.run([python, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.mxnet
def test_custom_op_matches_mxnet(mxnet_python, tmp_path):
    ours = _peer_run(sys.executable, "minimx", tmp_path)
    theirs = _peer_run(mxnet_python, "mxnet", tmp_path)
    for key in ("outputs", "grads", "total"):
        np.testing.assert_allclose(np.array(ours[key]), np.array(theirs[key]), rtol=1e-5,
                                   err_msg=key)
    for key in ("arguments", "outputs_names", "aux", "shapes", "json_attrs"):
        assert ours[key] == theirs[key], key
