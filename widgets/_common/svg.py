"""Small SVG building blocks for the views' static pictures (no plotting library needed).

The browser side (draw.js) uses the same colour rule, so an operator has one colour
in the live view and in the static picture.
"""
import html
import math

__all__ = ["esc", "category_color", "nice_ticks", "svg_document", "fmt_ms", "SERIES"]

# Colours for a few series told apart at a glance (same list as draw.js's MMX_SERIES).
SERIES = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def esc(text):
    """``text`` safe inside SVG/HTML text and attributes."""
    return html.escape(str(text), quote=True)


# Ten colours told apart at a glance (Tableau 10), given to categories in order of appearance.
CATEGORIES = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
              "#ff9da7", "#9c755f", "#bab0ac")


def category_color(index):
    """The colour of the ``index``-th category (same rule as draw.js's mmxCategoryColor).

    The first ten take the palette; later ones step round the hue circle by the golden
    angle, so no two neighbours in order of appearance get similar hues.
    """
    if index < len(CATEGORIES):
        return CATEGORIES[index]
    return f"hsl({int(index * 137.508) % 360}, 60%, 50%)"


def nice_ticks(low, high, count=6):
    """Round tick values covering [low, high]: steps of 1, 2 or 5 times a power of ten."""
    span = high - low
    if span <= 0:
        return [low]
    rough = span / max(1, count)
    power = 10 ** math.floor(math.log10(rough))
    step = next(power * m for m in (1, 2, 5, 10) if power * m >= rough)
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + 1e-9 * span:
        ticks.append(round(value, 12))
        value += step
    return ticks


def fmt_ms(milliseconds):
    """A duration in milliseconds, with a sensible number of digits."""
    if milliseconds is None:
        return "-"
    if milliseconds >= 1000:
        return f"{milliseconds / 1000:.2f} s"
    if milliseconds >= 10:
        return f"{milliseconds:.1f} ms"
    if milliseconds >= 0.1:
        return f"{milliseconds:.2f} ms"
    return f"{milliseconds * 1000:.0f} us"


def svg_document(width, height, body, label=""):
    """An SVG element of the given size around the ``body`` parts (strings)."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(label)}" '
            f'style="font-family:sans-serif;font-size:11px">' + "".join(body) + "</svg>")
