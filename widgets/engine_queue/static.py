"""The engine queue view as one static SVG: for pages and viewers that run no widget code.

Lesson: 05-lazy-evaluation.  Draws the same payload as view.js, at its final
state: one lane per frontend thread (push ticks) and per worker (run bars, or
busy bins for long runs), the blocking dependency edges, and the queue depth
below.  Hovering a bar shows its ``<title>`` (name, vars, durations).  Each
operator name gets a palette colour in order of first appearance.  A sync point is a grey
band on its frontend lane while the thread waited; one of a value-dependent shape is drawn in
``VALUE_DEPENDENT_COLOUR`` with a diamond where it began.
"""
from .._common.svg import category_color, esc, fmt_ms, nice_ticks, svg_document

__all__ = ["render_svg", "render_html", "op_tooltip", "sync_tooltip", "edge_path",
           "bar_width", "SYNC_COLOUR", "VALUE_DEPENDENT_COLOUR"]

WIDTH, LABEL, LANE, DEPTH_HEIGHT, TOP = 860, 170, 26, 90, 22
SYNC_COLOUR, VALUE_DEPENDENT_COLOUR = "#9aa5b1", "#8e2c9a"


def op_tooltip(data, op):
    """The text shown when hovering an operation (also used by the tests)."""
    op_id, name_index, _, _, push, ready, start, end, reads, writes, error = op
    labels = data["var_labels"]

    def var_list(ids):
        return ", ".join(labels.get(str(v), f"var {v}") for v in ids) or "-"
    lines = [f"{data['names'][name_index]} (op {op_id})", f"reads: {var_list(reads)}",
             f"writes: {var_list(writes)}"]
    if push is not None and start is not None:
        waited = f", waited for inputs {fmt_ms(ready - push)}" if ready is not None else ""
        lines.append(f"queued {fmt_ms(start - push)}{waited}")
    if start is not None and end is not None:
        lines.append(f"ran {fmt_ms(end - start)}")
    if error:
        lines.append(f"error: {error}")
    return "\n".join(lines)


def sync_tooltip(data, sync):
    """The text shown when hovering a sync point (also used by the tests)."""
    _, begin, end, var, op_id, op_name, reason, value_dependent = sync
    what = "every pushed operation" if var is None else \
        data["var_labels"].get(str(var), f"var {var}")
    lines = [f"sync point: {reason}" + (" (the result's shape needs the input's values)"
                                        if value_dependent else ""),
             f"waited {fmt_ms(end - begin)} for {what}"]
    lines.append(f"until {op_name} (op {op_id}) finished" if op_id is not None
                 else "nothing was pending")
    return "\n".join(lines)


def render_svg(data):
    """SVG text for a payload from ``build_payload``."""
    lanes = data["lanes"]
    t_end = max(data["t_end"] or 0.0, 1e-3)
    plot = WIDTH - LABEL - 10
    height = TOP + LANE * len(lanes) + 30 + DEPTH_HEIGHT + 24

    def x(ms):
        return LABEL + plot * (ms or 0.0) / t_end
    body = [f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
            f'<text x="4" y="14" font-weight="bold">{esc(_headline(data))}</text>']
    body += _axis(x, t_end, TOP + LANE * len(lanes))
    for index, (name, kind) in enumerate(lanes):
        y = TOP + index * LANE
        fill = "#eef3fb" if kind == "frontend" else "#f6f6f6"
        body.append(f'<rect x="{LABEL}" y="{y + 2}" width="{plot}" height="{LANE - 4}" '
                    f'fill="{fill}"/>')
        label = f"{name} (pushes)" if kind == "frontend" else name
        body.append(f'<text x="4" y="{y + LANE / 2 + 4}">{esc(label[:26])}</text>')
    if data["aggregated"]:
        body += _bins(data, x)
    else:
        body += _ops(data, x) + _edges(data, x)     # edges on top, so none hides under a bar
    body += _syncs(data, x)
    body += _depth(data, x, TOP + LANE * len(lanes) + 30)
    body += _sync_legend(data, TOP + LANE * len(lanes) + 30)
    return svg_document(WIDTH, height, body, label=_headline(data))


def render_html(data):
    """The SVG in a div, with a caption: the ``text/html`` fallback."""
    return (f'<div class="minimx-engine-queue-static">{render_svg(data)}'
            f'<div style="font:11px sans-serif;color:#555">Engine queue recorded on this '
            f'machine (static picture; the interactive view needs a widget-enabled '
            f'Jupyter).</div></div>')


def _headline(data):
    summary = data["summary"]
    text = (f"{summary['operations']} ops: last pushed at {fmt_ms(summary['last_push_ms'])}, "
            f"all finished at {fmt_ms(summary['finished_ms'])}; workers busy "
            f"{fmt_ms(summary['busy_ms'])} (x{summary['parallelism']:.2f} parallel); "
            f"deepest queue {summary['max_depth']}")
    if summary["errors"]:
        text += f"; {summary['errors']} failed"
    return (data["title"] + ": " if data["title"] else "") + text


def _axis(x, t_end, y):
    parts = []
    for tick in nice_ticks(0.0, t_end):
        parts.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{TOP}" y2="{y + 4}" '
                     f'stroke="#ddd"/>')
        parts.append(f'<text x="{x(tick):.1f}" y="{y + 16}" text-anchor="middle" '
                     f'fill="#555">{tick:g}</text>')
    # in the label column, left of the "0" tick: clear of every tick number
    parts.append(f'<text x="{LABEL - 8}" y="{y + 16}" text-anchor="end" fill="#555">'
                 f'time (ms)</text>')
    return parts


def bar_width(pixels):
    """Drawn width of a run bar: 1 px short of its time, so back-to-back runs show a gap."""
    return max(1.0, pixels - 1.0)


def edge_path(x1, top1, x2, top2):
    """SVG path of a dependency edge from where one op ends (``x1``, in the lane at ``top1``)
    to where the other starts (``x2``, lane at ``top2``): a hump over the bars in one lane,
    an S-curve bulging right between lanes; visible even when ``x2 == x1``."""
    if top1 == top2:
        pad = max(0.0, (8.0 - (x2 - x1)) / 2)
        left, right, y = x1 - pad, x2 + pad, top1 + 4
        return (f"M{left:.1f},{y:.1f} C{left:.1f},{y - 9:.1f} {right:.1f},{y - 9:.1f} "
                f"{right:.1f},{y:.1f}")
    y1, y2 = top1 + LANE / 2, top2 + LANE / 2
    bulge = max(16.0, abs(x2 - x1) / 2)
    return (f"M{x1:.1f},{y1:.1f} C{x1 + bulge:.1f},{y1:.1f} {x2 - bulge:.1f},{y2:.1f} "
            f"{x2:.1f},{y2:.1f}")


def _lane_y(lane):
    return TOP + lane * LANE


def _ops(data, x):
    parts = []
    for op in data["ops"]:
        colour = category_color(op[1])
        title = f"<title>{esc(op_tooltip(data, op))}</title>"
        if op[2] is not None and op[4] is not None:
            px = x(op[4])
            parts.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{_lane_y(op[2]) + 4}" '
                         f'y2="{_lane_y(op[2]) + LANE - 4}" stroke="{colour}" '
                         f'stroke-width="2">{title}</line>')
        if op[3] is not None and op[6] is not None:
            end = op[7] if op[7] is not None else data["t_end"]
            width = bar_width(x(end) - x(op[6]))
            stroke = ' stroke="#c00" stroke-width="2"' if op[10] else ""
            parts.append(f'<rect x="{x(op[6]):.1f}" y="{_lane_y(op[3]) + 4}" '
                         f'width="{width:.1f}" height="{LANE - 8}" fill="{colour}"'
                         f'{stroke}>{title}</rect>')
    return parts


def _syncs(data, x):
    parts = []
    for sync in data["syncs"]:
        lane, begin, end, value_dependent = sync[0], sync[1], sync[2], sync[7]
        if lane is None:
            continue
        top = _lane_y(lane)
        colour = VALUE_DEPENDENT_COLOUR if value_dependent else SYNC_COLOUR
        kind = "mmx-sync mmx-sync-value" if value_dependent else "mmx-sync"
        title = f"<title>{esc(sync_tooltip(data, sync))}</title>"
        parts.append(f'<rect class="{kind}" x="{x(begin):.1f}" y="{top + 6}" '
                     f'width="{max(2.0, x(end) - x(begin)):.1f}" height="{LANE - 12}" '
                     f'fill="{colour}" fill-opacity="0.55">{title}</rect>')
        if value_dependent:
            px, py = x(begin), top + LANE / 2
            diamond = (f"M{px:.1f},{py - 6:.1f} L{px + 5:.1f},{py:.1f} "
                       f"L{px:.1f},{py + 6:.1f} L{px - 5:.1f},{py:.1f} Z")
            parts.append(f'<path class="mmx-sync-mark" d="{diamond}" fill="{colour}">'
                         f'{title}</path>')
    return parts


def _sync_legend(data, top):
    """Under the depth legend, when there are sync points: their colours and how many."""
    summary = data["summary"]
    if not summary["syncs"]:
        return []
    return [f'<text x="{WIDTH - 10}" y="{top + 38}" text-anchor="end" fill="{SYNC_COLOUR}">'
            f'sync points: {summary["syncs"]}</text>',
            f'<text x="{WIDTH - 10}" y="{top + 52}" text-anchor="end" '
            f'fill="{VALUE_DEPENDENT_COLOUR}">value-dependent: '
            f'{summary["value_dependent_syncs"]}</text>']


def _edges(data, x):
    parts = []
    ops = data["ops"]
    for src, dst, _, _, blocking in data["edges"]:
        a, b = ops[src], ops[dst]
        if not blocking or a[3] is None or b[3] is None or a[7] is None or b[6] is None:
            continue
        path = edge_path(x(a[7]), _lane_y(a[3]), x(b[6]), _lane_y(b[3]))
        parts.append(f'<path d="{path}" fill="none" stroke="#555" stroke-width="1" '
                     f'stroke-dasharray="3,2" pointer-events="none"/>')
    return parts


def _bins(data, x):
    bins, parts = data["bins"], []
    width = max(1.0, x(bins["width_ms"]) - x(0))
    for lane, row in enumerate(bins["lanes"]):
        frontend = data["lanes"][lane][1] == "frontend"
        peak = max(row, default=0) or 1
        for index, value in enumerate(row):
            if not value:
                continue
            share = value / peak if frontend else min(1.0, value)
            height = (LANE - 8) * share
            names = ", ".join(f"{n} x{c}" for n, c in bins["names"][index])
            what = f"{value} pushes" if frontend else f"busy {100 * value:.0f}%: {names}"
            parts.append(f'<rect x="{x(bins["start"][index]):.1f}" '
                         f'y="{_lane_y(lane) + LANE - 4 - height:.1f}" width="{width:.1f}" '
                         f'height="{height:.1f}" fill="{"#5b8bd0" if frontend else "#6a6"}">'
                         f'<title>{esc(what)}</title></rect>')
    return parts


def _depth(data, x, top):
    points = data["depth"]
    peak = max((p[1] for p in points), default=0) or 1
    y0 = top + DEPTH_HEIGHT

    def y(value):
        return y0 - DEPTH_HEIGHT * value / peak
    parts = [f'<text x="4" y="{top + 12}">queue depth</text>',
             f'<text x="4" y="{top + 26}" fill="#555">(pending ops, max {peak})</text>',
             f'<line x1="{LABEL}" x2="{WIDTH - 10}" y1="{y0}" y2="{y0}" stroke="#999"/>']
    for column, colour in ((1, "#d07b2b"), (2, "#3a8a3a")):
        path, previous = [], None
        for point in points:
            if previous is not None:
                path.append(f"{x(point[0]):.1f},{y(previous):.1f}")
            path.append(f"{x(point[0]):.1f},{y(point[column]):.1f}")
            previous = point[column]
        parts.append(f'<polyline points="{" ".join(path)}" fill="none" stroke="{colour}" '
                     f'stroke-width="1.5"/>')
    parts.append(f'<text x="{WIDTH - 10}" y="{top + 10}" text-anchor="end" fill="#d07b2b">'
                 f'pending</text><text x="{WIDTH - 10}" y="{top + 24}" text-anchor="end" '
                 f'fill="#3a8a3a">running</text>')
    return parts
