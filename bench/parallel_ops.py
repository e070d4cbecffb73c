"""Automatic parallelism: two independent operations pushed back to back run at once.

Nothing in the code says "parallel": the engine sees that ``exp(a)`` and ``exp(b)``
share no var and hands them to two workers.  numpy releases the GIL inside the
element-wise loop, so they really overlap on two cores.  Waiting after each one
forces them to run one after the other.  (A matrix product would hide the effect:
BLAS already uses every core by itself.)
"""
import time

from _util import best_of, print_table, ratio

import minimx as mx
from minimx import nd

SHAPE = (4000, 4000)


def timed(function):
    def once():
        start = time.perf_counter()
        function()
        return time.perf_counter() - start
    return best_of(5, once)


def main():
    a = nd.random.uniform(shape=SHAPE)
    b = nd.random.uniform(shape=SHAPE)
    nd.waitall()

    def one_at_a_time():
        nd.exp(a).wait_to_read()
        nd.exp(b).wait_to_read()

    def back_to_back():
        p = nd.exp(a)              # noqa: F841 - both pushed before anything waits
        q = nd.exp(b)              # noqa: F841
        nd.waitall()

    back_to_back()                 # warm-up: start the workers
    figures = {"each followed by a wait": timed(one_at_a_time),
               "pushed back to back": timed(back_to_back)}
    with mx.engine.engine_type("NaiveEngine"):
        figures["back to back, NaiveEngine"] = timed(back_to_back)
    serial = figures["each followed by a wait"]
    rows = [(name, f"{seconds * 1e3:.1f} ms", ratio(serial, seconds))
            for name, seconds in figures.items()]
    print_table(f"Two independent nd.exp on {SHAPE[0]}x{SHAPE[1]} arrays (best of 5)",
                ("how", "time", "speedup"), rows)
    return figures


if __name__ == "__main__":
    main()
