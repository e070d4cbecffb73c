"""Test scaffolding: environment variables for a block, retries, a silenced stderr.

Lesson: 04-autograd.  Mirrors ``environment``, ``setenv``, ``getenv``, ``retry`` and
``discard_stderr`` of ``python/mxnet/test_utils.py``.  minimx reads its variables from
``os.environ`` (the engine and thread budget when they start), so ``environment`` only
has to change that.
"""
import contextlib
import functools
import os
import sys

__all__ = ["environment", "setenv", "getenv", "retry", "discard_stderr"]


def setenv(name, value):
    """Set environment variable ``name`` to ``value`` (None removes it)."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def getenv(name):
    """The value of environment variable ``name``, or None."""
    return os.environ.get(name)


@contextlib.contextmanager
def environment(*args):
    """``with environment('NAME', 'value'):`` or ``with environment({'A': '1', 'B': None}):``
    sets (None: removes) the variables for the body and restores them afterwards, also
    when the body raises."""
    if len(args) == 2:
        settings = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        settings = dict(args[0])
    else:
        raise ValueError("environment() takes a name and a value, or one dict of them")
    saved = {name: os.environ.get(name) for name in settings}
    try:
        for name, value in settings.items():
            setenv(name, value)
        yield
    finally:
        for name, value in saved.items():
            setenv(name, value)


def retry(n):
    """Decorator: run a (statistical) test up to ``n`` times until it passes."""
    if n < 1:
        raise ValueError(f"retry needs n >= 1, got {n}")

    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return function(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


@contextlib.contextmanager
def discard_stderr():
    """Send everything written to file descriptor 2 (C code included) to /dev/null."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
