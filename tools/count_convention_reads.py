"""Count the places outside ``minimx/op/`` that read the operator calling convention.

    .venv/bin/python tools/count_convention_reads.py [PACKAGE_DIR]

The convention is what a caller must know to call a declared operator: which extras its
``forward``/``backward`` take (``forward_extras``, ``backward_extras``, the ``needs`` and
``rng``/``is_train`` keywords), what it saves for backward (``saves``), which inputs get no
gradient (``no_grad_inputs``, ``aux``) and the names of its inputs (``list_inputs(n)``, an
operator's; a Symbol's takes no argument).  ``minimx/op/call.py`` is meant to be the one place
outside the declarations that reads them; this prints every other read, by file, and the total.
"""
import ast
import pathlib
import sys

ATTRIBUTES = {"saves", "forward_extras", "backward_extras", "no_grad_inputs"}
KEYWORDS = {"needs", "rng", "is_train"}     # as strings: extras["needs"], "rng" in ...


def reads(tree):
    """(line, what) for every convention read in one module."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES
                and isinstance(node.ctx, ast.Load)):     # a declaration's own `self.saves = ...` is no read
            found.append((node.lineno, f".{node.attr}"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "list_inputs" and node.args):
            found.append((node.lineno, ".list_inputs(n)"))
        elif isinstance(node, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn))
                                                   for o in node.ops):
            left = node.left
            if isinstance(left, ast.Constant) and left.value in KEYWORDS:
                found.append((node.lineno, f"{left.value!r} in"))
        elif (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
              and node.slice.value in KEYWORDS):
            found.append((node.lineno, f"[{node.slice.value!r}]"))
    return sorted(found)


def main():
    package = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                           pathlib.Path(__file__).resolve().parent.parent / "minimx")
    total = 0
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent)
        if relative.parts[1] == "op":
            continue
        found = reads(ast.parse(path.read_text(), str(path)))
        if found:
            total += len(found)
            print(f"{relative}: {len(found)}  " + ", ".join(f"{line} {what}"
                                                           for line, what in found))
    print(f"total: {total} convention reads outside {package.name}/op/")


if __name__ == "__main__":
    main()
