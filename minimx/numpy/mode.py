"""What the frontends hand out follows the mode: np arrays after ``npx.set_np()``.

Lesson: 09-gluon.  MXNet's data pipeline and image helpers build their arrays with
``mx.np.array`` in NumPy mode and ``nd.array`` otherwise (``is_np_array()`` at each call).
minimx builds them one way (``nd``) and hands them out through ``in_mode``, a view of the
same buffer, so the rule is said once and costs no copy.
"""
from ..util import is_np_array
from .multiarray import as_np

__all__ = ["in_mode"]


def in_mode(array):
    """``array`` (an NDArray, or a list/tuple of them) as ``np.ndarray`` when NumPy mode
    is on in this thread; unchanged otherwise."""
    return as_np(array) if is_np_array() else array
