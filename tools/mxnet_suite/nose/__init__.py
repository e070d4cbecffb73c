"""A stand-in for the parts of ``nose`` that MXNet 1.9.1's test files import.

MXNet's suite was written for nose and runs under pytest; the files only need
``nose.runmodule`` (called under ``if __name__ == '__main__'``) and a few
``nose.tools`` names.  This is not nose: just enough for pytest to import the files.
"""
import unittest

from . import tools

SkipTest = unittest.SkipTest


def runmodule(*args, **kwargs):
    """Running a file directly is pytest's job here."""
    raise SystemExit("run this file with pytest")
