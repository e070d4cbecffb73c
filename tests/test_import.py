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

