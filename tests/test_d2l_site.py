"""tools/d2l_site/sitecustomize.py: the hooks the d2l-en page runner puts around the book's
``d2l.mxnet`` module, tried on a small stand-in of that module (the book is not needed)."""
import os
import pathlib
import subprocess
import sys
import textwrap

SITE = pathlib.Path(__file__).resolve().parent.parent / "tools" / "d2l_site"

BOOK_MODULE = """
class ProgressBoard:
    def draw(self, x, y, label, every_n=1):
        pass

class Animator:
    def __init__(self, xlabel=None, legend=None):
        self.legend = legend

    def add(self, x, y):
        pass

def cpu():
    return "cpu(0)"

def try_all_gpus():
    return []
"""

PAGE = """
from d2l import mxnet as d2l
print(d2l.try_all_gpus())
board = d2l.ProgressBoard()
for step in range(3):
    board.draw(step, 1.0 / (step + 1), "train_loss")
board.draw(2, 0.75, "val_acc")
animator = d2l.Animator(legend=["train loss", "test acc"])
animator.add(1, (0.5, None))
animator.add(2, (0.25, 0.9))
again = d2l.ProgressBoard()
again.draw(5, 0.125, "train_loss")
"""


def run_page(tmp_path, **env):
    package = tmp_path / "d2l"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mxnet.py").write_text(textwrap.dedent(BOOK_MODULE))
    page = tmp_path / "page.py"
    page.write_text(textwrap.dedent(PAGE))
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("D2L_CPU_DEVICES", "D2L_PRINT_FIGURES", "D2L_STANDINS",
                                  "D2L_ACCEPT_MXNET_HOME")}
    environment.update(env, PYTHONPATH=f"{SITE}{os.pathsep}{tmp_path}")
    result = subprocess.run([sys.executable, str(page)], capture_output=True, text=True,
                            env=environment, cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_without_settings_the_book_module_is_left_as_it_is(tmp_path):
    assert run_page(tmp_path) == ["[]"]


def test_cpu_devices_gives_the_cpu_when_there_is_no_gpu(tmp_path):
    assert run_page(tmp_path, D2L_CPU_DEVICES="1") == ["['cpu(0)']"]


def test_print_figures_prints_each_curves_last_point_per_figure_at_the_end(tmp_path):
    assert run_page(tmp_path, D2L_PRINT_FIGURES="1") == [
        "[]",
        "d2l figure 1: train_loss = 0.333333 at x = 2",
        "d2l figure 1: val_acc = 0.75 at x = 2",
        "d2l figure 2: train loss = 0.25 at x = 2",
        "d2l figure 2: test acc = 0.9 at x = 2",
        "d2l figure 3: train_loss = 0.125 at x = 5",
    ]
