"""Readable labels for engine vars: which NDArray of the user's namespace owns each var.

Lesson: 05-lazy-evaluation.  Engine events name vars by number only; the view
shows ``y (2000, 2000) float32`` instead when ``y`` is an NDArray (``nd`` or ``np``) in the
cell's namespace (``NDArray.engine_var`` gives an array's var).
"""
import numpy

__all__ = ["var_labels", "var_id"]


def var_id(array):
    """The engine var id of an NDArray's buffer, or None for anything else."""
    from minimx.ndarray import NDArray
    if not isinstance(array, NDArray):
        return None
    return array.engine_var.id


def var_labels(*namespaces, limit=2000):
    """``{var id: "name shape dtype"}`` for the NDArrays (and lists of them) in the namespaces.

    Later namespaces win (locals over globals); names starting with ``_`` are skipped.
    """
    labels = {}
    for namespace in namespaces:
        for name, value in list(namespace.items()):
            if name.startswith("_") or len(labels) >= limit:
                continue
            items = [(name, value)]
            if isinstance(value, (list, tuple)) and len(value) <= 64:
                items = [(f"{name}[{i}]", item) for i, item in enumerate(value)]
            for label, item in items:
                var = var_id(item)
                if var is not None:
                    labels[var] = f"{label} {tuple(item.shape)} {numpy.dtype(item.dtype).name}"
    return labels
