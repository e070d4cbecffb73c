"""Run every benchmark once and print one summary table (the figures the closing note quotes).

    python bench/run_all.py

Each script also runs alone and prints its own detailed table.  The machine's load
changes every figure: compare ratios measured in the same run, not across runs.
"""
import bucketing_lm
import conv_layers
import course_workloads
import crf_loop
import dcgan_step
import executor_bench
import gluon_bench
import image_pipeline
import import_time
import imresize_bench
import lazy_dot
import memory_growth
import module_fit
import np_overhead
import observer_overhead
import op_overhead
import parallel_ops
import resnet20_fit
from _util import fmt, print_table, ratio


def main():
    started = import_time.main([])
    overhead = op_overhead.main()
    frontends = np_overhead.main()
    observed = observer_overhead.main()
    lazy = lazy_dot.main()
    memory = memory_growth.main()
    parallel = parallel_ops.main()
    graphs = executor_bench.main()
    training = module_fit.main()
    buckets = bucketing_lm.main()
    crf = crf_loop.main()
    gluon = gluon_bench.main()
    gan, gan_mxnet = dcgan_step.main()
    layers = conv_layers.main(["2"])
    resnet, resnet_mxnet = resnet20_fit.main()
    course = course_workloads.main(["--rounds", "2"])
    resized = imresize_bench.main()
    pipeline = image_pipeline.main()

    threaded, naive = overhead["minimx ThreadedEngine"], overhead["minimx NaiveEngine"]
    mxnet = overhead["MXNet 1.9.1"]
    unobserved = observed["no subscriber"]
    bare = observed["bare subscriber (list.append)"]
    viewed = observed["engine queue view attached"]
    queued, finished = lazy["minimx"]
    mx_queued, mx_finished = lazy["MXNet 1.9.1"]
    with_sync = memory["sync every batch"][0]
    without = memory["no sync"][0]
    bounded = memory["no sync, max_pending(8)"][0]
    serial = parallel["each followed by a wait"]
    together = parallel["pushed back to back"]
    floor, ours, theirs = (started.get(label, (None,))[0]
                           for label in ("python -c pass", "import minimx", "import mxnet"))
    rows = [
        ("import minimx / import mxnet", fmt(ours, " s"), fmt(theirs, " s"),
         ratio(ours, theirs), f"<= 0.35 s idle (python -c pass: {fmt(floor, ' s')})"),
        ("x+1 per op, ThreadedEngine", fmt(threaded, " us"), fmt(mxnet, " us"),
         ratio(threaded, mxnet), "<= 1.00x of MXNet"),
        ("x+1 per op, NaiveEngine", fmt(naive, " us"), fmt(mxnet, " us"),
         ratio(naive, mxnet), ""),
        ("x+1 per op, numpy", fmt(overhead["numpy"], " us"), "", "", ""),
        ("x+1 per op, mx.np array / MXNet's", fmt(overhead["minimx np, ThreadedEngine"], " us"),
         fmt(overhead["MXNet 1.9.1 np"], " us"),
         ratio(overhead["minimx np, ThreadedEngine"], overhead["MXNet 1.9.1 np"]),
         "<= 1.00x of MXNet"),
        ("exp(x+1) per op: mx.np / nd", fmt(frontends["minimx np"], " us"),
         fmt(frontends["minimx nd"], " us"), ratio(frontends["minimx np"],
                                                   frontends["minimx nd"]), "about 1x"),
        ("exp(x+1) per op: mx.np / MXNet's mx.np", fmt(frontends["minimx np"], " us"),
         fmt(frontends["MXNet 1.9.1 np"], " us"), ratio(frontends["minimx np"],
                                                        frontends["MXNet 1.9.1 np"]),
         "<= 1.00x of MXNet"),
    ]
    ours, theirs, _ = frontends["element access"]
    for key, value in ours.items():             # "np: corr2d 6x8, 3x3 kernel (ms)", ...
        unit = key[key.rindex("(") + 1:-1]
        rows.append((f"element access, {key[:key.rindex(' (')]}", fmt(value, " " + unit),
                     fmt(theirs.get(key), " " + unit), ratio(value, theirs.get(key)),
                     "<= 1.00x of MXNet"))
    rows += [
        ("x+1 per op: bare subscriber / none", fmt(bare, " us"), fmt(unobserved, " us"),
         ratio(bare, unobserved), ""),
        ("x+1 per op: queue view attached / none", fmt(viewed, " us"),
         fmt(unobserved, " us"), ratio(viewed, unobserved), "<= 2x"),
        ("dot 2000^2: returns / finishes", fmt(queued / finished * 100, " %"),
         fmt(mx_queued and mx_queued / mx_finished * 100, " %"), "", "< 5 %"),
        ("memory growth, no sync / sync", fmt(without, " MB"), fmt(with_sync, " MB"),
         ratio(without, with_sync), ">= 20x"),
        ("memory growth, max_pending(8)", fmt(bounded, " MB"), "", "", "flat"),
        ("2 x exp 4000^2: serial / back to back", fmt(serial * 1e3, " ms"),
         fmt(together * 1e3, " ms"), ratio(serial, together), "> 1x with 2 free cores"),
    ]
    for title, target in (("MLP 784-256-128-10, batch 1", ">= 2x op by op"),
                          ("MLP 784-256-128-10, batch 64", ""),
                          ("CNN 2 conv + FC, batch 16, 1x28x28", "")):
        figures = graphs[title]
        rows.append((f"{title}: op by op / planned executor", fmt(figures["planned"], " ms"),
                     fmt(figures["op by op"], " ms"), ratio(figures["op by op"],
                                                           figures["planned"]), target))
        side_by_side = figures["minimx, side by side"]
        rows.append((f"{title}: planned executor / MXNet", fmt(side_by_side, " ms"),
                     fmt(figures["MXNet 1.9.1"], " ms"),
                     ratio(side_by_side, figures["MXNet 1.9.1"]), ""))
    ours, theirs = training["minimx"], training["MXNet 1.9.1"]
    rows.append(("Module.fit MLP 784-512-256-10, batch 128", fmt(ours, " samples/s"),
                 fmt(theirs, " samples/s"), ratio(ours, theirs), ">= 1.00x of MXNet"))
    for key, value in buckets[0].items():
        rows.append((f"BucketingModule LSTM LM: {key}", fmt(value, " ms"),
                     fmt(buckets[1].get(key), " ms"), ratio(value, buckets[1].get(key)),
                     "<= 1.00x of MXNet"))
    for key, value in crf[0].items():
        rows.append((f"CRF per-token loop: {key}", fmt(value, " ms"), fmt(crf[1].get(key), " ms"),
                     ratio(value, crf[1].get(key)), "<= 1.00x of MXNet"))
    floor, ours, theirs = gluon["numpy"], gluon["minimx"], gluon["MXNet 1.9.1"]
    hybrid, imperative = ours.get("hybridized"), ours.get("imperative")
    rows += [
        ("seed net x1000 hybridized / numpy floor", fmt(hybrid, " ms"), fmt(floor, " ms"),
         ratio(hybrid, floor), "<= 1.50x"),
        ("seed net x1000 hybridized / MXNet hybridized", fmt(hybrid, " ms"),
         fmt(theirs.get("hybridized"), " ms"), ratio(hybrid, theirs.get("hybridized")),
         "<= 0.50x"),
        ("seed net x1000 imperative / hybridized", fmt(imperative, " ms"), fmt(hybrid, " ms"),
         ratio(imperative, hybrid), ">= 3x"),
    ]
    for key in ("MLP imperative", "MLP hybridized", "LeNet imperative", "LeNet hybridized"):
        rows.append((f"Trainer {key}", fmt(ours.get(key), " samples/s"),
                     fmt(theirs.get(key), " samples/s"), ratio(ours.get(key), theirs.get(key)),
                     ">= 1.00x of MXNet" if key.startswith("MLP") else ""))
    rows.append(("DCGAN step (Gluon, Conv2DTranspose+BatchNorm, Adam)",
                 fmt(gan.get("step"), " s"), fmt(gan_mxnet.get("step"), " s"),
                 ratio(gan.get("step"), gan_mxnet.get("step")), "<= 1.25x of MXNet"))
    for label, (mine, _, theirs) in layers.items():
        rows.append((f"3x3 conv f+b on one thread: {label}", fmt(mine, " ms"),
                     fmt(theirs, " ms"), ratio(mine, theirs), "<= 1.00x of MXNet"))
    mine, theirs = (figures.get("second epoch, s per batch") for figures in (resnet,
                                                                             resnet_mxnet))
    rows.append(("ResNet-20 Module.fit over ImageRecordIter (s per batch, 2nd epoch)",
                 fmt(mine, " s"), fmt(theirs, " s"), ratio(mine, theirs), "<= 1.25x of MXNet"))
    for machine, target in (("idle", "<= 1.25x"), ("busy", "<= 1.50x")):
        for name in course_workloads.PROGRAMS:
            mine, theirs = course[machine].get((name, "minimx")), course[machine].get(
                (name, "mxnet"))
            rows.append((f"course: {name} ({machine})", fmt(mine, " s"), fmt(theirs, " s"),
                         ratio(mine, theirs), target))
    rows += resized
    rows += pipeline
    print_table("Summary", ("measure", "minimx", "reference", "ratio", "target"), rows)


if __name__ == "__main__":
    main()
