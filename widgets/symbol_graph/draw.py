"""Drawing a graph model (model.py) as SVG: Graphviz when it is installed, else a simple layout.

Lesson: 07-symbolic-programming, 08-executors.  ``drawing(model, mode)`` turns the plain data
into boxes and arrows (labels, colours, tooltips), ``render_svg`` lays them out
with Graphviz's ``dot`` (as ``mx.viz.plot_network`` does) or, without it, in
rows of its own; ``details`` is what hovering or clicking an element shows.
"""
import html
import shutil
import subprocess

from minimx.viz import INPUT_COLOR, op_color

__all__ = ["drawing", "render_svg", "details", "caption_html", "slot_color", "dot_source",
           "has_dot"]

# colour-blind-friendly qualitative palette for memory slots (Okabe-Ito, then Tableau)
_SLOT_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442",
                "#7f7f7f", "#8c564b", "#bcbd22", "#17becf", "#9467bd")
_WEIGHT_COLOR = "#dddddd"
_FUSED_COLOR = "#c6dbef"
_CONSTANT_COLOR = "#eeeeee"


def slot_color(slot):
    return _SLOT_COLORS[slot % len(_SLOT_COLORS)]


def _shape_text(shape):
    return "?" if shape is None else "×".join(map(str, shape))


def _size_text(count):
    if count is None:
        return "?"
    for unit, scale in (("MB", 1e6), ("KB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"


def _attr_line(attrs, limit=28):
    text = ", ".join(f"{key}={value}" for key, value in attrs.items())
    return text if len(text) <= limit else text[:limit - 1] + "…"


# -- what to draw ---------------------------------------------------------------------------
def _variable_look(node, prefix):
    fill = _WEIGHT_COLOR if node["kind"] == "weight" else INPUT_COLOR
    return {"id": f"{prefix}_{node['id']}", "label": [node["name"]], "fill": fill,
            "shape": "oval", "bold": False}


def _traced(model, hide_weights):
    graph = model["traced"]
    hidden = {n["id"] for n in graph["nodes"] if n["kind"] == "weight" and hide_weights}
    outputs = {o["source"] for o in graph["outputs"]}
    nodes = []
    for node in graph["nodes"]:
        if node["id"] in hidden:
            continue
        if node["op"] == "null":
            nodes.append(_variable_look(node, "t"))
            continue
        label = [node["name"], node["op"]]
        if node["key_attrs"]:
            label.append(_attr_line(node["key_attrs"]))
        if node["params"]:
            label.append(f"{node['params']:,} params")
        nodes.append({"id": f"t_{node['id']}", "label": label, "bold": node["id"] in outputs,
                      "fill": op_color(node["op"]), "shape": "box"})
    edges = [{"id": f"t_e{i}", "source": f"t_{e['source']}", "target": f"t_{e['target']}",
              "label": _shape_text(e["shape"]) if e["shape"] else "", "color": "#555555"}
             for i, e in enumerate(graph["edges"]) if e["source"] not in hidden]
    return {"nodes": nodes, "edges": edges}


def _box_look(box):
    if box["kind"] == "constant":
        return {"label": ["constant (folded)", box["label"]], "fill": _CONSTANT_COLOR,
                "shape": "note"}
    if box["kind"] == "fused":
        label = [f"fused: {len(box['nodes'])} ops", " → ".join(box["ops"])]
        if box["names"] != box["ops"]:
            label.append(" → ".join(box["names"]))
        return {"label": label, "fill": _FUSED_COLOR, "shape": "box3d"}
    label = [box["names"][0], box["ops"][0]]
    attrs = box["key_attrs"][box["names"][0]]
    if attrs:
        label.append(_attr_line(attrs))
    if box["params"]:
        label.append(f"{box['params']:,} params")
    return {"label": label, "fill": op_color(box["ops"][0]), "shape": "box"}


def _planned(model, hide_weights):
    graph = model["planned"]
    hidden = {v["id"] for v in graph["variables"] if v["kind"] == "weight" and hide_weights}
    nodes = [_variable_look(v, "p") for v in graph["variables"] if v["id"] not in hidden]
    for box in graph["boxes"]:
        nodes.append({"id": f"p_{box['id']}", "bold": box["is_output"], **_box_look(box)})
    edges = []
    for i, edge in enumerate(graph["edges"]):
        if edge["source"] in hidden:
            continue
        buffer = None if edge["buffer"] is None else graph["buffers"][edge["buffer"]]
        label = _shape_text(edge["shape"]) if edge["shape"] else ""
        if buffer is not None:
            label += f"  slot {buffer['slot']}"
        edges.append({"id": f"p_e{i}", "source": f"p_{edge['source']}",
                      "target": f"p_{edge['target']}", "label": label,
                      "color": "#555555" if buffer is None else slot_color(buffer["slot"]),
                      "width": 1 if buffer is None else 3})
    return {"nodes": nodes, "edges": edges}


def drawing(model, mode, hide_weights=True):
    """``{"nodes", "edges"}`` to draw for ``mode`` ``"traced"`` or ``"planned"``."""
    if mode == "traced":
        return _traced(model, hide_weights)
    if model.get("planned") is None:
        raise ValueError("this graph has no plan: give the input shapes")
    return _planned(model, hide_weights)


# -- layout and SVG ---------------------------------------------------------------------------
def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot_source(picture, tooltips=None):
    """Graphviz DOT text of a drawing; inputs at the bottom, as mx.viz.plot_network draws."""
    tooltips = tooltips or {}
    lines = ["digraph G {", '  rankdir=BT; bgcolor="transparent"; nodesep=0.25; ranksep=0.35;',
             '  node [fontname="Helvetica", fontsize=10, style="filled,rounded", '
             'margin="0.12,0.05"];',
             '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];']
    for node in picture["nodes"]:
        style = "filled,rounded,bold" if node.get("bold") else "filled,rounded"
        if node["shape"] != "box":
            style = style.replace(",rounded", "")
        lines.append(f"  {_quote(node['id'])} [id={_quote(node['id'])}, "
                     f"label={_quote(chr(10).join(node['label']))}, shape={node['shape']}, "
                     f"fillcolor={_quote(node['fill'])}, style={_quote(style)}, "
                     f"penwidth={2.2 if node.get('bold') else 1}, "
                     f"tooltip={_quote(tooltips.get(node['id'], node['label'][0]))}];")
    for edge in picture["edges"]:
        lines.append(f"  {_quote(edge['source'])} -> {_quote(edge['target'])} "
                     f"[id={_quote(edge['id'])}, label={_quote(edge['label'])}, "
                     f"color={_quote(edge['color'])}, fontcolor={_quote(edge['color'])}, "
                     f"penwidth={edge.get('width', 1)}, "
                     f"tooltip={_quote(tooltips.get(edge['id'], edge['label']))}];")
    lines.append("}")
    return "\n".join(lines)


def has_dot():
    """Whether Graphviz's ``dot`` program is installed."""
    return shutil.which("dot") is not None


def render_svg(picture, tooltips=None, use_dot=None):
    """(svg text, engine): ``"graphviz"`` when ``dot`` laid it out, else ``"fallback"``."""
    if use_dot is None:
        use_dot = has_dot()
    if use_dot:
        result = subprocess.run(["dot", "-Tsvg"], input=dot_source(picture, tooltips).encode(),
                                capture_output=True, timeout=60)
        if result.returncode == 0:
            svg = result.stdout.decode()
            return svg[svg.index("<svg"):], "graphviz"
    return fallback_svg(picture, tooltips), "fallback"


def _ranks(picture):
    """Longest-path layer of each node (inputs at layer 0)."""
    rank = {node["id"]: 0 for node in picture["nodes"]}
    for _ in range(len(rank)):
        changed = False
        for edge in picture["edges"]:
            if edge["source"] in rank and rank[edge["target"]] < rank[edge["source"]] + 1:
                rank[edge["target"]] = rank[edge["source"]] + 1
                changed = True
        if not changed:
            break
    return rank


def fallback_svg(picture, tooltips=None):
    """A layered layout without Graphviz: one row per layer, inputs at the bottom."""
    tooltips, esc = tooltips or {}, html.escape
    rank = _ranks(picture)
    rows = {}
    for node in picture["nodes"]:
        rows.setdefault(rank[node["id"]], []).append(node)
    width_box, height_box, gap_x, gap_y = 170, 16 + 13 * 4, 20, 50
    columns = max(len(row) for row in rows.values())
    width = columns * (width_box + gap_x) + gap_x
    height = len(rows) * (height_box + gap_y) + gap_y
    place = {}
    for layer, row in rows.items():
        offset = (width - len(row) * (width_box + gap_x) + gap_x) / 2
        for position, node in enumerate(row):
            place[node["id"]] = (offset + position * (width_box + gap_x),
                                 height - gap_y - (layer + 1) * (height_box + gap_y) + gap_y)
    parts = ['<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
             'markerUnits="userSpaceOnUse" markerWidth="8" markerHeight="8" orient="auto">'
             '<path d="M0,0L10,5L0,10z"/>'
             '</marker></defs>']
    for edge in picture["edges"]:
        (x1, y1), (x2, y2) = place[edge["source"]], place[edge["target"]]
        x1, x2 = x1 + width_box / 2, x2 + width_box / 2
        parts.append(
            f'<g class="edge" id="{esc(edge["id"])}"><title>'
            f'{esc(tooltips.get(edge["id"], edge["label"]))}</title>'
            f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2 + height_box:.0f}" '
            f'stroke="{edge["color"]}" stroke-width="{edge.get("width", 1)}" '
            f'marker-end="url(#arrow)"/><text x="{(x1 + x2) / 2 + 4:.0f}" '
            f'y="{(y1 + y2 + height_box) / 2:.0f}" font-size="9" fill="{edge["color"]}">'
            f'{esc(edge["label"])}</text></g>')
    for node in picture["nodes"]:
        x, y = place[node["id"]]
        radius = height_box / 2 if node["shape"] == "oval" else 6
        texts = "".join(f'<text x="{x + width_box / 2:.0f}" y="{y + 16 + 13 * i:.0f}" '
                        f'text-anchor="middle" font-size="10">{esc(line)}</text>'
                        for i, line in enumerate(node["label"][:4]))
        parts.append(
            f'<g class="node" id="{esc(node["id"])}"><title>'
            f'{esc(tooltips.get(node["id"], node["label"][0]))}</title>'
            f'<rect x="{x:.0f}" y="{y:.0f}" width="{width_box}" height="{height_box}" '
            f'rx="{radius:.0f}" fill="{node["fill"]}" stroke="black" '
            f'stroke-width="{2.2 if node.get("bold") else 1}"/>{texts}</g>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" style="font-family:sans-serif">'
            + "".join(parts) + "</svg>")


# -- what hovering or clicking shows --------------------------------------------------------
def _node_rows(node):
    rows = [["kind", node["kind"]]]
    for name, shape, dtype in zip(node["outputs"], node["shapes"], node["dtypes"]):
        rows.append([name, f"{_shape_text(shape)} {dtype or ''}".strip()])
    if node["op"] != "null":
        rows.append(["parameters", f"{node['params']:,}"])
    rows += [[key, value] for key, value in node["attrs"].items()]
    return rows


def _buffer_rows(buffer):
    return [["buffer", buffer["value"]], ["shape", _shape_text(buffer["shape"])],
            ["size", _size_text(buffer["bytes"])], ["memory slot", str(buffer["slot"])],
            ["alive", f"steps {buffer['first']}–{buffer['last']}"]]


def details(model, mode):
    """{svg element id: {"title", "rows"}} for every node and edge of ``mode``."""
    result = {}
    if mode == "traced":
        graph = model["traced"]
        for node in graph["nodes"]:
            result[f"t_{node['id']}"] = {"title": f"{node['name']} ({node['op']})",
                                         "rows": _node_rows(node)}
        for i, edge in enumerate(graph["edges"]):
            result[f"t_e{i}"] = {"title": f"{edge['value']} → input '{edge['input']}'",
                                 "rows": [["shape", _shape_text(edge["shape"])],
                                          ["dtype", edge["dtype"] or "?"],
                                          ["size", _size_text(edge["bytes"])]]}
        return result
    graph = model["planned"]
    for variable in graph["variables"]:
        result[f"p_{variable['id']}"] = {"title": f"{variable['name']} (variable)",
                                         "rows": _node_rows(variable)}
    for box in graph["boxes"]:
        rows = [["step", str(box["step"])], ["kind", box["kind"]],
                ["operators", " → ".join(f"{name} ({op})"
                                         for name, op in zip(box["names"], box["ops"]))],
                ["parameters", f"{box['params']:,}"]]
        for name, attrs in box["attrs"].items():
            prefix = f"{name}." if len(box["attrs"]) > 1 else ""
            rows += [[f"{prefix}{key}", value] for key, value in attrs.items()]
        for buffer in graph["buffers"]:
            if buffer["producer"] == box["id"]:
                rows += _buffer_rows(buffer)
        result[f"p_{box['id']}"] = {"title": box["label"], "rows": rows}
    for i, edge in enumerate(graph["edges"]):
        rows = ([["variable", edge["value"]], ["shape", _shape_text(edge["shape"])]]
                if edge["buffer"] is None else _buffer_rows(graph["buffers"][edge["buffer"]]))
        result[f"p_e{i}"] = {"title": edge["value"], "rows": rows}
    return result


def tooltip_texts(info):
    """{element id: one-string tooltip} from ``details`` (shown by SVG titles, no script)."""
    return {key: value["title"] + "\n" + "\n".join(f"{k}: {v}" for k, v in value["rows"][:14])
            for key, value in info.items()}


def caption_html(model, mode):
    """A few lines under the picture: counts for traced, pass results and memory for planned."""
    esc = html.escape
    if mode == "traced":
        graph = model["traced"]
        ops = sum(1 for n in graph["nodes"] if n["op"] != "null")
        return (f"<b>as traced</b>: {ops} operator nodes, "
                f"{len(graph['nodes']) - ops} variables, {len(graph['edges'])} edges, "
                f"{graph['params']:,} parameters")
    graph = model["planned"]
    memory = graph["memory"]
    top = max(memory["unplanned"], 1)
    bars = "".join(
        f'<div style="display:flex;align-items:center;gap:6px;margin:2px 0">'
        f'<span style="width:190px">{esc(name)}</span>'
        f'<span style="display:inline-block;height:10px;width:{240 * value / top:.0f}px;'
        f'background:{color}"></span><span>{_size_text(value)}</span></div>'
        for name, value, color in (("every intermediate kept", memory["unplanned"], "#bbbbbb"),
                                   ("planned peak (live bytes)", memory["planned"], "#0072B2"),
                                   ("shared slots (this drawing)", memory["slots"], "#009E73")))
    removed = ", ".join(f"{r['name']} ({r['op']})" for r in graph["removed"]) or "none"
    fused = sum(1 for b in graph["boxes"] if b["kind"] == "fused")
    folded = sum(1 for b in graph["boxes"] if b["kind"] == "constant")
    slots = " ".join(
        f'<span style="border-left:12px solid {slot_color(s["slot"])};padding:0 6px">'
        f'slot {s["slot"]}: {esc(", ".join(s["values"]))} ({_size_text(s["bytes"])})</span>'
        for s in graph["slots"])
    return (f"<b>after the executor's passes</b>: {graph['nodes_before']} operator nodes → "
            f"{graph['steps_after']} steps; fused groups: {fused}; folded constants: {folded}; "
            f"removed: {esc(removed)}<br>{bars}<div style='line-height:1.8'>{slots}</div>")
