"""``np.linalg`` functions MXNet 1.9.1 hands to host NumPy (``fallback_linalg.py`` there).

Lesson: 05-lazy-evaluation.  See ``fallback.py``: sync points, no gradient.
"""
import numpy as onp

from .host import host_function

__all__ = ["cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr"]
globals().update({name: host_function(name, onp.linalg) for name in __all__})
