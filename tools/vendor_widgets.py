"""Vendor the browser-side scripts the built book needs, so that no page load reaches a CDN.

    .venv/bin/python tools/vendor_widgets.py     # tools/build_book.py calls vendor_if_needed()

From the npm registry (``npm pack``): the Jupyter widget manager (embed-amd.js and its fonts),
require.js and MathJax.  From the Python environment that runs this script -- the one that
builds the book, never a ``python`` found on PATH: anywidget's AMD loader, the browser half of
the anywidget the lessons' views are made with.  Everything goes to notebooks/_vendor/ (ignored
by git), which Sphinx copies into the site as _static/.

Nothing is skipped silently: a file that cannot be found stops the build with a message naming
it and the package version it was looked for in.  anywidget's loader is checked against the
installed wheel's RECORD (the same bytes the installed version shipped), and the versions
vendored are written to _vendor/VERSIONS.json, so a later build re-vendors when they change.
"""
import base64
import hashlib
import importlib.metadata
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

from minimx.archive import extract_tar  # safe on Pythons without extractall(filter=)

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENDOR = ROOT / "notebooks" / "_vendor"
WIDGETS = VENDOR / "widgets"
MATHJAX = VENDOR / "mathjax"
STAMP = VENDOR / "VERSIONS.json"
NPM_PACKAGES = {"@jupyter-widgets/html-manager": "1.0.15", "requirejs": "2.3.7",
                "mathjax": "3.2.2"}
ANYWIDGET_LOADER = "share/jupyter/nbextensions/anywidget/index.js"
FONT_SUFFIXES = (".woff", ".woff2", ".ttf", ".eot", ".svg")
MATHJAX_PARTS = ("input", "output", "a11y", "ui", "sre", "adaptors")
# The widget manager's state schema lets a buffer path hold strings or numbers as one type list,
# {"type": [...]}; its schema compiler (Ajv, strict mode) logs a console warning for that on
# every page with a widget.  The same rule as anyOf compiles silently.  (html-manager 1.0.15
# carries the schema twice, once per bundled copy of the validator.)
EMBED_SCHEMA_FIX = ('"type":["string","number"]',
                    '"anyOf":[{"type":"string"},{"type":"number"}]', 2)


class VendorError(SystemExit):
    """A file the book needs could not be vendored (the message names it)."""


def wanted_versions():
    """The versions this build needs: the npm pins and the anywidget that is installed."""
    try:
        anywidget = importlib.metadata.version("anywidget")
    except importlib.metadata.PackageNotFoundError:
        raise VendorError(f"vendor_widgets: anywidget is not installed in {sys.prefix} "
                          f"(the interpreter building the book, {sys.executable}); "
                          f"install minimx's notebook extra: pip install -e '.[notebook]'")
    config = hashlib.sha256((ROOT / "tools" / "widgets-config.js").read_bytes()).hexdigest()
    fix = hashlib.sha256(repr(EMBED_SCHEMA_FIX).encode()).hexdigest()
    return {**NPM_PACKAGES, "anywidget": anywidget, "widgets-config.js": config[:16],
            "embed-amd.js schema fix": fix[:16]}


def is_current():
    """True when notebooks/_vendor/ holds what this environment needs."""
    if not STAMP.exists() or not (WIDGETS / "anywidget" / "index.js").exists():
        return False
    return json.loads(STAMP.read_text()) == wanted_versions()


def _record_hash(distribution, relative):
    """The sha256 the installed distribution's RECORD gives for one of its files."""
    for entry in distribution.files or ():
        if str(entry).replace("\\", "/").endswith(relative) and entry.hash:
            return entry.hash.value
    return None


def anywidget_loader(version):
    """Path of the installed anywidget's AMD loader, checked against its wheel's RECORD."""
    distribution = importlib.metadata.distribution("anywidget")
    path = pathlib.Path(sys.prefix) / ANYWIDGET_LOADER
    if not path.is_file():
        raise VendorError(f"vendor_widgets: {path} is missing: anywidget=={version} in "
                          f"{sys.prefix} did not install its browser loader "
                          f"({ANYWIDGET_LOADER}); reinstall it: pip install --force-reinstall "
                          f"anywidget=={version}")
    expected = _record_hash(distribution, ANYWIDGET_LOADER.split("share/", 1)[1])
    actual = base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest()).rstrip(b"=")
    if expected is None or actual.decode() != expected:
        raise VendorError(f"vendor_widgets: {path} is not the loader anywidget=={version} "
                          f"installed (its RECORD gives sha256={expected}, the file has "
                          f"{actual.decode()}); reinstall anywidget=={version}")
    return path


def npm_pack(work):
    """Download the pinned npm packages into ``work``; {name: unpacked folder}."""
    if shutil.which("npm") is None:
        raise VendorError("vendor_widgets: npm is missing (Debian: apt-get install npm); it "
                          f"fetches {', '.join(f'{n}@{v}' for n, v in NPM_PACKAGES.items())}")
    specs = [f"{name}@{version}" for name, version in NPM_PACKAGES.items()]
    subprocess.run(["npm", "pack", "--silent", *specs], cwd=work, check=True,
                   stdout=subprocess.DEVNULL)
    folders = {}
    for name, version in NPM_PACKAGES.items():
        archive = work / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
        if not archive.exists():
            raise VendorError(f"vendor_widgets: npm pack {name}@{version} made no {archive.name}")
        target = work / archive.stem
        extract_tar(archive, target)
        folders[name] = target / "package"
    return folders


def copy_embed(source, target):
    """Copy the widget manager's embed-amd.js with its state schema's type list as anyOf."""
    old, new, count = EMBED_SCHEMA_FIX
    text = source.read_text(encoding="utf-8")
    if text.count(old) != count:
        raise VendorError(f"vendor_widgets: {source} holds {text.count(old)} copies of the "
                          f"schema rule {old}, not {count}: check EMBED_SCHEMA_FIX against "
                          f"this html-manager version")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text.replace(old, new), encoding="utf-8")


def copy(source, target):
    if not source.exists():
        raise VendorError(f"vendor_widgets: {source.name} is missing from the package "
                          f"({source})")
    target.parent.mkdir(parents=True, exist_ok=True)
    (shutil.copytree if source.is_dir() else shutil.copy2)(source, target)


def vendor():
    versions = wanted_versions()
    loader = anywidget_loader(versions["anywidget"])
    shutil.rmtree(VENDOR, ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        packages = npm_pack(pathlib.Path(scratch))
        manager = packages["@jupyter-widgets/html-manager"] / "dist"
        copy_embed(manager / "embed-amd.js", WIDGETS / "embed-amd.js")
        for font in sorted(manager.iterdir()):
            if font.suffix in FONT_SUFFIXES:
                copy(font, WIDGETS / font.name)
        copy(packages["requirejs"] / "require.js", WIDGETS / "require.js")
        es5 = packages["mathjax"] / "es5"
        copy(es5 / "tex-mml-chtml.js", MATHJAX / "tex-mml-chtml.js")
        for part in MATHJAX_PARTS:
            copy(es5 / part, MATHJAX / part)
    copy(loader, WIDGETS / "anywidget" / "index.js")
    copy(ROOT / "tools" / "widgets-config.js", WIDGETS / "widgets-config.js")
    STAMP.write_text(json.dumps(versions, indent=1, sort_keys=True))
    print(f"vendored into {VENDOR.relative_to(ROOT)}: "
          + ", ".join(f"{name} {version}" for name, version in sorted(versions.items())))


def vendor_if_needed():
    if not is_current():
        vendor()


if __name__ == "__main__":
    vendor()
