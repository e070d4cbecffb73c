"""The memory view's data as JSON for the browser (and for the static picture).

Lesson: 05-lazy-evaluation.  Times in seconds since each case began; memory in MB
above the resident memory just before the case (its baseline).
"""
from .model import downsample

__all__ = ["build_payload"]


def build_payload(experiment, title="", final=True, max_points=300):
    """A JSON-able dict describing the runs of a ``MemoryGrowthExperiment`` so far."""
    runs = []
    for run in list(experiment.runs):
        samples = downsample(list(run.samples), max_points)
        runs.append({"label": run.label, "t": [round(t, 4) for t, _ in samples],
                     "mb": [round(mb - run.baseline_mb, 2) for _, mb in samples],
                     "baseline_mb": round(run.baseline_mb, 1),
                     "growth_mb": round(run.growth_mb, 2), "loop_s": run.loop_s,
                     "finished_s": run.finished_s, "pushed": len(run.batches_pushed),
                     "done": run.done})
    t_end = max([r["t"][-1] for r in runs if r["t"]] + [1e-3])
    return {"version": 1, "title": title, "final": final, "t_end": t_end,
            "y_max": max([max(r["mb"], default=0) for r in runs] + [1.0]),
            "params": {"batches": experiment.batches, "batch_size": experiment.batch_size,
                       "width": experiment.width, "max_pending": experiment.max_pending},
            "cases": [label for label, _, _ in experiment.cases], "runs": runs}
