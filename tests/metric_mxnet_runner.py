"""Run metric cases on a library: MXNet 1.9.1 here, minimx in test_metric_vs_mxnet.py.

The reference side runs in the reference interpreter::

    /opt/mxref/bin/python metric_mxnet_runner.py CASES.json ARRAYS.npz OUT.json

Each case names a metric (``mx.metric.create`` arguments) and a list of steps:
``["update", [label keys], [pred keys]]`` or ``["reset_local"]``.  After every
step the runner records ``get()`` and ``get_global()``.  Inputs are a plain
``.npz`` and JSON; nothing is unpickled.
"""
import json
import sys

import numpy as np


def run_case(mx, case, arrays):
    """``case`` on the library ``mx`` (mxnet or minimx): its name and values per step."""
    metric = mx.metric.create(case["metric"], **case["kwargs"])
    results = []
    for step in case["steps"]:
        if step[0] == "reset_local":
            metric.reset_local()
        else:
            labels = [mx.nd.array(arrays[key], dtype=arrays[key].dtype) for key in step[1]]
            preds = [mx.nd.array(arrays[key], dtype=arrays[key].dtype) for key in step[2]]
            metric.update(labels, preds)
        results.append([plain(metric.get()[1]), plain(metric.get_global()[1])])
    return {"name": metric.get()[0], "values": results}


def plain(value):
    """A float, or a list of floats (a composite metric), for JSON."""
    return [float(item) for item in value] if isinstance(value, list) else float(value)


def main(cases_path, arrays_path, out_path):
    with open(cases_path) as handle:
        cases = json.load(handle)
    arrays = dict(np.load(arrays_path, allow_pickle=False))
    import mxnet
    with open(out_path, "w") as handle:
        json.dump([run_case(mxnet, case, arrays) for case in cases], handle)


if __name__ == "__main__":
    main(*sys.argv[1:4])
