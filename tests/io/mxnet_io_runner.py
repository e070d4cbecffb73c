"""Run NDArrayIter / ImageRecordIter cases in MXNet 1.9.1 and print the batches as JSON.

Used by the differential tests of tests/io: ``<mxnet python> mxnet_io_runner.py`` reads a
JSON list of cases on stdin. Only numpy and mxnet are imported.
"""
import json
import sys

import numpy as np

mx = None  # imported in main(): pytest's doctest collection imports this file too


def batch_record(batch):
    return {"data": [d.asnumpy().tolist() for d in batch.data],
            "label": [d.asnumpy().tolist() for d in (batch.label or [])],
            "pad": batch.pad}


def run_ndarray_iter(case):
    np.random.seed(case["seed"])
    data = {k: np.array(v, dtype=np.float32) for k, v in case["data"].items()}
    label = {k: np.array(v, dtype=np.float32) for k, v in case["label"].items()}
    if case["as_list"]:
        data, label = list(data.values()), list(label.values()) or None
    it = mx.io.NDArrayIter(data, label, **case["kwargs"])
    epochs = []
    for _ in range(case["epochs"]):
        epochs.append([batch_record(b) for b in it])
        it.reset()
    return {"epochs": epochs,
            "provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
            "provide_label": [[d.name, list(d.shape)] for d in it.provide_label]}


def run_image_record_iter(case):
    it = mx.io.ImageRecordIter(**case["kwargs"])
    epochs = []
    for _ in range(case["epochs"]):
        epochs.append([batch_record(b) for b in it])
        it.reset()
    return {"epochs": epochs}


def run_image_det_record_iter(case):
    it = mx.io.ImageDetRecordIter(**case["kwargs"])
    epochs = []
    for _ in range(case["epochs"]):
        epochs.append([batch_record(b) for b in it])
        it.reset()
    return {"epochs": epochs}


def main():
    global mx
    import mxnet
    mx = mxnet
    cases = json.load(sys.stdin)
    runners = {"ndarray_iter": run_ndarray_iter, "image_record_iter": run_image_record_iter,
               "image_det_record_iter": run_image_det_record_iter}
    print(json.dumps([runners[case["kind"]](case) for case in cases]))


if __name__ == "__main__":
    main()
