"""Per-device random state: ``mx.random.seed`` and the seed handed to each random op.

Lesson: 02-ndarray-and-context.  Mirrors MXNet's per-device random resource.  A seed is
drawn when an operation is *pushed*, in program order, so results do not
depend on which worker thread runs first: the same seed gives the same numbers
on the NaiveEngine and the ThreadedEngine.
"""
import threading

import numpy as np

from .context import Context

__all__ = ["seed", "next_seed"]

_DEFAULT_SEED = 0
_lock = threading.Lock()
_generators = {}          # Context -> numpy Generator that draws per-operation seeds
_global_seed = _DEFAULT_SEED


def seed(seed_state, ctx="all"):
    """Seed the random number generators of ``ctx`` (or of every device: ``'all'``).

    Any int is accepted, negative ones too, as in MXNet.
    """
    global _global_seed
    if not isinstance(seed_state, (int, np.integer)):
        raise ValueError(f"seed_state must be an int, got {seed_state!r}")
    if ctx != "all" and not isinstance(ctx, Context):
        raise ValueError(f"ctx must be a Context or 'all', got {ctx!r}")
    with _lock:
        if ctx == "all":
            _global_seed = int(seed_state)
            _generators.clear()
        else:
            _generators[ctx] = _make(int(seed_state), ctx)


def _make(seed_value, ctx):
    device_code = 0 if ctx.device_type != "gpu" else 1000 + ctx.device_id
    # SeedSequence takes non-negative ints: fold negative seeds into 64 bits
    return np.random.default_rng([seed_value % 2**64, device_code])


def next_seed(ctx):
    """A fresh 63-bit seed for one random operation on ``ctx``."""
    with _lock:
        generator = _generators.get(ctx)
        if generator is None:
            generator = _generators[ctx] = _make(_global_seed, ctx)
        return int(generator.integers(0, 2**63 - 1))
