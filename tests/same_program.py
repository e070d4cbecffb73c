"""One program run on MXNet 1.9.1 and on minimx: the common step of differential tests.

A program is Python source that uses ``mx`` (and may read ``INPUT``, a string) and prints
one JSON line last.  ``on_mxnet`` runs it in a subprocess of the reference interpreter with
``mx = mxnet``; ``on_minimx`` runs it in this process with ``mx = minimx``.  Each returns
the decoded JSON.  (Importable from any test folder: pytest puts ``tests/``, where
``conftest.py`` is, on ``sys.path``.)
"""
import json
import os
import subprocess

import minimx


def on_mxnet(mxnet_python, program, given="", env=None):
    """``env``: environment variables added for the MXNet process (its switches, say)."""
    header = "import sys\nimport mxnet as mx\nINPUT = sys.stdin.read()\n"
    done = subprocess.run([mxnet_python, "-c", header + program], capture_output=True,
                          text=True, input=given, timeout=300,
                          env=None if env is None else {**os.environ, **env})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def on_minimx(program, given=""):
    printed = []
    exec(program, {"mx": minimx, "INPUT": given, "print": printed.append})
    return json.loads(printed[-1])


def on_minimx_np_mode(program, given=""):
    """``on_minimx`` of a program that switches NumPy mode on (``mx.npx.set_np()``): the mode
    is the thread's, so it is switched off again afterwards, whatever the program did."""
    try:
        return on_minimx(program, given)
    finally:
        minimx.npx.reset_np()
