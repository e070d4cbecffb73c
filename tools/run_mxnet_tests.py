"""Run MXNet 1.9.1's own unit tests against minimx (and against MXNet beside it).

    .venv/bin/python tools/run_mxnet_tests.py SUITE [--reference PYTHON] [--files a,b]
                                             [--timeout S] [--json FILE] [--keep DIR]
                                             [-k EXPRESSION] [--numpy1-names]

SUITE is a folder holding ``tests/python/unittest`` (and ``common``, ``train``) of MXNet
1.9.1, extracted from its repository; none of it is part of minimx.  Each in-scope test
file runs in its own pytest process from the unittest folder, as MXNet's CI runs it, with
``-p mxsuite_plugin`` (``import mxnet`` is minimx; a stand-in for ``nose``; both in
tools/mxnet_suite/) and a per-test time limit (pytest-timeout), so a hang is reported
as a failure and the run goes on.  ``--reference`` runs the same files with MXNet's
interpreter to know which tests pass there.  The suite's files need ``scipy`` and
``requests`` in both interpreters.

Printed: per file the tests MXNet passes, and of those the ones minimx passes, counted
apart for tests outside minimx's scope (found in each test's source: C internals such as
``_LIB`` or ctypes handles, MXNet's private modules, functions and attributes; a test that needs a GPU does not pass on the CPU reference, so
is not counted); a private name the test file defines itself (``self._axis = axis`` in a test's own block,
a class attribute of a class of the file) is the test's, not MXNet's, and keeps it in; then
every failure of an in-scope test MXNet passes, grouped by cause (the error's type and
the start of its message).

``--numpy1-names`` gives the test files' own host-NumPy calls the NumPy 1 names that NumPy 2
removed (``np.round_``, ``interpolation=``, ``nonzero`` of a 0-d array:
tools/mxnet_suite/numpy1_names.py), in both runs; without it those tests fail under NumPy 2
before they look at minimx's answer.  Report figures with and without it.
"""
import argparse
import ast
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

HERE = pathlib.Path(__file__).resolve().parent
PLUGIN_DIR = HERE / "mxnet_suite"
IN_SCOPE = ["test_ndarray", "test_autograd", "test_symbol", "test_executor", "test_module",
            "test_io", "test_optimizer", "test_metric", "test_kvstore", "test_engine",
            "test_exc_handling", "test_init", "test_loss", "test_gluon", "test_gluon_data",
            "test_gluon_rnn", "test_gluon_trainer", "test_gluon_utils", "test_gluon_save",
            "test_recordio", "test_infer_shape", "test_infer_type", "test_attr",
            "test_random", "test_thread_local", "test_viz", "test_profiler", "test_base",
            "test_higher_order_grad", "test_image", "test_rnn", "test_operator",
            "test_numpy_ndarray", "test_numpy_op", "test_numpy_interoperability",
            "test_numpy_gluon", "test_gluon_contrib", "test_gluon_estimator",
            "test_contrib_svrg_module", "test_contrib_svrg_optimizer", "test_contrib_io",
            "test_contrib_text", "test_sparse_ndarray", "test_sparse_operator", "test_dlpack",
            "test_contrib_operator", "test_contrib_optimizer"]
# what in a test's source puts it outside minimx's scope
OUT_OF_SCOPE = [
    ("C internals", re.compile(r"\b_LIB\b|\bctypes\b|\.handle\b|check_call\(|c_str\(")),
]
# ``x._name`` (not a call), and a name imported from MXNet with one leading underscore
PRIVATE_ATTRIBUTE = re.compile(r"\._(?!_)([a-z]\w*)\b(?!\s*\()")
PRIVATE_IMPORT = re.compile(r"^from mxnet[\w.]* import (.*)$", re.MULTILINE)


def test_sources(path):
    """{test function name: its source text} of one test file (module-level functions),
    and under the key ``None`` the file's own private names (see ``own_private_names``)."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines()
    sources = {None: own_private_names(tree, text)}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            sources[node.name] = "\n".join(lines[node.lineno - 1:node.end_lineno])
    return sources


def own_private_names(tree, text):
    """(names the file defines, names it imports from MXNet) among ``_name``s: defined are
    ``self._name = ...`` assignments and the members of the file's own classes."""
    defined = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            defined.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                targets = member.targets if isinstance(member, ast.Assign) else []
                defined.update(t.id for t in targets if isinstance(t, ast.Name))
                if isinstance(member, ast.FunctionDef):
                    defined.add(member.name)
    imported = {name.split(" as ")[-1].strip(" ()") for line in PRIVATE_IMPORT.findall(text)
                for name in line.split(",")}
    return ({name.lstrip("_") for name in defined if name.startswith("_")},
            {name for name in imported if re.fullmatch(r"_(?!_)[a-z]\w*", name)})


def scope_of(source, own=(set(), set())):
    """None when the test is in scope, else why it is not.  ``own``: the file's private
    names from ``test_sources``."""
    if source is None:
        return None
    for reason, pattern in OUT_OF_SCOPE:
        if pattern.search(source):
            return reason
    defined, imported = own
    if any(name not in defined for name in PRIVATE_ATTRIBUTE.findall(source)) or \
            any(re.search(rf"\b{name}\b", source) for name in imported):
        return "MXNet's private modules or attributes"
    return None


def run_file(python, unittest_dir, name, target, timeout, folder, keyword=None):
    """{test name: (outcome, message)} of one file, from pytest's JUnit XML; ``keyword``:
    pytest's ``-k`` expression, to run only some of the file's tests."""
    report = folder / f"{name}-{target}.xml"
    env = dict(os.environ, MXSUITE_TARGET=target, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([str(PLUGIN_DIR), str(HERE.parent),
                                           os.environ.get("PYTHONPATH", "")]))
    command = [python, "-m", "pytest", f"{name}.py", "-p", "mxsuite_plugin",
               "-p", "no:cacheprovider", "-q", f"--timeout={timeout}", f"--junitxml={report}",
               "-o", "addopts=", "--rootdir", str(unittest_dir)]
    command += ["-k", keyword] if keyword else []
    try:
        done = subprocess.run(command, cwd=unittest_dir, env=env, capture_output=True,
                              text=True, timeout=timeout * 40, stdin=subprocess.DEVNULL)
        crashed = done.returncode not in (0, 1) and not report.exists()
        tail = (done.stdout + done.stderr)[-2000:]
    except subprocess.TimeoutExpired:
        crashed, tail = True, f"the file did not finish in {timeout * 40} s"
    if crashed or not report.exists():
        return {"<file>": ("error", _first_line(tail) or "the file did not run")}
    return parse_report(report)


def _first_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"^E\s|Error|error", line)]
    return (errors[-1] if errors else lines[-1] if lines else "")[:300]


def parse_report(path):
    results = {}
    for case in ElementTree.parse(path).iter("testcase"):
        name = case.get("name")
        outcome, message = "passed", ""
        for kind in ("failure", "error", "skipped"):
            element = case.find(kind)
            if element is not None:
                outcome = "failed" if kind in ("failure", "error") else "skipped"
                message = (element.get("message") or element.text or "").strip()
                break
        if not case.get("classname"):             # the file itself failed to load
            name = "<file>"
            details = [line[1:].strip() for line in (case.findtext("error") or "").splitlines()
                       if line.startswith("E ")]
            outcome, message = "error", details[-1] if details else message
        results[name] = (outcome, message)
    if not results:
        results["<file>"] = ("error", "no test collected")
    return results


def cause_of(message):
    """A failure's cause for grouping: its error type and the start of its message, with
    numbers and shapes taken out (names are kept: they say what is missing)."""
    text = message.splitlines()[0] if message else "(no message)"
    text = re.sub(r"\(\d+(, ?\d+)*,?\)|\d+(\.\d+)?(e-?\d+)?", "#", text)
    return text[:110]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", help="folder holding tests/python/unittest of MXNet 1.9.1")
    parser.add_argument("--reference", help="an interpreter with MXNet 1.9.1")
    parser.add_argument("--reference-reports", help="reuse the reference's reports kept in "
                        "this folder by an earlier run (--keep) instead of running it again")
    parser.add_argument("--files", help="comma-separated test file names (default: in scope)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per test")
    parser.add_argument("--json", help="write every result to this file")
    parser.add_argument("--keep", help="folder for pytest's reports (default: temporary)")
    parser.add_argument("--python", default=sys.executable, help="minimx's interpreter")
    parser.add_argument("--reference-only", action="store_true",
                        help="run only the reference (to keep its reports with --keep)")
    parser.add_argument("-k", dest="keyword", help="pytest's -k expression: run only the "
                        "tests it selects (the reference's kept reports are cut to the same)")
    parser.add_argument("--numpy1-names", action="store_true", help="the test files' host "
                        "NumPy answers the NumPy 1 names NumPy 2 removed (numpy1_names.py)")
    options = parser.parse_args(argv)
    if options.numpy1_names:
        os.environ["MXSUITE_NUMPY1_NAMES"] = "1"
    unittest_dir = (pathlib.Path(options.suite) / "tests" / "python" / "unittest").resolve()
    if not unittest_dir.is_dir():
        parser.error(f"{unittest_dir} does not exist: extract MXNet's tests/python there")
    names = options.files.split(",") if options.files else IN_SCOPE
    folder = pathlib.Path(options.keep or tempfile.mkdtemp(prefix="mxsuite-")).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    table, failures, everything = [], collections.defaultdict(list), {}
    totals = collections.Counter()
    for name in names:
        sources = test_sources(unittest_dir / f"{name}.py")
        mine = {} if options.reference_only else run_file(options.python, unittest_dir, name,
                                                          "minimx", options.timeout, folder,
                                                          options.keyword)
        if options.reference_reports:
            kept = pathlib.Path(options.reference_reports) / f"{name}-mxnet.xml"
            theirs = parse_report(kept) if kept.exists() else {}
        elif options.reference:
            theirs = run_file(options.reference, unittest_dir, name, "mxnet", options.timeout,
                              folder, options.keyword)
        else:
            theirs = None
        counts = collections.Counter()
        tests = set(mine) | set(theirs or {})
        if options.keyword and mine:      # kept reports hold every test: keep those -k chose
            tests = set(mine)
        for test in sorted(tests):
            reference_ok = theirs is None or theirs.get(test, ("missing",))[0] == "passed"
            ours = mine.get(test, ("missing", "not run on minimx"))
            scope = scope_of(sources.get(test.split("[")[0]), sources[None])
            everything[f"{name}::{test}"] = {"minimx": ours, "mxnet": theirs and theirs.get(test),
                                             "out_of_scope": scope}
            if not reference_ok:
                continue
            key = "out" if scope else "in"
            counts[f"{key}_reference"] += 1
            if ours[0] == "passed":
                counts[f"{key}_minimx"] += 1
            elif scope is None and ours[0] != "skipped":
                failures[cause_of(ours[1])].append(f"{name}::{test}")
        if "<file>" in mine and mine["<file>"][0] == "error":
            failures[f"file does not run: {cause_of(mine['<file>'][1])}"].append(name)
        totals.update(counts)
        table.append((name, counts["in_reference"], counts["in_minimx"],
                      counts["out_reference"], counts["out_minimx"]))
        print(f"{name:28s} in scope {counts['in_minimx']:4d}/{counts['in_reference']:<4d}"
              f" out of scope {counts['out_minimx']:4d}/{counts['out_reference']:<4d}",
              flush=True)
    share = totals["in_minimx"] / totals["in_reference"] if totals["in_reference"] else 0
    print(f"\nin scope: minimx passes {totals['in_minimx']} of the {totals['in_reference']} "
          f"tests {'MXNet passes' if theirs is not None else 'run'} ({share:.1%}); "
          f"out of scope: {totals['out_minimx']} of {totals['out_reference']}")
    print("\nfailures by cause (in scope, passing on the reference):")
    for cause, tests in sorted(failures.items(), key=lambda item: -len(item[1])):
        print(f"{len(tests):4d}  {cause}")
        for test in tests[:6]:
            print(f"        {test}")
        if len(tests) > 6:
            print(f"        ... and {len(tests) - 6} more")
    if options.json:
        pathlib.Path(options.json).write_text(json.dumps(
            {"table": table, "results": everything}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
