"""Every lesson runs top to bottom, its exercises' reference solutions pass their own tests, and
the figures the lesson's text states hold.

The figures are checked here, not in the lessons: after a lesson runs, the check for it below
runs in the same kernel (so it sees the lesson's variables).  A student's notebook holds only
the exercises and their tests.
"""
import importlib.util
import os
import pathlib
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
if importlib.util.find_spec("nbclient") is None or importlib.util.find_spec("jupytext") is None:
    pytest.skip("nbclient/jupytext not installed (pip install -e '.[dev]')",
                allow_module_level=True)
sys.path.insert(0, str(ROOT / "tools"))
import run_lessons  # noqa: E402

LESSONS = run_lessons.lesson_paths()

# What each lesson's text claims, as code run after the lesson (keyed by lesson number).
CHECKS = {
    "03": """
        same = {what: by_nd == by_np for what, (by_nd, by_np) in operator_pairs.items()}
        assert same == {**{what: True for what in pairs}, "dot": False}, operator_pairs
        assert operator_pairs["dot"] == (["dot"], ["_np_dot"])
        onp.testing.assert_allclose(gradients["nd"].asnumpy(), gradients["np"].asnumpy())
        assert semantics["one element m[1, 2]"] == ((1,), ())
        assert semantics["m > 2, dtype"] == ("float32", "bool")
        assert semantics["array([1, 2]).dtype"] == ("float32", "float32")
        assert semantics["(3,) + (2, 1), shape"] == ((2, 3), (2, 3))
        assert semantics["v[v > 2], v = arange(6)"] == ([0, 0, 0, 1, 1, 1], [3, 4, 5])
        # np.dot is lazy; nonzero waited for the product; nothing was pushed while it waited
        assert lazy_returned < product_finished < nonzero_returned
        assert all(op.push < product_finished for op in nonzero_view.recording.ops)
        [sync] = nonzero_view.recording.syncs          # nonzero's wait, for the mask's writer
        assert sync.var == mask.engine_var.id and sync.end >= product_finished
        assert sync.reason == mx.engine.VALUE_DEPENDENT     # drawn as value-dependent
        assert recording.by_id[sync.waited_for].writes == (mask.engine_var.id,)
        assert shared == {"same var": True, "write seen through nd": 7.0}
        assert graph_nd[0] == graph_np[0] and (graph_nd[1], graph_np[1]) == ("NDArray", "ndarray")
    """,
    "04": """
        np.testing.assert_allclose(s.grad.asnumpy(), -np.sin([0.5, 1.0]), rtol=1e-5)
    """,
    "05": """
        assert queued < 0.05 * finished, "the dot call should return long before it finishes"
        # small operations run in the calling thread, large ones on a worker
        starts = [event.thread for event in events if event.kind == "start"]
        assert starts[0] == "MainThread" and starts[1].startswith("engine-cpu"), starts
    """,
    "06": """
        # the ordering table: unordered pairs took about one PAUSE, ordered ones two
        for label, seconds in sleep_times.items():
            ordered = "(independent)" not in label and "(two readers)" not in label
            assert (seconds > 1.7 * PAUSE) == ordered, (label, seconds)
        assert worker_times[1] > 3.5 * PAUSE and worker_times[4] < 2.5 * PAUSE, worker_times
        assert naive_time > 3.5 * PAUSE
        assert mx.engine.num_threads()["blas"] == "auto"
        assert set(budget_times) == {"idle", "one core busy"}
        assert len(chain_edges) == 1 and not independent_edges
    """,
    "07": """
        assert graph_view.model["planned"]["steps_after"] == 6
    """,
    "08": """
        np.testing.assert_allclose(added["bias"], 3 * written["bias"], rtol=1e-5)
        assert graph_pushes == ["executor_forward"] and len(eager_pushes) >= 9
        assert len(report.passes["remove_identities"]) == 1
        assert len(report.passes["fold_constants"]) == 2
        fusions = report.passes["fuse_elementwise"]
        assert [c.split(":")[0] for c in fusions] == ["fused 3 ops into one step"], fusions
        assert report.memory_planned < report.memory_unplanned
        assert train_report.memory_planned == train_report.memory_unplanned
        # BatchNorm's moving mean: unmoved by the forward, moved by the backward
        np.testing.assert_array_equal(after_forward, 0)
        np.testing.assert_allclose(after_backward, 0.1 * bn_batch.asnumpy().mean(axis=0),
                                   rtol=1e-5)
    """,
    "10": """
        assert pushes_per_call(net, x)[0] == 1 and pushes_per_call(imperative_net, x)[0] == 5
        assert hybrid_counts == [hybrid_counts[0]] * 3 and imperative_counts == [1.0, 2.0, 3.0]
        assert hybrid_result is None
        assert isinstance(branch_error, mx.base.NotImplementedForSymbol)
        pushes = {row["mode"]: row["pushes_per_forward"] for row in big_batch["results"]}
        assert pushes == {"imperative": 5, "hybridized": 1}
        assert loop_sizes == {3: 1, 12: 1} and graph_operators(loop_sum) == ["_foreach"]
        assert unrolled_sizes == {3: 3 * 3 + 1, 12: 3 * 12 + 1}
    """,
    "11": """
        assert handled["roll_over", 1][0] == ([8, 9, 0, 1], 2)
    """,
    "12": """
        assert val_accuracy >= 0.9, f"validation accuracy {val_accuracy} is below 0.9"
        assert same and len([f for f in os.listdir(workdir) if f.endswith(".params")]) == EPOCHS
        assert perplexity["perplexity"] < 1.5
    """,
    "13": """
        # the kernels' hyperparameters are float32 (as MXNet's): the 7th digit may differ
        assert all(difference < 1e-5 for difference in worst.values()), worst
        np.testing.assert_allclose(four / one, 4.0, rtol=1e-5)
        assert steps[:4] == [1.0, 1.0, 0.5, 0.5] and gluon_frozen
        assert gradient.stype == "row_sparse" and gradient.indices.shape[0] <= 256
        assert sparse_ms * 5 < dense_ms, (sparse_ms, dense_ms)
        # a graph's row_sparse gradient: one row per feature of the batch (64 x 8 distinct)
        assert weight_gradient.stype == "row_sparse"
        assert weight_gradient.indices.shape[0] == 512
        assert linear_sparse_ms * 5 < linear_dense_ms, (linear_sparse_ms, linear_dense_ms)
    """,
    "14": """
        np.testing.assert_allclose(summed[0].asnumpy(), whole.asnumpy(), rtol=1e-5)
        assert (copies[0] == copies[1]).all() and gluon_difference < 1e-5
        assert module_difference < 1e-4
        if mpi_ready:
            assert [w["rank"] for w in workers] == [0, 1] and workers[0]["workers"] == 2
            assert between_workers == 0.0 and versus_single < 1e-4
    """,
    "15": """
        assert "cpu(0)" in str(mixing_error) and "gpu(0)" in str(mixing_error)
        np.testing.assert_allclose(device_grad.asnumpy(), cpu_grad.asnumpy(), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(device_losses, cpu_losses, rtol=1e-4)
        assert device_losses[-1] < device_losses[0]
    """,
}


def test_every_check_names_a_lesson():
    numbers = {path.name[:2] for path in LESSONS}
    assert set(CHECKS) <= numbers, set(CHECKS) - numbers


# scripts/test.sh builds the book first: that build executes every lesson of book.yml in a fresh
# kernel and fails on any cell error, so a lesson it executed that has no figures to check here
# is not run a second time.
EXECUTED = os.environ.get("MINIMX_LESSONS_EXECUTED")


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_runs_and_its_figures_hold(path):
    missing = run_lessons.missing_program(path)
    if missing:
        pytest.skip(missing)
    check = textwrap.dedent(CHECKS.get(path.name[:2], ""))
    if not check and EXECUTED and (pathlib.Path(EXECUTED) / f"{path.stem}.ipynb").exists():
        pytest.skip("executed by this run's book build (scripts/test.sh), nothing more to check")
    run_lessons.execute(path, timeout=300, then=check)
