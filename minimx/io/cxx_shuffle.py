"""The permutation C++'s ``std::shuffle(first, last, std::mt19937(seed))`` makes.

Lesson: 11-data.  MXNet's MNISTIter shuffles with the C++ standard library; to hand out
the same examples in the same order, minimx replays that algorithm (as the GNU library
that built MXNet 1.9.1 implements it): a Fisher-Yates pass from the front, each swap
partner drawn in [0, i] from one 32-bit Mersenne-Twister output, scaled down by division,
with rejection of the draws past the last whole multiple.  numpy's ``RandomState(seed)``
is the same Mersenne Twister with the same seeding, so its raw 32-bit outputs are the
engine's.
"""
import numpy as np

__all__ = ["mt19937_shuffle_order"]

_ENGINE_RANGE = 0xFFFFFFFF   # std::mt19937::max() - min()


def mt19937_shuffle_order(count, seed):
    """Positions 0..count-1 in the order ``std::shuffle`` with ``std::mt19937(seed)`` leaves
    them (a numpy int64 array)."""
    engine = np.random.RandomState(seed % 2**32)
    order = np.arange(count, dtype=np.int64)
    for i in range(1, count):
        scaling = _ENGINE_RANGE // (i + 1)
        limit = (i + 1) * scaling
        draw = int(engine.randint(0, 2**32, dtype=np.uint32))
        while draw >= limit:          # rejected: would favour the low partners
            draw = int(engine.randint(0, 2**32, dtype=np.uint32))
        j = draw // scaling
        order[i], order[j] = order[j], order[i]
    return order
