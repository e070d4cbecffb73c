"""notebooks/architecture.md stays true to the code: its layer picture is .importlinter's,
and every file or folder of minimx it names exists."""
import configparser
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = (ROOT / "notebooks" / "architecture.md").read_text()


def contract_layers():
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    lines = config["importlinter:contract:layers"]["layers"].split("\n")
    return [[name.strip().removeprefix("minimx.") for name in re.split(r"[|:]", line)]
            for line in lines if line.strip()]


def picture_layers():
    picture = DOC.split("```", 2)[1]
    rows = []
    for line in picture.splitlines():
        match = re.match(r"\s*([a-z_]+(?:\s*(?:\||->|:)\s*[a-z_]+)*)", line)
        text = match.group(1) if match else ""          # the layer names, not the notes
        if not text or text.startswith("widgets"):
            continue
        rows.append([name.strip() for name in re.split(r"\||->", text) if name.strip()])
    return rows


def test_the_picture_is_the_contract():
    contract = contract_layers()
    assert len(contract) > 15
    flat_picture = [name for row in picture_layers() for name in row]
    flat_contract = [name for row in contract for name in row]
    assert flat_picture == flat_contract


def test_every_path_named_exists():
    named = set(re.findall(r"`((?:minimx/)?[a-z_]+(?:/[a-z_]+)*(?:\.py|/))`", DOC))
    assert len(named) > 20
    missing = [path for path in sorted(named)
               if not (ROOT / path).exists() and not (ROOT / "minimx" / path).exists()]
    assert not missing, f"architecture.md names files that do not exist: {missing}"
