"""Doctest namespace: docstring examples use ``mx``, ``nd``, ``autograd``, ``np`` unimported."""
import numpy
import pytest

import minimx


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    doctest_namespace.update(mx=minimx, nd=minimx.nd, autograd=minimx.autograd, np=numpy,
                             sym=minimx.sym)
