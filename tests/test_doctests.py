"""Every docstring example in minimx runs (STYLE.md: one example per public docstring)."""
import doctest
import importlib
import pkgutil

import numpy
import pytest

import minimx

NAMESPACE = {"mx": minimx, "nd": minimx.nd, "autograd": minimx.autograd, "np": numpy,
             "sym": minimx.sym, "gluon": minimx.gluon, "nn": minimx.gluon.nn}
MODULES = sorted(info.name for info in pkgutil.walk_packages(minimx.__path__, "minimx.")
                 if ".tools." not in info.name and not info.name.endswith(".__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs={**vars(module), **NAMESPACE}):
        if test.examples and test.filename == getattr(module, "__file__", None):
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
