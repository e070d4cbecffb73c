"""Build the course site from book.yml with Jupyter Book 1.x, offline, executing every lesson.

    python tools/build_book.py            # -> _build/html/index.html
    python tools/build_book.py --serve    # build, then serve on http://127.0.0.1:8000

book.yml holds both the Sphinx/Jupyter Book settings and, under ``toc:``, the
chapter list; this script writes that list to _build/bookcfg/_toc.yml (Jupyter
Book reads the table of contents from its own file) and runs the build with
warnings as errors, so a failing cell fails the build.  The widget and MathJax
scripts are vendored from the npm registry by tools/vendor_widgets.sh.
"""
import argparse
import functools
import http.server
import pathlib
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks"


def write_toc():
    config = yaml.safe_load((ROOT / "book.yml").read_text())
    target = ROOT / "_build" / "bookcfg" / "_toc.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(config["toc"], sort_keys=False))
    return target.resolve()


def vendor():
    if not (SOURCE / "_vendor" / "widgets" / "embed-amd.js").exists():
        subprocess.run(["bash", str(ROOT / "tools" / "vendor_widgets.sh")], check=True, cwd=ROOT)


def build(extra):
    vendor()
    command = [str(pathlib.Path(sys.executable).parent / "jupyter-book"), "build", str(SOURCE),
               "--config", str(ROOT / "book.yml"), "--toc", str(write_toc()),
               "--path-output", str(ROOT), "--all", "-W", "--keep-going", *extra]
    return subprocess.call(command)


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
