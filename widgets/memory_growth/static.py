"""The memory view as one static SVG line plot, for pages that run no widget code.

Lesson: 05-lazy-evaluation.  Same payload as view.js: one line per case (MB above
its baseline over time), a dot where the Python loop returned and a ring where
all its work had finished.
"""
from .._common.svg import SERIES, esc, nice_ticks, svg_document

__all__ = ["render_svg", "render_html", "legend_line"]

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 760, 310, 60, 20, 40, 40


def legend_line(run):
    """One line of legend text for a run (also used by view.js's twin and the tests)."""
    text = f"{run['label']}: +{run['growth_mb']:.0f} MB"
    if run["loop_s"] is not None:
        text += f", loop returned after {run['loop_s']:.2f} s"
    if run["finished_s"] is not None:
        text += f", finished after {run['finished_s']:.2f} s"
    return text


def render_svg(data):
    """SVG text for a payload from ``build_payload``."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    t_end, y_max = data["t_end"], data["y_max"] * 1.05

    def x(t):
        return LEFT + plot_w * t / t_end

    def y(mb):
        return TOP + plot_h * (1 - max(0.0, mb) / y_max)
    params = data["params"]
    title = data["title"] or (f"Resident memory while pushing {params['batches']} batches of "
                              f"{params['batch_size']}x1024")
    body = [f'<rect width="{WIDTH}" height="{HEIGHT + 18 * len(data["runs"])}" fill="white"/>',
            f'<text x="4" y="16" font-weight="bold">{esc(title)}</text>']
    for tick in nice_ticks(0.0, t_end):
        body.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{TOP}" '
                    f'y2="{TOP + plot_h}" stroke="#eee"/><text x="{x(tick):.1f}" '
                    f'y="{TOP + plot_h + 14}" text-anchor="middle" fill="#555">{tick:g}</text>')
    for tick in nice_ticks(0.0, y_max, 5):
        body.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(tick):.1f}" '
                    f'y2="{y(tick):.1f}" stroke="#eee"/><text x="{LEFT - 4}" '
                    f'y="{y(tick) + 4:.1f}" text-anchor="end" fill="#555">{tick:g}</text>')
    body.append(f'<text x="{LEFT + plot_w}" y="{TOP + plot_h + 30}" text-anchor="end" '
                f'fill="#555">seconds since the case began</text><text x="4" y="{TOP - 16}" '
                f'fill="#555">MB above baseline</text>')    # clear of a tick at the top
    for index, run in enumerate(data["runs"]):
        body += _run(run, x, y, HEIGHT + 18 * index, SERIES[index % len(SERIES)])
    return svg_document(WIDTH, HEIGHT + 18 * len(data["runs"]), body, label=title)


def _run(run, x, y, legend_y, colour):
    points = " ".join(f"{x(t):.1f},{y(mb):.1f}" for t, mb in zip(run["t"], run["mb"]))
    parts = [f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2">'
             f'<title>{esc(legend_line(run))}</title></polyline>']
    for moment, fill in ((run["loop_s"], colour), (run["finished_s"], "white")):
        if moment is not None and run["t"]:
            level = _value_at(run, moment)
            parts.append(f'<circle cx="{x(moment):.1f}" cy="{y(level):.1f}" r="4" fill="{fill}" '
                         f'stroke="{colour}" stroke-width="2"/>')
    parts.append(f'<rect x="{LEFT}" y="{legend_y - 9}" width="14" height="4" fill="{colour}"/>'
                 f'<text x="{LEFT + 20}" y="{legend_y - 4}">{esc(legend_line(run))}</text>')
    return parts


def _value_at(run, moment):
    value = run["mb"][0]
    for t, mb in zip(run["t"], run["mb"]):
        if t > moment:
            break
        value = mb
    return value


def render_html(data):
    """The SVG in a div with a caption: the ``text/html`` fallback."""
    return (f'<div class="minimx-memory-static">{render_svg(data)}<div style="font:11px '
            f'sans-serif;color:#555">Measured on this machine. Filled dot: the Python loop '
            f'returned; ring: all its work finished (static picture).</div></div>')
