"""The speedup chart as one SVG: time per forward and engine pushes per forward, per mode.

Lesson: 10-hybridize.  Drawn from ``run_benchmark``'s result only, so the live
view and the static picture in the book are the same image.
"""
import html

__all__ = ["chart_svg", "summary_text", "summary_lines"]

_COLORS = {"imperative": "#D55E00", "hybridized": "#0072B2", "static_alloc": "#56B4E9",
           "numpy": "#7f7f7f"}
# 680 px in all: within the book's text column (688 px), so the text keeps its size there;
# narrower columns scale the whole chart down (width 100%, viewBox) instead of cutting it.
_ROW, _LABEL_W, _BAR_W, _PUSH_W, _TOP = 30, 185, 255, 150, 62
_PUSH_X = _LABEL_W + _BAR_W + 60            # where the pushes column starts


def _time_text(ms):
    return f"{ms * 1000:.0f} µs" if ms < 1 else f"{ms:.2f} ms" if ms < 100 else f"{ms:.0f} ms"


def summary_lines(result):
    """One or two sentences: the measured speedup, the pushes behind it, the numpy floor."""
    by_mode = {r["mode"]: r for r in result["results"]}
    if "imperative" not in by_mode or "hybridized" not in by_mode:
        return ["run the imperative and hybridized modes to compare them"]
    imperative, hybrid = by_mode["imperative"], by_mode["hybridized"]
    lines = [f"hybridize(): {result['speedup']['hybridized']:.2f}× as fast as imperative; "
             f"{imperative['pushes_per_forward']:g} engine pushes per forward became "
             f"{hybrid['pushes_per_forward']:g}."]
    if "numpy" in by_mode:
        share = by_mode["numpy"]["ms_per_call"] / hybrid["ms_per_call"]
        lines.append(f"hand-written numpy (no engine, no graph) needs {share:.0%} of the "
                     f"hybridized time.")
    return lines


def summary_text(result):
    return " ".join(summary_lines(result))


def chart_svg(result, title=None):
    """An SVG bar chart of ``result`` (see ``run_benchmark``)."""
    rows = result["results"]
    config = result["config"]
    esc = html.escape
    top_ms = max((r["ms_per_call"] for r in rows), default=1) or 1
    top_push = max((r["pushes_per_forward"] for r in rows), default=1) or 1
    width = _LABEL_W + _BAR_W + _PUSH_W + 90
    height = _TOP + _ROW * max(len(rows), 1) + 60
    title = title or (f"batch {config['batch_size']}, {config['in_units']} → "
                      f"{' → '.join(map(str, config['widths']))} → {config['out_units']}, "
                      f"{config['calls']} calls, {config['engine_type']}")
    # each column's header in two short lines, so neither runs into the next column
    parts = [f'<text x="8" y="16" font-weight="bold">{esc(title)}</text>',
             f'<text x="{_LABEL_W}" y="36" fill="#555">time per forward (best of '
             f'{config["repeats"]})</text>',
             f'<text x="{_LABEL_W}" y="51" fill="#555">×: speedup over imperative</text>',
             f'<text x="{_PUSH_X}" y="36" fill="#555">engine pushes</text>',
             f'<text x="{_PUSH_X}" y="51" fill="#555">per forward</text>']
    for i, r in enumerate(rows):
        y = _TOP + i * _ROW
        color = _COLORS.get(r["mode"], "#999")
        bar = max(1.0, _BAR_W * 0.8 * r["ms_per_call"] / top_ms)
        push = _PUSH_W * 0.8 * r["pushes_per_forward"] / top_push
        speed = result["speedup"].get(r["mode"])
        speed_text = "" if speed is None or r["mode"] == "imperative" else f"  ×{speed:.2f}"
        parts.append(
            f'<g class="mx-hs-row" data-mode="{esc(r["mode"])}">'
            f'<title>{esc(r["label"])}: {r["ms_per_call"]:.4f} ms per forward, first call '
            f'{r["first_call_ms"]:.2f} ms, {r["pushes_per_forward"]:g} pushes per forward '
            f'({esc(", ".join(r["pushed_ops"]) or "none")}), max |difference| from numpy '
            f'{r["max_abs_diff"]:.2g}</title>'
            f'<text x="{_LABEL_W - 8}" y="{y + 15}" text-anchor="end">{esc(r["label"])}</text>'
            f'<rect x="{_LABEL_W}" y="{y + 3}" width="{bar:.1f}" height="{_ROW - 10}" '
            f'fill="{color}"/><text x="{_LABEL_W + bar + 4:.1f}" y="{y + 15}">'
            f'{_time_text(r["ms_per_call"])}{speed_text}</text>'
            f'<rect x="{_PUSH_X}" y="{y + 3}" width="{push:.1f}" '
            f'height="{_ROW - 10}" fill="{color}" opacity="0.6"/>'
            f'<text x="{_PUSH_X + 4 + push:.1f}" y="{y + 15}">'
            f'{r["pushes_per_forward"]:g}</text></g>')
    for i, line in enumerate(summary_lines(result)):
        parts.append(f'<text x="8" y="{height - 38 + 16 * i}">{esc(line)}</text>')
    machine = result["machine"]
    parts.append(f'<text x="8" y="{height - 6}" fill="#777" font-size="10">measured here: '
                 f'Python {esc(machine["python"])}, numpy {esc(machine["numpy"])}, '
                 f'{machine["cpus"]} CPUs ({esc(machine["processor"])})</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="mx-hybridize-chart" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'style="width:100%;max-width:{width}px;height:auto;font-family:sans-serif;'
            f'font-size:12px">' + "".join(parts) + "</svg>")
