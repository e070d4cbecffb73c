"""tools/vendor_widgets.py and tools/build_book.py: the book never builds silently broken.

The vendoring step reads anywidget's browser loader from the interpreter that runs it (the
book's venv); a missing or foreign loader stops it with a message naming the file and the
version.  After a build, a page that would load a script or stylesheet from outside the
site fails the build.
"""
import importlib.util
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
pytest.importorskip("yaml", reason="pyyaml is not installed (pip install -e '.[notebook]')")
vendor_widgets = pytest.importorskip("vendor_widgets")
build_book = pytest.importorskip("build_book")

needs_anywidget = pytest.mark.skipif(importlib.util.find_spec("anywidget") is None,
                                     reason="anywidget is not installed")


@needs_anywidget
def test_the_installed_loader_matches_its_wheel():
    version = vendor_widgets.wanted_versions()["anywidget"]
    path = vendor_widgets.anywidget_loader(version)
    assert path.is_file() and path.is_relative_to(sys.prefix)


@needs_anywidget
def test_a_missing_loader_names_the_file_and_version(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    version = vendor_widgets.wanted_versions()["anywidget"]
    with pytest.raises(vendor_widgets.VendorError) as error:
        vendor_widgets.anywidget_loader(version)
    message = str(error.value)
    assert str(tmp_path / vendor_widgets.ANYWIDGET_LOADER) in message
    assert f"anywidget=={version}" in message


@needs_anywidget
def test_a_loader_of_another_version_is_refused(tmp_path, monkeypatch):
    version = vendor_widgets.wanted_versions()["anywidget"]
    real = vendor_widgets.anywidget_loader(version)
    fake = tmp_path / vendor_widgets.ANYWIDGET_LOADER
    fake.parent.mkdir(parents=True)
    fake.write_bytes(real.read_bytes() + b"\n// another build\n")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    with pytest.raises(vendor_widgets.VendorError, match="is not the loader anywidget=="):
        vendor_widgets.anywidget_loader(version)


def test_no_anywidget_says_which_interpreter(monkeypatch):
    def not_found(name):
        raise vendor_widgets.importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(vendor_widgets.importlib.metadata, "version", not_found)
    with pytest.raises(vendor_widgets.VendorError, match="anywidget is not installed") as error:
        vendor_widgets.wanted_versions()
    assert sys.executable in str(error.value)


def test_pages_that_load_from_outside_are_listed(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "ok.html").write_text('<script src="_static/a.js"></script>'
                                      '<a href="https://example.org/">a link is fine</a>')
    (tmp_path / "sub" / "bad.html").write_text(
        '<link rel="stylesheet" href="https://cdn.example.org/x.css">'
        '<script defer src="//cdn.example.org/y.js"></script>')
    assert build_book.external_loads(tmp_path) == [
        "sub/bad.html: https://cdn.example.org/x.css", "sub/bad.html: //cdn.example.org/y.js"]


def test_the_embed_script_schema_is_written_without_a_type_list(tmp_path):
    """The widget manager's schema rule {"type": [string, number]} becomes anyOf, in every copy;
    a bundle with another number of copies stops the vendoring (the fix would not fit it)."""
    old, new, count = vendor_widgets.EMBED_SCHEMA_FIX
    source = tmp_path / "embed-amd.js"
    source.write_text("".join(f"JSON.parse('{{\"items\":{{{old}}}}}');" for _ in range(count)))
    target = tmp_path / "out" / "embed-amd.js"
    vendor_widgets.copy_embed(source, target)
    written = target.read_text()
    assert old not in written and written.count(new) == count
    import json
    rule = json.loads(written.split("'")[1])["items"]
    assert rule == {"anyOf": [{"type": "string"}, {"type": "number"}]}
    source.write_text(f"JSON.parse('{{\"items\":{{{old}}}}}');")
    with pytest.raises(vendor_widgets.VendorError, match="EMBED_SCHEMA_FIX"):
        vendor_widgets.copy_embed(source, target)



def test_the_lessons_run_on_this_checkout(monkeypatch):
    """The build's kernels (started in notebooks/) import this checkout's minimx and widgets,
    even when the venv's editable install points at another checkout."""
    import subprocess
    seen = {}
    monkeypatch.setattr(vendor_widgets, "vendor_if_needed", lambda: None)
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    monkeypatch.setattr(subprocess, "call",
                        lambda command, env=None: seen.update(env=env or {}) or 1)
    assert build_book.build([]) == 1
    assert seen["env"].get("PYTHONPATH", "").split(os.pathsep) == [str(ROOT), "/somewhere/else"]
    found = subprocess.run(
        [sys.executable, "-c", "import minimx, widgets; print(minimx.__file__, widgets.__file__)"],
        cwd=ROOT / "notebooks", env=seen["env"], capture_output=True, text=True,
        check=True).stdout.split()
    assert [pathlib.Path(path).parents[1] for path in found] == [ROOT, ROOT]
