"""tools/run_mxnet_tests.py's scope rule: which of MXNet's tests count against minimx."""
import importlib.util
import pathlib
import textwrap

RUNNER = pathlib.Path(__file__).resolve().parent.parent / "tools" / "run_mxnet_tests.py"
spec = importlib.util.spec_from_file_location("run_mxnet_tests", RUNNER)
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)

FILE = textwrap.dedent('''
    import mxnet as mx
    from mxnet.numpy_op_signature import _get_builtin_op

    class Helper:
        _args = {}

    def test_own_block():
        class TestSum(mx.gluon.HybridBlock):
            def __init__(self, axis):
                self._axis = axis
            def hybrid_forward(self, F, a):
                return F.np.sum(a, axis=self._axis)
        Helper._args["x"] = 1

    def test_private_module():
        F = mx.sym
        F.np._internal.sum

    def test_private_attribute_of_mxnet():
        trainer = mx.gluon.Trainer([], "sgd")
        trainer._kvstore

    def test_private_function_imported():
        assert _get_builtin_op(mx.np.add) is not None

    def test_c_handle():
        mx.nd.ones(1).handle
''')


def test_scope_counts_only_mxnet_internals(tmp_path):
    path = tmp_path / "test_sample.py"
    path.write_text(FILE)
    sources = runner.test_sources(path)
    scopes = {name: runner.scope_of(text, sources[None])
              for name, text in sources.items() if name}
    private = "MXNet's private modules or attributes"
    assert scopes == {"test_own_block": None, "test_private_module": private,
                      "test_private_attribute_of_mxnet": private,
                      "test_private_function_imported": private,
                      "test_c_handle": "C internals"}
