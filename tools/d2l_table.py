"""The pages of a run of tools/run_d2l_pages.sh as one Markdown table: both sides' outcome,
time and figures, a row a page.

    python tools/d2l_table.py WORK/keep RUN.json [MORE.json ...] > table.md

Each JSON file is what ``tools/run_chapters.py --json`` wrote; a page in a later file
replaces the same page in an earlier one (a page run again).  The figures are the
``d2l figure N: label = value`` lines that ``D2L_PRINT_FIGURES=1`` makes the pages print
(tools/d2l_site/sitecustomize.py), read from the outputs the runner keeps; a page without
them shows its last printed line.  A side that failed shows its error line instead.
"""
import json
import pathlib
import re
import sys

FIGURE = re.compile(r"^d2l figure (\d+): (.+?) = (\S+) at x = (\S+)$")
TERMINAL_CODES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")     # a progress bar's line clearing


def plain(text, width):
    """``text`` without terminal codes or table bars, cut to ``width`` characters."""
    return TERMINAL_CODES.sub("", text).replace("|", "/").strip()[:width]


def script_stem(chapter):
    """The name tools/run_chapters.py gives a page's script in its keep folder."""
    page = pathlib.Path(chapter)
    return re.sub(r"[^\w.-]", "_", f"{page.parent.name}__{page.stem}")


def figures(output):
    """'label value; ...' of the figure lines in a kept output ('' when there are none)."""
    if not output.exists():
        return ""
    found = [FIGURE.match(line.strip()) for line in output.read_text(errors="replace")
             .splitlines()]
    many = len({match.group(1) for match in found if match}) > 1
    return "; ".join(f"{'%s: ' % match.group(1) if many else ''}{match.group(2)} "
                     f"{float(match.group(3)):.4g}" for match in found if match)


def cell(side, output):
    """What one side of a page shows in the table."""
    if side is None:
        return "not run"
    if not side["ok"]:
        return "FAIL: " + plain(side["last"], 120)
    return figures(output) or plain(side["last"], 80)


def rows(keep, results):
    for row in results:
        stem = keep / script_stem(row["chapter"])
        mine, theirs = row["minimx"], row.get("reference")
        ratio = (f"{mine['seconds'] / theirs['seconds']:.2f}"
                 if theirs and theirs["seconds"] else "-")
        page = "/".join(pathlib.Path(row["chapter"]).parts[-2:])
        page = page.replace("chapter_", "").replace(".md", "")
        edited = f" ({row['edits']} edited)" if row.get("edits") else ""
        yield (f"| {page}{edited} | {mine['seconds']:.1f} | "
               f"{'%.1f' % theirs['seconds'] if theirs else '-'} | {ratio} | "
               f"{cell(mine, stem.with_suffix('.minimx.out'))} | "
               f"{cell(theirs, stem.with_suffix('.reference.out'))} |")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    keep = pathlib.Path(argv[0])
    pages = {}
    for path in argv[1:]:
        for row in json.loads(pathlib.Path(path).read_text()):
            pages[row["chapter"]] = row
    print("| page | minimx s | MXNet s | ratio | minimx figures | MXNet figures |")
    print("|---|---|---|---|---|---|")
    for line in rows(keep, sorted(pages.values(), key=lambda row: row["chapter"])):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
