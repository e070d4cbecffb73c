"""The optimizer trajectories as one static SVG: for pages and viewers that run no widget code.

Lesson: 13-optimizers.  Draws the same data as view.js at its final step: the
contour bands and lines of the objective, each optimizer's path with its end
point, and beside it the loss of each optimizer against the step (as
``f - f_min`` on a log scale, so "how far from the optimum" reads at a glance).
"""
import math

from .._common.svg import esc, nice_ticks, svg_document

__all__ = ["render_svg", "render_html", "band_color", "LAYOUT"]

# the picture's geometry, shared with view.js: contour panel, then the loss panel
LAYOUT = {"width": 820, "height": 420, "plot": [46, 48, 420, 330], "loss": [540, 48, 260, 330]}
_BAND_STOPS = ((255, 248, 220), (200, 233, 190), (150, 200, 230))


def band_color(fraction):
    """The fill of a contour band, from pale yellow (low loss) to pale blue (high loss)."""
    fraction = min(max(fraction, 0.0), 1.0) * (len(_BAND_STOPS) - 1)
    index = min(int(fraction), len(_BAND_STOPS) - 2)
    t = fraction - index
    rgb = [round(a + (b - a) * t) for a, b in zip(_BAND_STOPS[index], _BAND_STOPS[index + 1])]
    return "#%02x%02x%02x" % tuple(rgb)


def _data_frame(box, plot):
    """An inner ``<svg>`` whose user units are data coordinates (y up), clipped to ``plot``.

    Its viewBox spans the box with y negated, and its content sits in a ``scale(1,-1)``
    group; strokes use ``vector-effect="non-scaling-stroke"`` so widths stay in pixels.
    """
    x_min, x_max, y_min, y_max = box
    left, top, width, height = plot
    return (f'<svg x="{left}" y="{top}" width="{width}" height="{height}" '
            f'viewBox="{x_min:g} {-y_max:g} {x_max - x_min:g} {y_max - y_min:g}" '
            f'preserveAspectRatio="none"><g transform="scale(1,-1)">')


def _to_pixels(box, plot, x, y):
    left, top, width, height = plot
    return (left + (x - box[0]) / (box[1] - box[0]) * width,
            top + height - (y - box[2]) / (box[3] - box[2]) * height)


def _surface_parts(data):
    box, plot = data["objective"]["box"], LAYOUT["plot"]
    left, top, width, height = plot
    bands = data["surface"]["bands"]
    parts = [f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="#fff"/>',
             _data_frame(box, plot)]
    for index, band in enumerate(bands):
        parts.append(f'<path d="{band["d"]}" fill="{band_color(index / max(1, len(bands) - 1))}"'
                     f' fill-rule="evenodd" stroke="none"/>')
    for line in data["surface"]["lines"]:
        parts.append(f'<path d="{line["d"]}" fill="none" stroke="#8a9aa8" stroke-width="0.6" '
                     f'vector-effect="non-scaling-stroke"/>')
    for path in data["paths"]:
        points = " ".join(f"{x:.5g},{y:.5g}" for x, y in path["points"])
        parts.append(f'<polyline points="{points}" fill="none" stroke="{path["color"]}" '
                     f'stroke-width="2" vector-effect="non-scaling-stroke">'
                     f'<title>{esc(path["name"])}</title></polyline>')
    parts.append("</g></svg>")
    for path in data["paths"]:
        px, py = _to_pixels(box, plot, *path["points"][-1])
        if not (left <= px <= left + width and top <= py <= top + height):
            continue                    # the path left the picture: no end marker
        parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{path["color"]}" '
                     f'stroke="#fff"/>')
    px, py = _to_pixels(box, plot, *data["objective"]["minimum"])
    parts.append(f'<text x="{px:.1f}" y="{py + 4:.1f}" text-anchor="middle" font-size="13" '
                 f'fill="#333">★<title>minimum</title></text>')
    px, py = _to_pixels(box, plot, *data["settings"]["start"])
    parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="#222"><title>start</title>'
                 f'</circle>')
    return parts + _axes(box, plot)


def _axes(box, plot):
    left, top, width, height = plot
    x_min, x_max, y_min, y_max = box
    parts = [f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="none" '
             f'stroke="#666"/>']
    for tick in nice_ticks(x_min, x_max, 6):
        px = left + (tick - x_min) / (x_max - x_min) * width
        parts.append(f'<text x="{px:.1f}" y="{top + height + 14}" text-anchor="middle" '
                     f'fill="#555">{tick:g}</text>')
    for tick in nice_ticks(y_min, y_max, 6):
        py = top + height - (tick - y_min) / (y_max - y_min) * height
        parts.append(f'<text x="{left - 4}" y="{py + 4:.1f}" text-anchor="end" '
                     f'fill="#555">{tick:g}</text>')
    return parts


def loss_gap(loss, f_min):
    """What the loss panel plots: ``loss - f_min``, floored so the log scale stays finite."""
    return max(loss - f_min, 1e-12)


def _loss_parts(data):
    left, top, width, height = LAYOUT["loss"]
    f_min = data["objective"]["f_min"]
    steps = max(1, data["settings"]["steps"])
    gaps = [loss_gap(v, f_min) for p in data["paths"] for v in p["losses"]]
    low = math.floor(math.log10(min(gaps)))
    high = math.ceil(math.log10(max(gaps)))
    high = max(high, low + 1)

    def y_of(value):
        return top + height - (math.log10(loss_gap(value, f_min)) - low) / (high - low) * height
    parts = [f'<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="#fff" '
             f'stroke="#666"/>',
             f'<text x="{left + width / 2}" y="{top - 4}" text-anchor="middle">'
             f'loss − f_min (log scale) against step</text>']
    step_exp = max(1, math.ceil((high - low) / 6))
    for exponent in range(low, high + 1, step_exp):
        py = top + height - (exponent - low) / (high - low) * height
        parts.append(f'<line x1="{left}" x2="{left + width}" y1="{py:.1f}" y2="{py:.1f}" '
                     f'stroke="#eee"/><text x="{left - 4}" y="{py + 4:.1f}" text-anchor="end" '
                     f'fill="#555">1e{exponent}</text>')
    for tick in nice_ticks(0, steps, 5):
        px = left + tick / steps * width
        parts.append(f'<text x="{px:.1f}" y="{top + height + 14}" text-anchor="middle" '
                     f'fill="#555">{tick:g}</text>')
    for path in data["paths"]:
        points = " ".join(f"{left + k / steps * width:.1f},{y_of(v):.1f}"
                          for k, v in enumerate(path["losses"]))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{path["color"]}" '
                     f'stroke-width="1.5"/>')
    return parts


def _legend(data):
    left, top, _, height = LAYOUT["plot"]
    parts, x = [], left
    for path in data["paths"]:
        label = path["name"] + (" (diverged)" if path["diverged"] else "")
        parts.append(f'<rect x="{x}" y="{top + height + 24}" width="12" height="12" '
                     f'fill="{path["color"]}"/><text x="{x + 16}" y="{top + height + 34}">'
                     f'{esc(label)}</text>')
        x += 26 + 7.5 * len(label)
    return parts


def headline(data):
    """The two lines above the picture: the objective, then the settings of the run."""
    s = data["settings"]
    return (f'{data["objective"]["title"]}: f(x, y) = {data["objective"]["formula"]}',
            f'{s["steps"]} steps from ({s["start"][0]:g}, {s["start"][1]:g}); learning rate '
            f'{s["lr"]:g} (SGD, momentum, NAG), {s["adaptive_lr"]:g} (AdaGrad, RMSProp, '
            f'Adam); momentum {s["momentum"]:g}')


def render_svg(data):
    """SVG text for a dict from ``compute_paths``."""
    body = [f'<rect width="{LAYOUT["width"]}" height="{LAYOUT["height"]}" fill="white"/>',
            f'<text x="4" y="14" font-weight="bold">{esc(headline(data)[0])}</text>',
            f'<text x="4" y="29" fill="#444">{esc(headline(data)[1])}</text>']
    body += _surface_parts(data) + _loss_parts(data) + _legend(data)
    return svg_document(LAYOUT["width"], LAYOUT["height"], body, label=headline(data)[0])


def render_html(data):
    """The SVG in a div: the static fallback of the widget."""
    return f'<div class="mmx-optimizer-paths">{render_svg(data)}</div>'
