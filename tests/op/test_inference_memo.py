"""``OpDef.output_shapes`` / ``output_types`` keep each answer on the operator instance
(``fixed_inference``): a loop calling one operator on same-shaped arrays infers once, the
answer follows NumPy's shape mode, and the user's ``Custom`` rules are asked every time."""
import minimx as mx
from minimx import nd
from minimx.op import get_op, registry
from minimx.operator.custom import Custom


def _counting(instance, method):
    calls = []
    rule = getattr(instance, method)

    def counted(*args):
        calls.append(args)
        return rule(*args)
    setattr(instance, method, counted)       # on this instance only
    return calls


def test_an_instance_infers_once_per_input_shapes_and_types(monkeypatch):
    # Instances are shared between equal calls, so an earlier test may already have asked
    # this one: start from an empty memo.
    monkeypatch.setattr(registry, "_INFERRED", {})
    op = get_op("broadcast_add").create()
    shapes, types = _counting(op, "infer_shape"), _counting(op, "infer_type")
    for _ in range(3):
        assert op.output_shapes([(8, 1), (1, 8)]) == [(8, 8)]
        assert op.output_types(["float32", "float32"])[0].name == "float32"
    assert op.output_shapes([(2, 3), (2, 3)]) == [(2, 3)]
    assert len(shapes) == 2 and len(types) == 1


def test_a_caller_changing_the_answer_changes_nothing_kept():
    op = get_op("broadcast_add").create()
    answer = op.output_shapes([(4, 1), (1, 5)])
    answer.append((9,))
    assert op.output_shapes([(4, 1), (1, 5)]) == [(4, 5)]


def test_the_kept_answer_follows_numpy_shape_semantics():
    op = get_op("_index").create(key=(("int", 0),))
    for _ in range(2):               # legacy shapes: a scalar is (1,); NumPy's: ()
        assert op.output_shapes([(3,)]) == [(1,)]
        with mx.util.np_shape(True):
            assert op.output_shapes([(3,)]) == [()]
    x = nd.ones((3,))
    assert x[0].shape == (1,)


def test_partly_known_shapes_and_custom_rules_are_not_kept(monkeypatch):
    monkeypatch.setattr(registry, "_INFERRED", {})
    op = get_op("broadcast_add").create()
    calls = _counting(op, "infer_shape")
    op.output_shapes([[2, 3], [2, 3]])          # lists: not a key
    op.output_shapes([[2, 3], [2, 3]])
    assert len(calls) == 2
    assert Custom.fixed_inference is False
