"""``nose.tools`` names MXNet's tests use: assertions and decorators, on unittest's."""
import functools
import unittest

_case = unittest.TestCase()
_case.maxDiff = None

assert_raises = _case.assertRaises
assert_equal = _case.assertEqual
assert_not_equal = _case.assertNotEqual
assert_true = _case.assertTrue
assert_false = _case.assertFalse
assert_almost_equal = _case.assertAlmostEqual
assert_in = _case.assertIn
assert_is_none = _case.assertIsNone


def ok_(expression, message=None):
    assert expression, message


def eq_(a, b, message=None):
    assert a == b, message or f"{a!r} != {b!r}"


def raises(*exceptions):
    """The test passes only if it raises one of ``exceptions``."""
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            try:
                function(*args, **kwargs)
            except exceptions:
                return
            names = " or ".join(e.__name__ for e in exceptions)
            raise AssertionError(f"{function.__name__}() did not raise {names}")
        return wrapper
    return decorate


def make_decorator(function):
    """Keep ``function``'s name and doc on the decorated test."""
    def decorate(new_function):
        return functools.wraps(function)(new_function)
    return decorate


def nottest(function):
    function.__test__ = False
    return function


def istest(function):
    function.__test__ = True
    return function


def with_setup(setup=None, teardown=None):
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if setup:
                setup()
            try:
                return function(*args, **kwargs)
            finally:
                if teardown:
                    teardown()
        return wrapper
    return decorate
