"""Symbol graphs as MXNet 1.x JSON: ``nodes``, ``arg_nodes``, ``node_row_ptr``, ``heads``.

Lesson: 07-symbolic-programming.  Mirrors nnvm's ``SaveJSON``/``LoadJSON``.  Files move both
ways between MXNet 1.9.1 and minimx.  Loading only parses JSON: nothing in
the file is evaluated, every field is checked, and errors name the node.
"""
import json

from ..base import FileFormatError
from ..op import OPS
from ..util import is_np_shape
from .graph import Node, hide_keys, is_aux_input, topo_order, unknown_params

__all__ = ["to_json", "from_json"]

MXNET_VERSION = 10901       # the version this format is written as (MXNet 1.9.1)


def to_json(entries):
    """The JSON text of a graph whose outputs are ``entries``, laid out as MXNet writes it."""
    graph = _graph_record(entries)
    graph["attrs"] = _graph_attrs()
    return _layout(graph, level=0, multi_line=True)


def _graph_record(entries):
    """The graph as MXNet's JSON object, without the graph attributes (a control-flow
    node's body is such an object, in the node's ``subgraphs`` list)."""
    order = topo_order(entries)
    index = {id(node): position for position, node in enumerate(order)}
    nodes, row_pointer = [], [0]
    for node in order:
        record = {"op": node.op_name(), "name": node.name}
        if node.attrs:
            record["attrs"] = dict(sorted(node.attrs.items()))     # MXNet keeps a sorted map
        record["inputs"] = [[index[id(source)], output, int(is_aux_input(node, position))]
                            for position, (source, output) in enumerate(node.inputs)]
        if node.subgraphs:
            record["subgraphs"] = [_graph_record(body) for body in node.subgraphs]
        nodes.append(record)
        outputs = 1 if node.op is None else node.instance.num_mxnet_outputs()
        row_pointer.append(row_pointer[-1] + outputs)
    return {
        "nodes": nodes,
        "arg_nodes": [position for position, node in enumerate(order) if node.is_variable],
        "node_row_ptr": row_pointer,
        "heads": [[index[id(node)], output, 0] for node, output in entries],
    }


def _graph_attrs():
    """The graph's own attributes: the version, and ``is_np_shape`` when written under
    ``mx.np_shape()`` (then a 0 in a shape is an empty axis, not an unknown size)."""
    attrs = {"mxnet_version": ["int", MXNET_VERSION]}
    if is_np_shape():
        attrs["is_np_shape"] = ["int", 1]
    return dict(sorted(attrs.items()))


def _legacy_shapes_as_np(nodes):
    """A file written without numpy shape semantics, loaded under them: its 0 sizes in
    ``__shape__`` mean "unknown", which is -1 there (as MXNet's loader converts)."""
    for node in nodes:
        text = node.attrs.get("__shape__")
        if text:
            sizes = [item.strip() for item in text.strip("()[] ").split(",") if item.strip()]
            converted = ["-1" if size == "0" else size for size in sizes]
            node.attrs["__shape__"] = "(" + ", ".join(converted) + ("," if len(converted) == 1
                                                                     else "") + ")"


def _layout(value, level, multi_line=None):
    """JSON text as dmlc's JSONWriter lays it out, so files compare equal byte for byte.

    Objects with more than one key and lists of more than ten items take one
    line per item; items are separated by ``", "``.  The graph, each node and
    the node list always take several lines (``multi_line=True``).
    """
    if isinstance(value, dict):
        items = [f"{json.dumps(key, ensure_ascii=False)}: "
                 f"{_layout(item, level + 1, multi_line=key in ('nodes', 'subgraphs') or None)}"
                 for key, item in value.items()]
        brackets, long = "{}", len(items) > 1
    elif isinstance(value, list):
        nodes = multi_line and value and isinstance(value[0], dict)
        items = [_layout(item, level + 1, multi_line=True if nodes else None) for item in value]
        brackets, long = "[]", len(items) > 10
    else:
        return json.dumps(value, ensure_ascii=False)
    if not items:
        return brackets
    if not (long if multi_line is None else multi_line):
        return brackets[0] + ", ".join(items) + brackets[1]
    inner, outer = "\n" + "  " * (level + 1), "\n" + "  " * level
    return brackets[0] + inner + (", " + inner).join(items) + outer + brackets[1]


def _fail(source, message):
    raise FileFormatError(f"symbol JSON{source}: {message}")


def from_json(text, source=""):
    """The output entries of the graph in ``text`` (MXNet 1.x symbol JSON, also pre-1.0)."""
    source = f" {source!r}" if source else ""
    try:
        graph = json.loads(text)
    except (json.JSONDecodeError, TypeError) as error:
        _fail(source, f"not valid JSON ({error})")
    legacy = isinstance(graph, dict) and _version(graph) < 900
    legacy_shapes = is_np_shape() and "is_np_shape" not in (
        graph.get("attrs") or {} if isinstance(graph, dict) else {})
    return _load_graph(graph, source, legacy, legacy_shapes)


def _load_graph(graph, source, legacy, legacy_shapes):
    """The output entries of one graph object (the file's, or a control-flow node's body)."""
    if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list):
        _fail(source, "expected an object with a 'nodes' list")
    nodes = [_load_node(record, position, source, legacy) for position, record in
             enumerate(graph["nodes"])]
    if legacy_shapes:
        _legacy_shapes_as_np(nodes)
    for position, (node, record) in enumerate(zip(nodes, graph["nodes"])):
        node.inputs = [_entry(item, nodes, position, source, f"input of node '{node.name}'")
                       for item in record.get("inputs", [])]
        bodies = record.get("subgraphs") or []
        if not isinstance(bodies, list):
            _fail(source, f"node '{node.name}': subgraphs must be a list of graphs")
        node.subgraphs = tuple(_load_graph(body, source, legacy, legacy_shapes)
                               for body in bodies)
        if node.op is not None:
            _check_input_count(node, source)
    heads = graph.get("heads")
    if not isinstance(heads, list) or not heads:
        _fail(source, "expected a non-empty 'heads' list")
    return [_entry(item, nodes, len(nodes), source, "head") for item in heads]


def _version(graph):
    """The MXNet version that wrote ``graph`` (10901 for 1.9.1; files before 0.9 have none)."""
    version = (graph.get("attrs") or {}).get("mxnet_version")
    if isinstance(version, list) and len(version) == 2 and isinstance(version[1], int):
        return version[1]
    return 800


def _node_attrs(record, legacy, source):
    """One dict of attributes: MXNet 0.8 files split them into ``param`` and ``attr``."""
    attrs = {}
    for key in ("param", "attr", "attrs"):
        part = record.get(key) or {}
        if not isinstance(part, dict) or not all(isinstance(v, str) for v in part.values()):
            _fail(source, f"node '{record['name']}': {key} must map names to strings")
        attrs.update(part)
    return hide_keys(attrs) if legacy else attrs


def _load_node(record, position, source, legacy):
    if not isinstance(record, dict) or not isinstance(record.get("name"), str):
        _fail(source, f"node {position} must be an object with a string 'name'")
    op_name = record.get("op")
    attrs = _node_attrs(record, legacy, source)
    if op_name == "null":
        return Node(None, record["name"], attrs)
    if op_name not in OPS:
        _fail(source, f"node '{record['name']}' uses unknown operator {op_name!r}")
    op = OPS[op_name]
    unknown = unknown_params(op, attrs)
    if unknown:
        _fail(source, f"node '{record['name']}' ({op.name}): unknown parameter(s) {unknown}; "
                      f"{op.name} takes {sorted(op.params)}")
    return Node(op, record["name"], attrs)


def _entry(item, nodes, limit, source, what):
    if (not isinstance(item, list) or len(item) not in (2, 3)
            or not all(isinstance(v, int) for v in item)):
        _fail(source, f"{what}: expected [node_id, output_index, version], got {item!r}")
    node_id, output = item[0], item[1]
    if not 0 <= node_id < limit:
        _fail(source, f"{what}: refers to node {node_id}, which does not come before it "
                      f"(there are {len(nodes)} nodes)")
    node = nodes[node_id]
    if not 0 <= output < node.num_outputs():
        _fail(source, f"{what}: node '{node.name}' has no output {output}")
    return node, output


def _check_input_count(node, source):
    try:
        expected = node.input_names()
    except Exception as error:      # noqa: BLE001 - bad attributes are reported as such
        _fail(source, f"node '{node.name}' ({node.op.name}): {error}")
    if len(expected) != len(node.inputs):
        _fail(source, f"node '{node.name}' ({node.op.name}) expects inputs {list(expected)}, "
                      f"got {len(node.inputs)}")
