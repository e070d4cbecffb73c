"""Build the course site from book.yml with Jupyter Book 1.x, offline, executing every lesson.

    python tools/build_book.py            # -> _build/html/index.html
    python tools/build_book.py --serve    # build, then serve on http://127.0.0.1:8000

book.yml holds both the Sphinx/Jupyter Book settings and, under ``toc:``, the
chapter list; this script writes that list to _build/bookcfg/_toc.yml (Jupyter
Book reads the table of contents from its own file) and runs the build with
warnings as errors, so a failing cell fails the build.  The widget and MathJax
scripts are vendored by tools/vendor_widgets.py, run in this interpreter (the
book's venv), and after the build every page is checked to load no script,
stylesheet or font from outside the site.
"""
import argparse
import functools
import http.server
import os
import pathlib
import re
import shutil
import subprocess
import sys

import yaml

import run_lessons
import vendor_widgets

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks"


def write_toc():
    config = yaml.safe_load((ROOT / "book.yml").read_text())
    target = ROOT / "_build" / "bookcfg" / "_toc.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(config["toc"], sort_keys=False))
    return target.resolve()


# what a page loads by itself: <script src>, <link href> (stylesheets, fonts, preloads)
LOADED_URL = re.compile(r'<(?:script|link)\b[^>]*?\b(?:src|href)="((?:https?:)?//[^"]+)"')


def external_loads(html_folder):
    """["page: url"] for every script or stylesheet a built page would fetch from elsewhere."""
    found = []
    for page in sorted(html_folder.rglob("*.html")):
        for url in LOADED_URL.findall(page.read_text(errors="replace")):
            found.append(f"{page.relative_to(html_folder)}: {url}")
    return found


def missing_programs():
    """Why the book cannot be built here, or None: a program from the system it needs is
    missing (the book executes the lessons, and its first build fetches scripts with npm)."""
    for lesson in run_lessons.lesson_paths():         # the book executes every lesson
        missing = run_lessons.missing_program(lesson)
        if missing:
            return missing
    if shutil.which("npm") is None and not vendor_widgets.is_current():
        return ("the book's first build fetches its browser scripts with npm, which is "
                "missing (Debian: sudo apt-get install npm)")
    return None


def checkout_env():
    """The build's environment, with this checkout first on PYTHONPATH: the lessons' kernels
    import its minimx and widgets, not those of whichever checkout the venv was installed
    from (``pip install -e``)."""
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in paths if path))


def build(extra):
    missing = missing_programs()
    if missing:
        print(f"build_book: the book cannot be built here: {missing}", file=sys.stderr)
        return 1
    vendor_widgets.vendor_if_needed()
    command = [str(pathlib.Path(sys.executable).parent / "jupyter-book"), "build", str(SOURCE),
               "--config", str(ROOT / "book.yml"), "--toc", str(write_toc()),
               "--path-output", str(ROOT), "--all", "-W", "--keep-going", *extra]
    code = subprocess.call(command, env=checkout_env())
    outside = external_loads(ROOT / "_build" / "html") if code == 0 else []
    if outside:
        print("build_book: these pages load files from outside the site (vendor them):\n  "
              + "\n  ".join(outside), file=sys.stderr)
        code = 1
    return code


def serve(port):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=str(ROOT / "_build" / "html"))
    print(f"serving the book at http://127.0.0.1:{port}/ (Ctrl-C stops)")
    http.server.ThreadingHTTPServer(("127.0.0.1", port), handler).serve_forever()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="serve the built site")
    parser.add_argument("--port", type=int, default=8000)
    args, extra = parser.parse_known_args()
    code = build(extra)
    if code == 0 and args.serve:
        serve(args.port)
    sys.exit(code)


if __name__ == "__main__":
    main()
