"""Symbol graphs as MXNet 1.x JSON: ``nodes``, ``arg_nodes``, ``node_row_ptr``, ``heads``.

Lesson: 06-symbol.  Mirrors nnvm's ``SaveJSON``/``LoadJSON``.  Files move both
ways between MXNet 1.9.1 and minimx.  Loading only parses JSON: nothing in
the file is evaluated, every field is checked, and errors name the node.
"""
import json

from ..base import FileFormatError
from ..op import OPS
from .graph import Node, is_aux_input, topo_order

__all__ = ["to_json", "from_json"]

MXNET_VERSION = 10901       # the version this format is written as (MXNet 1.9.1)


def to_json(entries):
    """The JSON text of a graph whose outputs are ``entries``."""
    order = topo_order(entries)
    index = {id(node): position for position, node in enumerate(order)}
    nodes, row_pointer = [], [0]
    for node in order:
        record = {"op": node.op_name(), "name": node.name}
        if node.attrs:
            record["attrs"] = dict(node.attrs)
        record["inputs"] = [[index[id(source)], output, int(is_aux_input(node, position))]
                            for position, (source, output) in enumerate(node.inputs)]
        nodes.append(record)
        row_pointer.append(row_pointer[-1] + node.num_outputs())
    graph = {
        "nodes": nodes,
        "arg_nodes": [position for position, node in enumerate(order) if node.is_variable],
        "node_row_ptr": row_pointer,
        "heads": [[index[id(node)], output, 0] for node, output in entries],
        "attrs": {"mxnet_version": ["int", MXNET_VERSION]},
    }
    return _layout(graph)


def _layout(graph):
    """JSON laid out as MXNet writes it: one key per line, short lists kept on one line."""
    def node_text(record):
        lines = [f'      "{key}": {json.dumps(value)}' for key, value in record.items()]
        return "    {\n" + ",\n".join(lines) + "\n    }"

    nodes = ",\n".join(node_text(record) for record in graph["nodes"])
    rest = [f'  "{key}": {json.dumps(graph[key])}' for key in graph if key != "nodes"]
    return "{\n  \"nodes\": [\n" + nodes + "\n  ],\n" + ",\n".join(rest) + "\n}"


def _fail(source, message):
    raise FileFormatError(f"symbol JSON{source}: {message}")


def from_json(text, source=""):
    """The output entries of the graph in ``text`` (MXNet 1.x symbol JSON)."""
    source = f" {source!r}" if source else ""
    try:
        graph = json.loads(text)
    except (json.JSONDecodeError, TypeError) as error:
        _fail(source, f"not valid JSON ({error})")
    if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list):
        _fail(source, "expected an object with a 'nodes' list")
    nodes = [_load_node(record, position, source) for position, record in
             enumerate(graph["nodes"])]
    for position, (node, record) in enumerate(zip(nodes, graph["nodes"])):
        node.inputs = [_entry(item, nodes, position, source, f"input of node '{node.name}'")
                       for item in record.get("inputs", [])]
        if node.op is not None:
            _check_input_count(node, source)
    heads = graph.get("heads")
    if not isinstance(heads, list) or not heads:
        _fail(source, "expected a non-empty 'heads' list")
    return [_entry(item, nodes, len(nodes), source, "head") for item in heads]


def _load_node(record, position, source):
    if not isinstance(record, dict) or not isinstance(record.get("name"), str):
        _fail(source, f"node {position} must be an object with a string 'name'")
    op_name = record.get("op")
    attrs = record.get("attrs", record.get("attr", record.get("param", {}))) or {}
    if not isinstance(attrs, dict) or not all(isinstance(v, str) for v in attrs.values()):
        _fail(source, f"node '{record['name']}': attrs must map names to strings")
    if op_name == "null":
        return Node(None, record["name"], attrs)
    if op_name not in OPS:
        _fail(source, f"node '{record['name']}' uses unknown operator {op_name!r}")
    return Node(OPS[op_name], record["name"], attrs)


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
