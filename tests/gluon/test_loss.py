"""gluon.loss: every loss against numpy, against MXNet 1.9.1, and hybridized vs imperative."""
import itertools
import json
import subprocess
import textwrap

import numpy as np
import pytest

import minimx as mx
from minimx import autograd, nd
from minimx.gluon import loss as gloss


def _softrelu(x):
    return np.log1p(np.exp(x))


def _log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _per_sample(loss):
    return loss.reshape(loss.shape[0], -1).mean(axis=1)


def _inputs(name, rng):
    """The arrays each case is called with (pred first; gradients are taken w.r.t. it)."""
    pred = rng.standard_normal((3, 4)).astype(np.float32)
    dense = rng.standard_normal((3, 4)).astype(np.float32)
    weight = rng.uniform(0.5, 1.5, (3, 1)).astype(np.float32)
    signs = np.where(rng.random((3, 4)) > 0.5, 1, -1).astype(np.float32)
    binary = (rng.random((3, 4)) > 0.5).astype(np.float32)
    probs = np.exp(_log_softmax(rng.standard_normal((3, 4)))).astype(np.float32)
    table = {
        "l2": [pred, dense], "l2_weighted": [pred, dense, weight], "l1": [pred, dense],
        "l1_label_reshaped": [pred[:, :1], dense[:, 0]],
        "sce": [pred, np.array([0, 3, 1], np.float32)],
        "sce_weighted": [pred, np.array([2, 3, 1], np.float32), weight],
        "sce_dense": [pred, probs], "sce_axis0": [pred, np.array([0, 2, 1, 1], np.float32)],
        "sce_from_logits": [_log_softmax(pred).astype(np.float32),
                            np.array([1, 1, 0], np.float32)],
        "bce": [pred, binary], "bce_from_sigmoid": [1 / (1 + np.exp(-pred)), binary],
        "bce_pos_weight": [pred, binary, None, np.array([[2.0, 1.0, 0.5, 3.0]], np.float32)],
        "kl": [_log_softmax(pred).astype(np.float32), probs], "kl_logits": [pred, probs],
        "huber": [pred, dense], "hinge": [pred, signs], "squared_hinge": [pred, signs],
        "logistic": [pred, signs], "logistic_binary": [pred, binary],
        "triplet": [pred, dense, rng.standard_normal((3, 4)).astype(np.float32)],
        "poisson": [pred, np.abs(dense)],
        "poisson_full": [np.abs(pred) + 0.1, np.floor(np.abs(dense) * 3) + 1],   # no 0*log 0
        "cosine": [pred, dense, np.array([1, -1, 1], np.float32)],
    }
    return table[name]


CONSTRUCTORS = {
    "l2": "L2Loss()", "l2_weighted": "L2Loss(weight=3.0)", "l1": "L1Loss(weight=0.5)",
    "l1_label_reshaped": "L1Loss()", "sce": "SoftmaxCrossEntropyLoss()",
    "sce_weighted": "SoftmaxCrossEntropyLoss(weight=2.0)",
    "sce_dense": "SoftmaxCrossEntropyLoss(sparse_label=False)",
    "sce_axis0": "SoftmaxCrossEntropyLoss(axis=0, batch_axis=1)",
    "sce_from_logits": "SoftmaxCrossEntropyLoss(from_logits=True)",
    "bce": "SigmoidBinaryCrossEntropyLoss()",
    "bce_from_sigmoid": "SigmoidBinaryCrossEntropyLoss(from_sigmoid=True)",
    "bce_pos_weight": "SigmoidBinaryCrossEntropyLoss()", "kl": "KLDivLoss()",
    "kl_logits": "KLDivLoss(from_logits=False)", "huber": "HuberLoss(rho=0.7)",
    "hinge": "HingeLoss()", "squared_hinge": "SquaredHingeLoss(margin=0.5)",
    "logistic": "LogisticLoss()", "logistic_binary": "LogisticLoss(label_format='binary')",
    "triplet": "TripletLoss(margin=0.3)", "poisson": "PoissonNLLLoss()",
    "poisson_full": "PoissonNLLLoss(from_logits=False, compute_full=True)",
    "cosine": "CosineEmbeddingLoss(margin=0.2)",
}


def _reference(name, args):
    """The loss per sample, computed by hand in numpy (float64)."""
    a = [None if x is None else np.asarray(x, np.float64) for x in args]
    x, y = a[0], a[1]
    if name.startswith("l2"):
        weight = 3.0 if name == "l2_weighted" else 1.0
        sample = a[2] if len(a) > 2 else 1.0
        return _per_sample(weight / 2 * (x - y) ** 2 * sample)
    if name == "l1":
        return _per_sample(0.5 * np.abs(x - y))
    if name == "l1_label_reshaped":
        return _per_sample(np.abs(x - y.reshape(x.shape)))
    if name in ("sce", "sce_weighted", "sce_from_logits"):
        logp = x if name == "sce_from_logits" else _log_softmax(x)
        picked = -logp[np.arange(3), y.astype(int)]
        return picked * (2.0 * a[2][:, 0] if name == "sce_weighted" else 1.0)
    if name == "sce_dense":
        return -(_log_softmax(x) * y).sum(axis=1)
    if name == "sce_axis0":
        return -_log_softmax(x, axis=0)[y.astype(int), np.arange(4)]
    if name == "bce":
        return _per_sample(-(y * np.log(1 / (1 + np.exp(-x)))
                             + (1 - y) * np.log(1 - 1 / (1 + np.exp(-x)))))
    if name == "bce_from_sigmoid":
        return _per_sample(-(y * np.log(x + 1e-12) + (1 - y) * np.log(1 - x + 1e-12)))
    if name == "bce_pos_weight":
        p = 1 / (1 + np.exp(-x))
        return _per_sample(-(a[3] * y * np.log(p) + (1 - y) * np.log(1 - p)))
    if name in ("kl", "kl_logits"):
        logp = x if name == "kl" else _log_softmax(x)
        return (y * (np.log(y + 1e-12) - logp)).sum(axis=1)     # MXNet sums here
    if name == "huber":
        d = np.abs(x - y)
        return _per_sample(np.where(d > 0.7, d - 0.35, d ** 2 / 1.4))
    if name == "hinge":
        return _per_sample(np.maximum(0, 1 - x * y))
    if name == "squared_hinge":
        return _per_sample(np.maximum(0, 0.5 - x * y) ** 2)
    if name in ("logistic", "logistic_binary"):
        signed = y if name == "logistic" else 2 * y - 1
        return _per_sample(np.log1p(np.exp(-x * signed)))
    if name == "triplet":
        gap = ((y - x) ** 2).sum(axis=1) - ((a[2] - x) ** 2).sum(axis=1)
        return np.maximum(0, gap + 0.3)
    if name == "poisson":
        return np.array([(np.exp(x) - y * x).mean()])
    if name == "poisson_full":
        loss = x - y * np.log(x + 1e-8)
        with np.errstate(divide="ignore", invalid="ignore"):
            stirling = y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y)
        return np.array([(loss + np.where(y > 1, stirling, 0)).mean()])
    if name == "cosine":
        cos = (x * y).sum(1) / np.maximum(np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1),
                                          1e-12)
        label = a[2]
        return np.where(label == 1, 1 - cos, np.maximum(0, cos - 0.2))
    raise KeyError(name)


def _run_minimx(name, args, hybridize=False):
    """(loss per sample, gradient w.r.t. pred) from minimx."""
    block = eval("gloss." + CONSTRUCTORS[name])
    if hybridize:
        block.hybridize()
    arrays = [None if x is None else nd.array(x) for x in args]
    arrays[0].attach_grad()
    with autograd.record():
        out = block(*arrays)
    out.backward()
    return out.asnumpy(), arrays[0].grad.asnumpy()


def _case_inputs(name):
    return _inputs(name, np.random.default_rng(sorted(CONSTRUCTORS).index(name)))


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_loss_matches_numpy(name):
    args = _case_inputs(name)
    value, _ = _run_minimx(name, args)
    np.testing.assert_allclose(value.reshape(-1), _reference(name, args).reshape(-1),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_loss_hybridized_equals_imperative(name):
    args = _case_inputs(name)
    value, grad = _run_minimx(name, args)
    value_h, grad_h = _run_minimx(name, args, hybridize=True)
    np.testing.assert_allclose(value_h, value, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad_h, grad, rtol=1e-5, atol=1e-6)


def test_loss_gradient_matches_finite_differences():
    args = _case_inputs("sce_weighted")
    _, grad = _run_minimx("sce_weighted", args)
    x, eps, numeric = args[0].astype(np.float64), 1e-4, np.zeros_like(args[0], np.float64)
    for index in itertools.product(*map(range, x.shape)):
        for sign in (1, -1):
            moved = x.copy()
            moved[index] += sign * eps
            numeric[index] += sign * _reference("sce_weighted", [moved] + args[1:]).sum()
    np.testing.assert_allclose(grad, numeric / (2 * eps), rtol=1e-3, atol=1e-4)


_MXNET_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mxnet as mx
    from mxnet import autograd, nd
    from mxnet.gluon import loss as gloss
    cases = json.load(open(sys.argv[1]))
    inputs = np.load(sys.argv[2])
    results = {}
    for name, (ctor, count) in cases.items():
        block = eval("gloss." + ctor)
        arrays = [nd.array(inputs[f"{name}_{i}"]) if f"{name}_{i}" in inputs else None
                  for i in range(count)]
        if name == "poisson_full":     # MXNet's compute_full writes in place: no autograd
            results[name + "_value"] = block(*arrays).asnumpy()
            results[name + "_repr"] = np.array(repr(block))
            continue
        arrays[0].attach_grad()
        with autograd.record():
            out = block(*arrays)
        out.backward()
        results[name + "_value"] = out.asnumpy()
        results[name + "_grad"] = arrays[0].grad.asnumpy()
        results[name + "_repr"] = np.array(repr(block))
    np.savez(sys.argv[3], **results)
""")


@pytest.fixture(scope="module")
def mxnet_losses(mxnet_python, tmp_path_factory):
    folder = tmp_path_factory.mktemp("mxnet_losses")
    cases, arrays = {}, {}
    for name in CONSTRUCTORS:
        args = _case_inputs(name)
        cases[name] = (CONSTRUCTORS[name], len(args))
        arrays.update({f"{name}_{i}": x for i, x in enumerate(args) if x is not None})
    (folder / "cases.json").write_text(json.dumps(cases))
    np.savez(folder / "inputs.npz", **arrays)
    (folder / "run.py").write_text(_MXNET_SCRIPT)
    subprocess.run([mxnet_python, str(folder / "run.py"), str(folder / "cases.json"),
                    str(folder / "inputs.npz"), str(folder / "out.npz")], check=True,
                   capture_output=True, timeout=300)
    return dict(np.load(folder / "out.npz"))


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_loss_matches_mxnet(name, mxnet_losses):
    value, grad = _run_minimx(name, _case_inputs(name))
    np.testing.assert_allclose(value, mxnet_losses[name + "_value"], rtol=1e-4, atol=1e-5)
    if name + "_grad" in mxnet_losses:
        np.testing.assert_allclose(grad, mxnet_losses[name + "_grad"], rtol=1e-4, atol=1e-5)
    assert repr(eval("gloss." + CONSTRUCTORS[name])) == str(mxnet_losses[name + "_repr"])


# -- CTC -----------------------------------------------------------------------------------------
def _ctc_brute_force(scores, label, blank):
    """-log of the summed probability of every path that collapses to ``label``."""
    log_probs = _log_softmax(scores.astype(np.float64))
    steps, classes = log_probs.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=steps):
        collapsed = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
        if [c for c in collapsed if c != blank] == list(label):
            total += np.exp(sum(log_probs[t, c] for t, c in enumerate(path)))
    return -np.log(total)


def test_ctc_loss_matches_enumeration_of_alignments():
    rng = np.random.default_rng(0)
    pred = rng.standard_normal((2, 4, 3)).astype(np.float32)          # NTC, blank = 2
    label = np.array([[0, 1], [1, -1]], np.float32)
    out = gloss.CTCLoss()(nd.array(pred), nd.array(label)).asnumpy()
    expected = [_ctc_brute_force(pred[0], [0, 1], 2), _ctc_brute_force(pred[1], [1], 2)]
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_ctc_loss_lengths_layouts_and_gradient(mxnet_python, tmp_path):
    rng = np.random.default_rng(1)
    pred = rng.standard_normal((5, 2, 4)).astype(np.float32)          # TNC
    label = np.array([[1, 0, 2], [2, 2, 0]], np.float32).T           # TN
    pred_len, label_len = np.array([5, 4], np.float32), np.array([2, 2], np.float32)
    results = {}
    for hybrid in (False, True):
        block = gloss.CTCLoss(layout="TNC", label_layout="TN")
        if hybrid:
            block.hybridize()
        x = nd.array(pred)
        x.attach_grad()
        with autograd.record():
            out = block(x, nd.array(label), nd.array(pred_len), nd.array(label_len))
        out.backward()
        results[hybrid] = (out.asnumpy(), x.grad.asnumpy())
    np.testing.assert_allclose(results[True][0], results[False][0], rtol=1e-6)
    np.testing.assert_allclose(results[True][1], results[False][1], rtol=1e-6, atol=1e-7)
    assert np.all(results[False][1][4:, 1] == 0)      # steps past pred_lengths get no gradient
    np.savez(tmp_path / "in.npz", pred=pred, label=label, pred_len=pred_len, label_len=label_len)
    script = textwrap.dedent(f"""
        import numpy as np, mxnet as mx
        from mxnet import autograd, nd
        d = np.load({str(tmp_path / 'in.npz')!r})
        x = nd.array(d['pred']); x.attach_grad()
        with autograd.record():
            out = mx.gluon.loss.CTCLoss(layout='TNC', label_layout='TN')(
                x, nd.array(d['label']), nd.array(d['pred_len']), nd.array(d['label_len']))
        out.backward()
        np.savez({str(tmp_path / 'out.npz')!r}, value=out.asnumpy(), grad=x.grad.asnumpy())
    """)
    subprocess.run([mxnet_python, "-c", script], check=True, capture_output=True, timeout=120)
    expected = np.load(tmp_path / "out.npz")
    np.testing.assert_allclose(results[False][0], expected["value"], rtol=1e-5)
    np.testing.assert_allclose(results[False][1], expected["grad"], rtol=1e-4, atol=1e-6)


def test_bad_arguments_fail_clearly():
    with pytest.raises(ValueError, match="label_format"):
        gloss.LogisticLoss(label_format="zero_one")
    with pytest.raises(ValueError, match="layouts for pred"):
        gloss.CTCLoss(layout="NCT")
    with pytest.raises(TypeError, match="weight must be a number"):
        gloss.L1Loss(weight=nd.ones((1,)))(nd.ones((2, 1)), nd.ones((2, 1)))
    assert gloss.SigmoidBCELoss is gloss.SigmoidBinaryCrossEntropyLoss
    assert gloss.SoftmaxCELoss is gloss.SoftmaxCrossEntropyLoss
    assert isinstance(gloss.L2Loss(), mx.gluon.HybridBlock)


def test_sdml_loss_is_the_kl_divergence_to_the_smoothed_pairing():
    rng = np.random.RandomState(0)
    x1 = rng.uniform(-1, 1, (4, 3))
    x2 = x1 + rng.uniform(-0.3, 0.3, (4, 3))
    got = mx.gluon.loss.SDMLLoss()(mx.nd.array(x1), mx.nd.array(x2)).asnumpy()
    distances = ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(-1)
    log_probs = -distances - np.log(np.exp(-distances).sum(1, keepdims=True))
    target = np.full((4, 4), 0.3 / 3)
    np.fill_diagonal(target, 0.7)
    np.testing.assert_allclose(got, (target * (np.log(target) - log_probs)).sum(1), rtol=1e-5)
    with pytest.raises(ValueError, match="at least 2 pairs"):
        mx.gluon.loss.SDMLLoss()(mx.nd.ones((1, 3)), mx.nd.ones((1, 3)))
