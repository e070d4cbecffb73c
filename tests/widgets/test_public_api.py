"""The views read minimx through its public, documented names only.

A view (or a student's notebook) that reaches into private state breaks when the
package changes, and makes the package keep code for the view's sake.  So no file in
``widgets/`` may import a ``_name`` from minimx, or read an attribute whose name is one
of minimx's private names (``_entries``, ``_chunk``, ``_plans`` ...) from anything but
the view's own ``self``/``cls``/``super()``.
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _private_names_of_minimx():
    """Every ``_name`` minimx defines: attributes it assigns, functions, classes, slots."""
    names = set()
    for path in (ROOT / "minimx").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)          # __slots__ entries, getattr names
    return {name for name in names
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__"))}


def _is_own(receiver):
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
        return True
    return (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name)
            and receiver.func.id == "super")


def private_reads(source, private):
    """(line, text) for each private read of minimx in one widget module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("minimx"):
            for alias in node.names:
                if alias.name.startswith("_") or "._" in node.module:
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("minimx") and "._" in alias.name:
                    found.append((node.lineno, f"import {alias.name}"))
        elif (isinstance(node, ast.Attribute) and node.attr in private
              and not _is_own(node.value)):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_widgets_use_only_public_names_of_minimx():
    private = _private_names_of_minimx()
    assert {"_entries", "_chunk", "_plans", "_cached_graph"} <= private   # the rule can fail
    violations = [f"{path.relative_to(ROOT)}:{line}: {text}"
                  for path in sorted((ROOT / "widgets").rglob("*.py"))
                  for line, text in private_reads(path.read_text(), private)]
    assert not violations, "widgets read private minimx state:\n" + "\n".join(violations)


def test_the_check_sees_each_kind_of_private_read():
    private = {"_entries", "_chunk"}
    source = ("from minimx.viz.plot import _OP_COLORS\n"
              "import minimx._hidden\n"
              "n = symbol._entries\n"
              "v = array._chunk.var\n"
              "own = self._entries\n"
              "base = super()._chunk\n")
    assert [line for line, _ in private_reads(source, private)] == [1, 2, 3, 4]
