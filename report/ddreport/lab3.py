"""lab3 - gather/scatter vs allreduce vs DDP buckets (seed 001, Table 1)."""
from . import csvdata, rules, spread
from .doc import Finding, Table

TITLE = "Gradient synchronisation: gather/scatter, allreduce, DDP buckets"
SHORT = "gradient sync strategies"
SEED = "001"
SHOWS_ON = ("net", "sim")
SHOWN_BY = "`sudo make lab3 NET=1gbit NP=2` (2 emulated hosts on the seed's 1 Gbit/s) or `make lab3 PLATFORM=cluster4`"
HOW_TO_SHOW = ("On one machine the ranks share memory: moving the gradient costs a few percent of a step, so "
               "the strategies land within noise of each other and no ordering can show. The seed's order needs "
               "a network that costs something: `make lab3 NET=1gbit NP=2` (2 emulated hosts on a 1 Gbit/s link; "
               "root) or `make lab3 PLATFORM=cluster4` (the seed's 4 nodes, simulated with SimGrid). `make figures` "
               "runs the first where it can, else the second (Table 1 alone, 12 steps a task).")
KEY = [
    ("lab3-scaling", "Time per iteration against ranks for every strategy (the seed's Figures 2-4 in one plot). "
                     "Look at the order of the curves at the most ranks: the seed had gather/scatter on top and "
                     "DDP at the bottom, and only DDP improving at every step."),
    ("lab3-timeline-task3", "One DDP step (Task 3) on every rank. Communication drawn under backward is hidden "
                            "behind it; what comes after the last backward box is what the optimizer waits for."),
    ("lab3-buckets", "Iteration time, exposed synchronisation and communication per DDP bucket cap, beside the "
                     "flat control (one allreduce after backward). Look for the cap with the least exposed sync."),
]
APPENDIX = [
    (r"lab3-scaling-(\w+)", "Time per iteration against ranks, {0} alone (one of the seed's Figures 2-4)."),
    (r"lab3-overlap", "Share of the communication hidden behind backward, per DDP bucket cap."),
    (r"lab3-timeline-cap(\d+)-np(\d+)", "One DDP step with a {0} MiB bucket cap at {1} ranks (cap 0: a bucket per "
                                        "layer): backward and the buckets' allreduces on every rank."),
    (r"lab3-timeline-(.+)", "One step of run {0} on every rank: forward, backward, communication, optimizer."),
]
TASKS = ("1", "2a", "2b", "3")
CHANCE = 10.0  # CIFAR-10's 10 classes


def quotes(seed):
    t = seed.table("table1")
    rows = {r["task"]: r for r in t.rows}
    return [(seed.ref("table1"),
             "time per iteration " + ", ".join(f"{rows[k]['method']} {rows[k]['s_per_iter']} s" for k in TASKS) +
             f"; speedup {rows['2a']['speedup']} / {rows['2b']['speedup']} / {rows['3']['speedup']} on 4 nodes; "
             f"accuracy after one epoch {rows['1']['test_accuracy_pct']}-{rows['3']['test_accuracy_pct']}%")]


def peer_rows(platform, t1):
    """make lab3 PEER=pytorch: PyTorch DDP (gloo) at the most ranks, as a
    reference row (peer.csv, labs/lab3/table.c); none without it."""
    try:
        peer = rules.read(platform, "peer.csv", need=("np", "pytorch_s_per_iter"))
    except rules.csvdata.DataError:
        return []
    if not peer.rows:
        return []
    r = max(peer.rows, key=lambda row: rules.num(row, "np"))
    s = rules.num(r, "pytorch_s_per_iter")
    return [["ref.", "PyTorch DDP (gloo), random inputs", "", "", "", r["np"], f"{s:.3f}", f"{t1 / s:.2f}", ""]]


def evaluate(platform, seed):
    mine = rules.read(platform, "table1.csv", need=("task", "s_per_iter", "test_accuracy_pct", "speedup", "np"))
    theirs = {r["task"]: r for r in seed.table("table1").rows}
    rows = {}
    for task in TASKS:
        found = mine.where(task=task)
        if found:
            rows[task] = found[0]
    missing = [t for t in TASKS if t not in rows]
    if missing:
        raise rules.csvdata.DataError(f"{mine.path}: no row for task {', '.join(missing)} (a partial run?)")
    t = {k: rules.num(rows[k], "s_per_iter") for k in TASKS}
    acc, acc_from, folder, n = accuracies(platform, rows, mine)
    speed = {k: rules.num(rows[k], "speedup") for k in TASKS}
    seed_t = {k: float(theirs[k]["s_per_iter"]) for k in TASKS}
    ordered = t["2a"] > t["2b"] >= t["3"]
    claims = [
        rules.network_claim(platform, ordered, "the seed's order", "not the seed's order",
                            f"gather/scatter {rules.ms(t['2a'])} {rules.cmp(t['2a'], t['2b'])} allreduce "
                            f"{rules.ms(t['2b'])} {rules.cmp(t['2b'], t['3'])} DDP {rules.ms(t['3'])} "
                            f"(seed: {rules.ms(seed_t['2a'])} > {rules.ms(seed_t['2b'])} > {rules.ms(seed_t['3'])})",
                            SHOWN_BY, "lab3.order", "gather/scatter took no longer than allreduce, or DDP longer "
                                                    "than allreduce"),
        rules.claim(speed["3"] > 1.0, "DDP faster than one process", "DDP not faster than one process",
                    f"{speed['3']:.2f}x (seed: {theirs['3']['speedup']}x)", "lab3.ddp",
                    "DDP's speedup over Task 1 were 1.00x or less"),
        # Section 3.1: "All of the distributed setups improve the average time
        # per iteration compared to the single machine setup" (1.4x, 2.0x)
        rules.claim(speed["2a"] > 1.0 and speed["2b"] > 1.0, "gather/scatter and allreduce faster than one process",
                    "gather/scatter or allreduce not faster than one process",
                    f"{speed['2a']:.2f}x and {speed['2b']:.2f}x (seed: {theirs['2a']['speedup']}x, "
                    f"{theirs['2b']['speedup']}x)", "lab3.speedups", "either speedup over Task 1 were 1.00x or less"),
        accuracy_claim(folder, acc, n, acc_from),
    ]
    verdict = rules.combine(claims)
    table = Table(
        caption=f"The seed's {seed.ref('table1')} beside ddlab's: time per iteration (mean of the timed "
                f"iterations after the first, over ranks), speedup over one process, test accuracy{acc_from.replace(' (', ' (from ')}.",
        header=["Task", "Method", "Seed s/iter", "Seed speedup", "Seed acc. %", "ddlab ranks", "ddlab s/iter",
                "ddlab speedup", "ddlab acc. %"],
        rows=[[k, theirs[k]["method"], theirs[k]["s_per_iter"], theirs[k]["speedup"], theirs[k]["test_accuracy_pct"],
               rows[k]["np"], f"{t[k]:.3f}", f"{speed[k]:.2f}", f"{acc[k]:.1f}"] for k in TASKS] +
        peer_rows(platform, t["1"]),
        align="llrrrrrrr",
        note=mine.meta.get("summary", ""))
    notes = []
    if rules.synthetic(mine.meta):
        notes.append("Synthetic CIFAR-10: the accuracies show that training ran, not what VGG-11 learns; each seed "
                     "also draws its own synthetic set, so Task 1's spread over seeds includes the set's.")
    return Finding(platform, verdict, table=table, notes=notes, meta=mine.meta)


def accuracies(platform, rows, mine):
    """Each task's test accuracy, where it comes from (the native run's
    Table 1 when this is a short emulated or simulated one beside it: the
    accuracy does not depend on the network; rules.native_first), that
    folder, and its number of test examples (None when not said)."""
    folder = rules.native_first(platform, "table1.csv")
    if folder != platform.dir:
        native = csvdata.read(f"{folder}/table1.csv", need=("task", "test_accuracy_pct"))
        found = {k: native.where(task=k) for k in TASKS}
        if all(found.values()):
            return ({k: rules.num(found[k][0], "test_accuracy_pct") for k in TASKS}, " (the native run's)", folder,
                    test_examples(native.meta))
    return {k: rules.num(rows[k], "test_accuracy_pct") for k in TASKS}, "", platform.dir, test_examples(mine.meta)


def test_examples(meta):
    n = csvdata.num(meta.get("test_examples"))
    return n if n > 0 else None  # NaN (absent) is not > 0


def rounding_replicates(folder):
    """The multi-rank tasks of one run that train the same update and are
    evaluated alike (the same batch-norm mode, `bn` in their summaries:
    Tasks 2a and 2b both run without running statistics, as the seed did):
    they average the same gradients of the same shards and differ only in
    the order of the float additions (gather/scatter sums at the root,
    MPI_Allreduce in its own order), which 40 steps at lr 0.1 amplify.
    Their min-max is the rounding noise of the run, measured in it. The
    largest such group's accuracies (%), or [] without the summaries
    (results written before they carried `bn`)."""
    groups = {}
    for task in TASKS[1:]:
        path = f"{folder}/task{task}-summary.csv"
        try:
            row = csvdata.read(path, need=("bn", "test_accuracy", "np")).rows[0]
        except (csvdata.DataError, IndexError):
            return []
        if rules.num(row, "np") > 1:
            groups.setdefault(row["bn"], []).append(100 * rules.num(row, "test_accuracy"))
    return max((g for g in groups.values() if len(g) > 1), key=len, default=[])


def accuracy_claim(folder, acc, n, acc_from=""):
    """The seed's "no significant differences" in accuracy: the highest and
    lowest task of the run (one seed: the tasks share its data, its
    initial weights and its order) are judged against the run-to-run
    noise (spread.judge's floor), the larger of two measured sources:
      - the seed's: Task 1's min-max over the seeds labs/lab3/run.sh
        repeats it with (folders seed-N beside table1.csv);
      - rounding's: the min-max of the tasks that train the same update
        and differ only in the order of their additions
        (rounding_replicates);
    and at least two standard errors of n test examples. The tasks' gap is
    the min-max of 4 values and each source's of fewer: each is scaled to
    what 4 draws of its noise span (spread.span_of; 1.83x from 2 values),
    so that both sides measure the noise on one scale."""
    m = {k: spread.Measured([acc[k]]) for k in TASKS}
    base = spread.Measured([acc["1"]] + [
        100 * rules.num(csvdata.read(path, need=("test_accuracy",)).rows[0], "test_accuracy")
        for path in spread.repeats(spread.seed_dirs(folder), "task1", "-summary.csv")])
    sources = [(spread.span_of(base, len(TASKS)), base, "Task 1's min-max over {n} seeds")]
    same = rounding_replicates(folder)
    if len(same) > 1:
        same = spread.Measured(same)
        sources.append((spread.span_of(same, len(TASKS)), same,
                        "the min-max of the {n} tasks that train the same update in another order of additions"))
    floor, noisy, what = max(sources, key=lambda x: x[0])
    hi = max(TASKS, key=lambda k: m[k].mean)
    lo = min(TASKS, key=lambda k: m[k].mean)
    alike, g, tol = spread.judge(m[hi], m[lo], n, floor=floor)
    count = len(noisy.values)
    if count > 1 and noisy.spread > 0 and floor >= tol:
        scaled = "" if floor == noisy.spread else f"; x{floor / noisy.spread:.2f} for the span of {len(TASKS)} tasks"
        values = noisy.text() if noisy is base else ", ".join(f"{v:.1f}%" for v in noisy.values)
        noise = f"{tol:.1f} points ({what.format(n=count)}, {values}{scaled})"
    elif n:
        noise = f"{tol:.1f} points (two standard errors on {n:.0f} test examples)"
    else:
        noise = f"{tol:.1f} points (one seed, the test set's size not known)"
    return rules.capped(
        alike, tol, m[lo].mean, CHANCE, "accuracies alike", "lab3.alike",
        f"the tasks' accuracies spread more than {tol:.1f} points (now {g:.1f})",
        lambda: rules.claim(alike, "accuracies alike", "accuracies apart",
                            f"Task {hi} {m[hi].text()} to Task {lo} {m[lo].text()}, {g:.1f} points apart{acc_from}, "
                            f"noise {noise} (seed: 2.4 points, no significant differences)", "lab3.alike",
                            f"the tasks' accuracies spread more than {tol:.1f} points (now {g:.1f})"),
        noise=f"Task {hi} {m[hi].text()} to Task {lo} {m[lo].text()}{acc_from}, noise {noise}")
