"""Run every registry test case on MXNet 1.9.1: the reference side of test_vs_mxnet.py.

Executed by the reference interpreter (``/opt/mxref/bin/python``), never by
pytest: ``python mxnet_reference_runner.py CASES.json INPUTS.npz OUT.npz OUT.json``.
For each case it calls the MXNet operator of the same name with the same
parameters and inputs, under ``autograd.record()`` and with the same head
gradients when the case checks gradients, and stores outputs and gradients.
Nothing is unpickled: inputs are plain ``.npz`` arrays, cases plain JSON.
"""
import json
import sys

import mxnet as mx
import numpy as np

# minimx operators that MXNet 1.9.1 has under no name (the reason is reported).
MINIMX_ONLY = {
    "_index": "minimx's numpy-style indexing operator (MXNet indexes in Python)",
    # MXNet has Custom, but not the op_type the generated case runs (registered by minimx)
    "Custom": "the case's op_type '_example_square' is registered in minimx only; "
              "tests/test_custom_op.py compares a custom operator with MXNet",
}

# MXNet infers the outputs of its multi-weight updates only from ``out=`` (without it:
# "shape must have a valid ndim"): the runner passes a copy of each weight.  Per operator:
# the size of one weight's group of inputs, and how many inputs follow the last group
# (the AdamW updates end with one rescale_grad).
OUT_FROM_WEIGHTS = {"multi_sgd_update": (2, 0), "multi_sgd_mom_update": (3, 0),
                    "multi_mp_sgd_update": (3, 0), "multi_mp_sgd_mom_update": (4, 0),
                    "_multi_adamw_update": (4, 1), "_multi_mp_adamw_update": (5, 1)}


def decode(value):
    """Undo the test's JSON encoding of parameter values (tuples are tagged)."""
    if isinstance(value, dict) and "__tuple__" in value:
        return tuple(decode(item) for item in value["__tuple__"])
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


# MXNet moves operators with these prefixes into submodules, without the prefix.
PREFIX_MODULES = {"_random_": "random", "_linalg_": "linalg", "_contrib_": "contrib",
                  "_image_": "image", "_sparse_": "sparse"}


# Legacy operators whose imperative form cannot take their auxiliary states (MXNet parses the
# arrays as parameters); each has a differential test through a bound Symbol instead.
SYMBOLIC_ONLY = {"BatchNorm_v1": "MXNet's nd.BatchNorm_v1 takes no moving statistics; "
                                 "tests/op/test_batchnorm_v1_mxnet.py compares bound Symbols",
                 **{name: f"MXNet's {name} takes row_sparse data only (the generated cases "
                          f"are dense); tests/sparse/test_sparse_symbol_vs_mxnet.py compares "
                          f"it on row_sparse arrays in graphs"
                    for name in ("_sparse_retain", "_square_sum")}}


def resolve(name):
    """MXNet's generated function for operator ``name``, or None."""
    namespaces = [mx.nd._internal, mx.nd.op] if name.startswith("_") else [mx.nd.op,
                                                                             mx.nd._internal]
    for namespace in namespaces:
        function = getattr(namespace, name, None)
        if function is not None:
            return function
    for prefix, module in PREFIX_MODULES.items():
        if name.startswith(prefix):
            return getattr(getattr(mx.nd, module), name[len(prefix):], None)
    return None


def run_case(case, arrays, differentiate=True):
    """Outputs and gradients of one case as numpy arrays."""
    function = resolve(case["name"])
    params = {key: decode(value) for key, value in case["params"].items()}
    inputs = [mx.nd.array(arrays[key], dtype=arrays[key].dtype) for key in case["inputs"]]
    grad_inputs = case["grad_inputs"] if differentiate else []
    for position in grad_inputs:
        inputs[position].attach_grad()
    if case["name"] in OUT_FROM_WEIGHTS:
        stride, trailing = OUT_FROM_WEIGHTS[case["name"]]
        params["out"] = [weight.copy() for weight in inputs[:len(inputs) - trailing:stride]]
    mx.random.seed(7)
    with mx.autograd.record(train_mode=True):
        result = function(*inputs, **params) if differentiate else None
    if not differentiate:
        with mx.autograd.train_mode():
            result = function(*inputs, **params)
    outputs = list(result) if isinstance(result, (list, tuple)) else [result]
    grads = []
    if grad_inputs:
        heads = [mx.nd.array(arrays[key], dtype=output.dtype)
                 for key, output in zip(case["head_grads"], outputs)]
        mx.autograd.backward(outputs, heads)
        grads = [inputs[position].grad.asnumpy() for position in grad_inputs]
    outputs = [output.asnumpy() for output in outputs]
    mx.nd.waitall()                # an asynchronous error belongs to this case, not the next
    return outputs, grads


def describe(error):
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[-1] if lines else ''}"


def run_reported(case, arrays):
    """``(outputs, grads, report entry)``; when only differentiating fails, the forward
    outputs still come back, with the reason in ``grad_error``."""
    try:
        outputs, grads = run_case(case, arrays)
        return outputs, grads, {"status": "ok"}
    except Exception as error:  # noqa: BLE001 - every failure is reported per case
        first = describe(error)
        _clear_pending_errors()
    if not case["grad_inputs"]:
        return [], [], {"status": "error", "message": first}
    try:
        outputs, _ = run_case(case, arrays, differentiate=False)
    except Exception as error:  # noqa: BLE001
        _clear_pending_errors()
        return [], [], {"status": "error", "message": describe(error)}
    return outputs, [], {"status": "ok", "grad_error": first}


def _clear_pending_errors():
    try:
        mx.nd.waitall()
    except Exception:  # noqa: BLE001 - already reported
        pass


def main(cases_path, inputs_path, out_arrays_path, out_report_path):
    with open(cases_path) as handle:
        cases = json.load(handle)
    arrays = np.load(inputs_path, allow_pickle=False)
    results, report = {}, {}
    for case in cases:
        key = case["key"]
        if case.get("skip"):
            report[key] = {"status": "missing", "message": case["skip"]}
            continue
        if case["name"] in MINIMX_ONLY or case["name"] in SYMBOLIC_ONLY:
            reason = MINIMX_ONLY.get(case["name"]) or SYMBOLIC_ONLY[case["name"]]
            report[key] = {"status": "missing", "message": reason}
            continue
        if resolve(case["name"]) is None:
            report[key] = {"status": "missing",
                           "message": f"MXNet 1.9.1 has no operator {case['name']}"}
            continue
        print(f"case {key} {case['id']}", flush=True)     # names the case if MXNet crashes
        outputs, grads, entry = run_reported(case, arrays)
        for index, value in enumerate(outputs):
            results[f"{key}_out{index}"] = value
        for index, value in enumerate(grads):
            results[f"{key}_grad{index}"] = value
        report[key] = {**entry, "outputs": len(outputs), "grads": len(grads)}
    np.savez(out_arrays_path, **results)
    with open(out_report_path, "w") as handle:
        json.dump(report, handle)
    print("done", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
