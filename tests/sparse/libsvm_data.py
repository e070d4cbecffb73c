"""A small LibSVM data set for the sparse examples' tests: rows of a few features each.

Each row has ``per_row`` distinct features drawn from ``[0, features)`` with values in
[0.1, 1); its label is 1 when the values of the even-numbered features sum past 1.2, so a
linear model can learn it.  Deterministic for a seed.
"""
import numpy as np


def write_libsvm(path, rows, features, seed, per_row=5):
    rng = np.random.RandomState(seed)
    lines = []
    for _ in range(rows):
        columns = np.sort(rng.choice(features, per_row, replace=False))
        values = rng.uniform(0.1, 1.0, per_row)
        label = int(values[columns % 2 == 0].sum() > 1.2)
        lines.append(f"{label} " + " ".join(f"{c}:{v:.4f}" for c, v in zip(columns, values)))
    with open(path, "w") as file:
        file.write("\n".join(lines) + "\n")
