"""Run data-iterator cases (NDArrayIter, ImageRecordIter, any ``mx.io`` iterator) and describe the batches as JSON-ready data.

Used by the differential tests of tests/io in both directions: ``<mxnet python>
mxnet_io_runner.py`` reads a JSON list of cases on stdin and prints MXNet 1.9.1's answers
(``ask_mxnet`` does that from a test), and the tests call the same ``run_case`` with
``minimx`` as the library.  Only numpy (and, in ``main``, mxnet) are imported.
"""
import json
import os
import subprocess
import sys

import numpy as np


def batch_record(batch):
    return {"data": [d.asnumpy().tolist() for d in batch.data],
            "label": [d.asnumpy().tolist() for d in (batch.label or [])],
            "pad": batch.pad}


def _epochs(it, count):
    epochs = []
    for _ in range(count):
        epochs.append([batch_record(b) for b in it])
        it.reset()
    return epochs


def run_ndarray_iter(mx, case):
    np.random.seed(case["seed"])
    data = {k: np.array(v, dtype=np.float32) for k, v in case["data"].items()}
    label = {k: np.array(v, dtype=np.float32) for k, v in case["label"].items()}
    if case["as_list"]:
        data, label = list(data.values()), list(label.values()) or None
    it = mx.io.NDArrayIter(data, label, **case["kwargs"])
    return {"epochs": _epochs(it, case["epochs"]),
            "provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
            "provide_label": [[d.name, list(d.shape)] for d in it.provide_label]}


def run_image_record_iter(mx, case):
    return {"epochs": _epochs(mx.io.ImageRecordIter(**case["kwargs"]), case["epochs"])}


def run_image_det_record_iter(mx, case):
    return {"epochs": _epochs(mx.io.ImageDetRecordIter(**case["kwargs"]), case["epochs"])}


def run_named_iter(mx, case):
    """Any iterator of ``mx.io`` by name (``CSVIter``, ``MNISTIter``, ...)."""
    return {"epochs": _epochs(getattr(mx.io, case["iter"])(**case["kwargs"]), case["epochs"])}


def _getters(it):
    """What the four getters return for the current batch (an NDArray or a list of them)."""
    def arrays(value):
        if isinstance(value, list):
            return ["list", [v.asnumpy().tolist() for v in value]]
        return [type(value).__name__, value.asnumpy().tolist(), str(value.asnumpy().dtype)]
    index = it.getindex()
    return {"data": arrays(it.getdata()), "label": arrays(it.getlabel()), "pad": it.getpad(),
            "index": None if index is None else np.asarray(index).astype(np.int64).tolist()}


def run_named_iter_getters(mx, case):
    """The getters of an ``mx.io`` iterator after each ``next()`` of ``case["batches"]``, and
    its ``provide_data``/``provide_label``."""
    it = getattr(mx.io, case["iter"])(**case["kwargs"])
    seen = []
    for _ in range(case["batches"]):
        it.next()
        seen.append(_getters(it))
    return {"getters": seen,
            "provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
            "provide_label": [[d.name, list(d.shape)] for d in it.provide_label]}


RUNNERS = {"named_iter_getters": run_named_iter_getters, "ndarray_iter": run_ndarray_iter, "image_record_iter": run_image_record_iter,
           "image_det_record_iter": run_image_det_record_iter, "named_iter": run_named_iter}


def run_case(mx, case):
    """``case`` run with the library ``mx`` (mxnet or minimx)."""
    return RUNNERS[case["kind"]](mx, case)


# MXNet's C++ iterators (MNISTIter, CSVIter, ImageRecordIter) read ahead on threads of their
# own.  Once, in a whole-suite run, the reference process for four tiny CSVIter/MNISTIter cases
# (about 1 s of work) never finished in 300 s; 70 reruns, idle and under load, all finished in
# about 1 s.  Once, in the stand-in GPU pass, it died of a heap error in MXNet's C++ code
# ("corrupted double-linked list", SIGABRT) on cases that pass on every rerun.  A hung or
# crashed reference says nothing about minimx, so it is asked again.
_REFERENCE_TRIES, _REFERENCE_TIMEOUT = 3, 100


def ask_mxnet(mxnet_python, cases):
    """MXNet 1.9.1's answers for ``cases``, from a subprocess running this file."""
    for _ in range(_REFERENCE_TRIES):
        try:
            result = subprocess.run([mxnet_python, os.path.abspath(__file__)],
                                    input=json.dumps(cases), capture_output=True, text=True,
                                    timeout=_REFERENCE_TIMEOUT)
        except subprocess.TimeoutExpired:
            continue
        if result.returncode < 0:           # killed by a signal inside MXNet's own code
            continue
        assert result.returncode == 0, result.stderr[-2000:]
        return json.loads(result.stdout.strip().splitlines()[-1])
    raise AssertionError(f"MXNet's reference run hung or crashed {_REFERENCE_TRIES} times "
                         f"({_REFERENCE_TIMEOUT} s each) on {len(cases)} cases")


def main():
    import mxnet
    print(json.dumps([run_case(mxnet, case) for case in json.load(sys.stdin)]))


if __name__ == "__main__":
    main()
