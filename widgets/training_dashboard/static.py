"""The training dashboard as one static SVG: for pages and viewers that run no widget code.

Lesson: 12-training-with-module.  Draws the same data as view.js at its final state: a line
of text (epoch, batch, samples per second, time), the progress bars of the
epoch and of the run, and one panel per curve (each loss or metric, then the
samples per second) against the batch number, with the epochs' boundaries and
any validation values.
"""
from .._common.svg import esc, nice_ticks, svg_document

__all__ = ["render_svg", "render_html", "status_text", "panel_layout", "PANEL", "SERIES_COLORS"]

WIDTH = 820
PANEL = {"width": 350, "height": 150, "left": 52, "top": 92, "gap_x": 60, "gap_y": 44}
SERIES_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
SPEED = "samples/sec"


def status_text(data):
    """The line of text above the bars (also the widget's headline)."""
    if not data["batches"]:
        return "waiting for the first batch..."
    progress = data["progress"]
    epochs = f"/{data['num_epochs']}" if data["num_epochs"] else ""
    batches = f"/{data['batches_per_epoch']}" if data["batches_per_epoch"] else ""
    speed = data["current_speed"]
    average = data["average_speed"]
    speed_text = f"{speed:,.0f} samples/s" if speed else "- samples/s"
    if average:
        speed_text += f" (average {average:,.0f})"
    # epochs and batches count from 1 here, as the totals do (MXNet's epoch 0 is "epoch 1/N")
    parts = [f"epoch {progress['epoch'] + 1}{epochs}", f"batch {progress['batch'] + 1}{batches}",
             speed_text, f"{data['samples']:,} samples in {data['elapsed']:.2f} s"]
    return "  ·  ".join(parts)


def panel_layout(count):
    """The top-left corner of each of ``count`` panels (two per row) and the total height."""
    corners = []
    for index in range(count):
        row, column = divmod(index, 2)
        corners.append((PANEL["left"] + column * (PANEL["width"] + PANEL["gap_x"]),
                        PANEL["top"] + row * (PANEL["height"] + PANEL["gap_y"])))
    rows = (count + 1) // 2
    return corners, PANEL["top"] + rows * (PANEL["height"] + PANEL["gap_y"]) - 10


def _bar(y, label, fraction):
    width = WIDTH - 140
    filled = 0 if fraction is None else width * fraction
    text = "?" if fraction is None else f"{100 * fraction:.0f}%"
    return [f'<text x="4" y="{y + 11}">{esc(label)}</text>',
            f'<rect x="90" y="{y}" width="{width}" height="14" fill="#eee" stroke="#bbb"/>',
            f'<rect x="90" y="{y}" width="{filled:.1f}" height="14" fill="#5b9bd5"/>',
            f'<text x="{96 + width}" y="{y + 11}">{text}</text>']


def _panel(x0, y0, name, steps, values, data, color):
    width, height = PANEL["width"], PANEL["height"]
    pairs = [(s, v) for s, v in zip(steps, values) if v is not None]
    if name != SPEED:
        pairs += [(item["step"], item["values"][name]) for item in data["validation"]
                  if item["values"].get(name) is not None]
    parts = [f'<rect x="{x0}" y="{y0}" width="{width}" height="{height}" fill="#fff" '
             f'stroke="#888"/>', f'<text x="{x0}" y="{y0 - 5}" font-weight="bold">'
             f'{esc(name)}</text>']
    if not pairs:
        return parts
    last_step = max(1, data["step"][-1])
    low, high = min(v for _, v in pairs), max(v for _, v in pairs)
    if high - low < 1e-12:
        low, high = low - 0.5, high + 0.5

    def px(step):
        return x0 + step / last_step * width

    def py(value):
        return y0 + height - (value - low) / (high - low) * height
    for tick in nice_ticks(low, high, 4):
        parts.append(f'<line x1="{x0}" x2="{x0 + width}" y1="{py(tick):.1f}" y2="{py(tick):.1f}"'
                     f' stroke="#eee"/><text x="{x0 - 4}" y="{py(tick) + 4:.1f}" '
                     f'text-anchor="end" fill="#555">{tick:g}</text>')
    for start in data["epoch_starts"]:
        parts.append(f'<line x1="{px(start):.1f}" x2="{px(start):.1f}" y1="{y0}" '
                     f'y2="{y0 + height}" stroke="#bbb" stroke-dasharray="3,3"/>')
    points = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in zip(steps, values) if v is not None)
    parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="1.5"/>')
    if name != SPEED:
        for item in data["validation"]:
            value = item["values"].get(name)
            if value is not None:
                parts.append(f'<circle cx="{px(item["step"]):.1f}" cy="{py(value):.1f}" r="4" '
                             f'fill="#fff" stroke="{color}" stroke-width="2"><title>validation '
                             f'{esc(name)} = {value:g} (epoch {item["epoch"] + 1})</title>'
                             f'</circle>')
    parts.append(f'<text x="{x0 + width}" y="{y0 + height + 14}" text-anchor="end" '
                 f'fill="#555">batch {data["step"][-1] + 1}</text>')
    return parts


def render_svg(data, title=""):
    """SVG text for a dict from ``TrainingHistory.to_dict``."""
    names = list(data["names"]) + [SPEED]
    corners, height = panel_layout(len(names))
    body = [f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
            f'<text x="4" y="14" font-weight="bold">{esc((title + ": ") if title else "")}'
            f'{esc(status_text(data))}</text>']
    progress = data["progress"]
    body += _bar(26, "epoch", progress["epoch_fraction"])
    body += _bar(46, "run", progress["run_fraction"])
    for index, (name, (x0, y0)) in enumerate(zip(names, corners)):
        values = data["speed"] if name == SPEED else data["values"][name]
        color = SERIES_COLORS[index % len(SERIES_COLORS)]
        if data["step"]:
            body += _panel(x0, y0, name, data["step"], values, data, color)
    return svg_document(WIDTH, height, body, label=status_text(data))


def render_html(data, title=""):
    """The SVG in a div: the static fallback of the widget."""
    return f'<div class="mmx-dashboard">{render_svg(data, title)}</div>'
