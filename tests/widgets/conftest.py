"""Run a widget's JavaScript functions in node (when installed) to compare them with Python."""
import json
import pathlib
import shutil
import subprocess

import pytest

WIDGETS = pathlib.Path(__file__).resolve().parents[2] / "widgets"


@pytest.fixture
def run_js(tmp_path):
    """``run_js(view_js, names, body, data)``: the module's functions ``names`` in scope, ``data``
    as ``DATA``; ``body`` is JavaScript whose last statement prints with ``out(value)``."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")

    def run(view_js, names, body, data):
        source = "\n".join([(WIDGETS / "_common" / "draw.js").read_text(),
                            (WIDGETS / view_js).read_text(), f"export {{ {', '.join(names)} }};"])
        (tmp_path / "module.mjs").write_text(source)
        script = (f"import {{ {', '.join(names)} }} from './module.mjs';\n"
                  f"const DATA = {json.dumps(data)};\n"
                  f"const out = (value) => console.log(JSON.stringify(value));\n{body}\n")
        (tmp_path / "main.mjs").write_text(script)
        result = subprocess.run([node, str(tmp_path / "main.mjs")], capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)
    return run
