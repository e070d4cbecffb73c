"""Run optimizer cases on MXNet 1.9.1: the reference side of test_optimizers.py.

Executed by the reference interpreter, never by pytest:
``python mxnet_optimizer_runner.py CASES.json INPUTS.npz OUT.npz``.  Each case
creates ``mx.optimizer.create(name, **kwargs)`` (an ``lr_scheduler`` given as
``{"scheduler": [class name, kwargs]}``), makes the weight's state with
``create_state_multi_precision`` and applies ``update_multi_precision`` once per
gradient, storing the weight after every step.  Inputs are plain ``.npz``
arrays and JSON; nothing is unpickled.  mxnet is imported inside ``main`` so
that pytest's doctest collection can import this file without MXNet.
"""
import json
import sys

import numpy as np


def decode_kwargs(mx, kwargs):
    kwargs = dict(kwargs)
    spec = kwargs.get("lr_scheduler")
    if spec is not None:
        class_name, scheduler_kwargs = spec["scheduler"]
        kwargs["lr_scheduler"] = getattr(mx.lr_scheduler, class_name)(**scheduler_kwargs)
    return kwargs


def run_case(mx, case, inputs):
    key = case["key"]
    optimizer = mx.optimizer.create(case["name"], **decode_kwargs(mx, case["kwargs"]))
    if case.get("lr_mult"):
        optimizer.set_lr_mult({int(k): v for k, v in case["lr_mult"].items()})
    if case.get("wd_mult"):
        optimizer.set_wd_mult({int(k): v for k, v in case["wd_mult"].items()})
    index = case.get("index", 0)
    weight = mx.nd.array(inputs[f"{key}_w0"], dtype=case["dtype"])
    state = optimizer.create_state_multi_precision(index, weight)
    results = {}
    for step in range(case["steps"]):
        grad = mx.nd.array(inputs[f"{key}_g{step}"], dtype=case["dtype"])
        optimizer.update_multi_precision(index, weight, grad, state)
        results[f"{key}_w{step + 1}"] = weight.asnumpy()
    return results


def main(cases_path, inputs_path, out_path):
    import mxnet as mx
    with open(cases_path) as stream:
        cases = json.load(stream)
    inputs = dict(np.load(inputs_path))
    results = {}
    for case in cases:
        results.update(run_case(mx, case, inputs))
    np.savez(out_path, **results)
    print("done")


if __name__ == "__main__":
    main(*sys.argv[1:4])
