"""scripts/setup.sh without root: the system packages are checked, never installed by a non-root
user; a missing one is named with what it is for and the command that installs it, and the run
goes on.

Each case runs ``setup_system`` in bash with a PATH of stubs only: ``id`` answers the user id
the case plays, ``dot`` and ``npm`` are present or not, and ``apt-get`` and ``sudo`` record
their calls (an ``apt-get install graphviz`` stub puts a ``dot`` stub in place, as the real
one would).  MINIMX_FONT and MINIMX_CHROMIUM point at files that exist or not.  The lessons
and the book that need a missing program are left out with the reason
(tools/run_lessons.py, tools/build_book.py).  Nothing here needs root or the network.
"""
import importlib.util
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SETUP = ROOT / "scripts" / "setup.sh"
BASH = shutil.which("bash") or "/bin/bash"
EVERY = ["graphviz", "fonts-dejavu-core", "npm", "chromium"]


def stub(folder, name, body="exit 0"):
    path = folder / name
    path.write_text(f"#!{BASH}\n{body}\n")
    path.chmod(0o755)
    return path


class Machine:
    """A PATH of stubs, a font file and a chromium that exist or not, and a user id."""

    def __init__(self, tmp_path, uid, present=(), apt_get=True):
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        self.calls = tmp_path / "calls.log"
        self.calls.touch()
        stub(self.bin, "id", f'[ "$1" = -u ] && echo {uid}')
        for name in ("dot", "npm"):
            if {"dot": "graphviz", "npm": "npm"}[name] in present:
                stub(self.bin, name)
        self.font = tmp_path / "DejaVuSans.ttf"
        if "fonts-dejavu-core" in present:
            self.font.touch()
        self.chromium = stub(tmp_path, "chromium") if "chromium" in present \
            else tmp_path / "no-chromium"
        stub(self.bin, "sudo", f'echo "sudo $*" >> {self.calls}; exit 1')
        if apt_get:
            stub(self.bin, "apt-get", f'echo "apt-get $*" >> {self.calls}\n'
                 'case " $* " in *" install "*" graphviz "*)\n'
                 f'  printf "#!{BASH}\\nexit 0\\n" > {self.bin}/dot; chmod +x {self.bin}/dot;;\n'
                 'esac')

    def run(self, *args, cwd=ROOT, python=None):
        env = {"PATH": str(self.bin), "MINIMX_FONT": str(self.font),
               "MINIMX_CHROMIUM": str(self.chromium), "HOME": str(self.bin.parent)}
        if python:
            env["PYTHON"] = python
        script = f'set -euo pipefail; source "{SETUP}"; ' + " ".join(args)
        result = subprocess.run([BASH, "-c", script], cwd=cwd, env=env, capture_output=True,
                                text=True, timeout=60)
        return result.returncode, result.stdout + result.stderr

    def called(self):
        return self.calls.read_text().splitlines()


@pytest.mark.parametrize("uid", [1000, 0])
def test_nothing_is_installed_or_said_when_every_package_is_present(tmp_path, uid):
    machine = Machine(tmp_path, uid, present=EVERY)
    assert machine.run("setup_system chromium") == (0, "")
    assert machine.called() == []                       # neither apt-get nor sudo


def test_a_user_who_is_not_root_is_told_what_is_missing_and_how_to_get_it(tmp_path):
    machine = Machine(tmp_path, 1000, present=["fonts-dejavu-core", "chromium"])
    code, out = machine.run("setup_system chromium", "&& echo went-on")
    assert code == 0 and out.rstrip().endswith("went-on")
    assert machine.called() == []                       # no apt-get, no sudo: only advice
    lines = out.splitlines()
    graphviz = next(line for line in lines if line.split()[:1] == ["graphviz"])
    assert "mx.viz.plot_network" in graphviz and "skip" in graphviz
    npm = next(line for line in lines if line.split()[:1] == ["npm"])
    assert "book" in npm
    assert "sudo apt-get install graphviz npm" in out
    assert "chromium" not in out and "fonts-dejavu-core" not in out


def test_chromium_is_asked_for_only_by_the_test_command(tmp_path):
    machine = Machine(tmp_path, 1000, present=["graphviz", "fonts-dejavu-core", "npm"])
    assert machine.run("setup_system") == (0, "")       # course.sh and book.sh
    code, out = machine.run("setup_system chromium")    # test.sh
    assert code == 0 and "sudo apt-get install chromium" in out
    assert "tests/browser" in out


def test_root_installs_with_apt_get_and_names_what_is_still_missing(tmp_path):
    machine = Machine(tmp_path, 0)                      # the stub apt-get brings only dot
    code, out = machine.run("setup_system chromium")
    assert code == 0
    assert machine.called()[-1].split() == [
        "apt-get", "install", "-y", "-qq", "--no-install-recommends", *EVERY]
    assert not any(call.startswith("sudo") for call in machine.called())
    assert ("install them (Debian, Ubuntu; root or sudo needed): "
            "apt-get install fonts-dejavu-core npm chromium") in out
    assert not any(line.split()[:1] == ["graphviz"] for line in out.splitlines())  # installed


def test_root_without_apt_get_is_told_the_same(tmp_path):
    machine = Machine(tmp_path, 0, present=["graphviz", "npm", "chromium"], apt_get=False)
    code, out = machine.run("setup_system chromium")
    assert code == 0 and "apt-get install fonts-dejavu-core" in out
    assert "sudo apt-get" not in out                   # root needs no sudo
    assert machine.called() == []


def test_a_python_without_its_venv_module_stops_with_the_package_to_install(tmp_path):
    machine = Machine(tmp_path, 1000, present=EVERY)
    work = tmp_path / "work"
    work.mkdir()
    # Debian's python3 without python3-venv leaves a half-made venv (no pip) and fails
    python = stub(tmp_path, "python3", "mkdir -p .venv/bin && touch .venv/bin/python\n"
                  'echo "ensurepip is not available" >&2; exit 1')
    code, out = machine.run("setup_venv", "&& echo went-on", cwd=work, python=str(python))
    assert code != 0 and "went-on" not in out
    assert "sudo apt-get install python3-venv" in out
    assert not (work / ".venv").exists()                # the next run starts afresh


# -- what goes on without a program: lessons and the book say why they are left out ----------

@pytest.fixture
def tools(monkeypatch):
    for needed in ("jupytext", "nbclient", "yaml"):
        if importlib.util.find_spec(needed) is None:
            pytest.skip(f"{needed} is not installed (pip install -e '.[dev,notebook]')")
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import build_book
    import run_lessons
    return run_lessons, build_book


def without(monkeypatch, module, *programs):
    real = shutil.which
    monkeypatch.setattr(module.shutil, "which",
                        lambda name, *args, **kw: None if name in programs else real(name))


def test_a_lesson_drawing_with_dot_is_left_out_without_it(tools, monkeypatch):
    run_lessons, _ = tools
    lessons = {path.name[:2]: path for path in run_lessons.lesson_paths()}
    without(monkeypatch, run_lessons, "dot")
    reason = run_lessons.missing_program(lessons["07"])
    assert "07-symbolic-programming.md" in reason and "apt-get install graphviz" in reason
    assert run_lessons.missing_program(lessons["04"]) is None       # draws nothing with dot
    monkeypatch.undo()
    if shutil.which("dot"):
        assert run_lessons.missing_program(lessons["07"]) is None


def test_the_book_names_the_program_it_misses(tools, monkeypatch, capsys):
    run_lessons, build_book = tools
    without(monkeypatch, run_lessons, "dot")
    assert "graphviz" in build_book.missing_programs()
    assert build_book.build([]) == 1                # at once, not after running the lessons
    assert "cannot be built here" in capsys.readouterr().err
    monkeypatch.undo()
    monkeypatch.setattr(run_lessons, "missing_program", lambda path: None)
    without(monkeypatch, build_book, "npm")
    monkeypatch.setattr(build_book.vendor_widgets, "is_current", lambda: False)
    assert "apt-get install npm" in build_book.missing_programs()
    monkeypatch.setattr(build_book.vendor_widgets, "is_current", lambda: True)
    assert build_book.missing_programs() is None                   # vendored: npm not needed
