"""lab1 - single-node training, the baseline (seed 001, Table 1, Task 1)."""
import glob
import os

from . import csvdata, rules, spread
from .doc import Finding, Table

TITLE = "Single-node training: the baseline"
SHORT = "single-node baseline"
SEED = "001"
QUESTION = ("Task 1 of seed 001, the baseline of every other lab: how long does one iteration of VGG-11 "
            "on CIFAR-10 take on one node, and what does one epoch of training reach?")
SHOWS_ON = ()
HOW_TO_SHOW = ""
KEY = [
    (r"lab1-loss", "Training loss against iteration, every run. Each curve starts near ln 10 = 2.30, the loss of "
                   "a guess among 10 classes; how far it falls in the run's steps is what one epoch buys."),
    (r"lab1-accuracy", "Test accuracy after each epoch, every run. The seed's Task 1 reached 16.33% after one "
                       "epoch of VGG-11 on CIFAR-10: above the 10% of chance, far from trained."),
    (r"lab1-time", "Time per iteration against iteration, every run (log scale). The first iteration pays for "
                   "first touches and is left out of the mean, as the seed did."),
]
APPENDIX = [
    (r"lab1-samples-(\w+)-synthetic", "Eight examples per class (columns) of the synthetic {0} that replaced the "
                                      "real files: the same shapes and classes, generated."),
    (r"lab1-samples-(\w+)", "Eight training examples per class (columns) of {0}."),
    (r"lab1-filters-(.+)", "The first convolution's filters after training, run {0}."),
]
# Learned something: 10 classes, so chance is 10%; 12% is 3 standard errors
# above it on 2000 test images (the quick profile's lab3 tests on 2000).
ABOVE_CHANCE = 12.0
# The seed's node, as labs/platforms/cluster4.xml derives it from Table 1:
# 234.6 GFLOP a batch of 256 / 1.855 s = 126.5 GFLOP/s achieved on the step.
SEED_GFLOPS = 126.5
SEED_ITERS = 196  # one epoch of 50,000 images at batch 256


def quotes(seed):
    r = seed.table("table1").one(task="1")
    return [(seed.ref("table1") + ", Task 1",
             f"VGG-11 on CIFAR-10 on one node, batch 256, one epoch (196 iterations): {r['s_per_iter']} s per "
             f"iteration, test loss {r['test_loss']}, test accuracy {r['test_accuracy_pct']}%")]


def evaluate(platform, seed):
    paths = sorted(glob.glob(os.path.join(platform.dir, "*-summary.csv")))
    need = ("model", "dataset", "iterations", "ms_mean", "test_loss", "test_accuracy")
    runs = [csvdata.read(p, need=need) for p in paths]
    rows = [(d, r) for d in runs for r in d.rows]
    vgg = [(d, r) for d, r in rows if r["model"] == "vgg11" and r["dataset"] == "cifar10"]
    if not vgg:
        raise csvdata.DataError(f"{platform.dir}: no VGG-11 run on CIFAR-10 (*-summary.csv): the seed's Task 1")
    d, r = vgg[0]
    s = seed.table("table1").one(task="1")
    claims = seed_claims(d, r, s, machine_rate(platform.dir, d))
    table = Table(
        caption=f"The seed's {seed.ref('table1')}, Task 1, beside every lab1 run: time per iteration (mean, the "
                "first iteration left out), final test loss and accuracy.",
        header=["Run", "Model", "Data", "Iterations", "s/iter", "Test loss", "Test acc. %"],
        rows=[["seed 001, Task 1", "VGG-11", "CIFAR-10 (real)", "196", s["s_per_iter"], s["test_loss"],
               s["test_accuracy_pct"]]] +
             [[rr.get("run", ""), f"{rr['model']} x{rr.get('width', '1')}", f"{rr['dataset']} ({rr.get('data', '?')})",
               rr["iterations"], f"{rules.num(rr, 'ms_mean') / 1e3:.3f}", f"{rules.num(rr, 'test_loss'):.3f}",
               f"{100 * rules.num(rr, 'test_accuracy'):.1f}"] for _, rr in rows],
        align="lllrrrr", note=d.meta.get("summary", ""))
    notes = ["Times per iteration compare machines and widths, not implementations: the seed ran full VGG-11 "
             "on its cluster node's CPU; the quick profile trains narrower models on fewer images."]
    if rules.synthetic(d.meta):
        notes.append("Synthetic data: the accuracies show that training works, not what the models reach on "
                     "the real datasets.")
    return Finding(platform, rules.combine(claims), table=table, notes=notes, meta=d.meta)


def machine_rate(folder, d):
    """This machine's GEMM rate (GFLOP/s) at the run's threads: the run's
    own `# machine_gflops:` line, else the best of gemm_peak-<device>.csv,
    which labs/lab1/run.sh measures beside the runs (bin/bench/gemm_peak);
    0 when neither is there."""
    rate = csvdata.num(d.meta.get("machine_gflops"))
    if rate > 0:
        return rate
    best = 0.0
    for path in glob.glob(os.path.join(folder, "gemm_peak-*.csv")):
        for row in csvdata.read(path, need=("gflops",)).rows:
            g = csvdata.num(row["gflops"])
            if g == g and g > best:
                best = g
    return best


def seed_claims(d, r, s, rate):
    """Task 1's numbers: learning above chance; the time per iteration
    (compared only where a measured FLOP rate of this machine scales it to
    the seed's node: the run's own achieved rate would compare machines);
    the accuracy after the seed's 196 iterations, on real CIFAR-10 with
    the full VGG-11 only (two standard errors of the difference of two
    accuracies on the test sets: a stated statistical choice)."""
    acc, steps = 100 * rules.num(r, "test_accuracy"), int(rules.num(r, "iterations"))
    width = r.get("width", "1")
    learned = rules.claim(acc >= ABOVE_CHANCE, "above chance", "not above chance",
                          f"VGG-11 x{width} {acc:.1f}% after {steps} iterations (seed: {s['test_accuracy_pct']}% after "
                          f"{SEED_ITERS}; chance 10%)", "lab1.learns", f"the accuracy were below {ABOVE_CHANCE:.0f}%")
    ms = rules.num(r, "ms_mean")
    flop = csvdata.num(r.get("gflops")) * ms / 1e3  # GFLOP of one ddlab iteration
    if rate > 0 and flop > 0:
        on_seed = ms / 1e3 * rate / SEED_GFLOPS
        want = flop / SEED_GFLOPS
        # a factor of 2 either way: the seed's own Tasks differ by more than that per step on one network
        timed = rules.claim(0.5 <= on_seed / want <= 2, "time per iteration as the seed's node's",
                            "time per iteration not as the seed's node's",
                            f"{on_seed:.3f} s scaled to the seed's {SEED_GFLOPS} GFLOP/s against {want:.3f} s expected "
                            f"(seed: {s['s_per_iter']} s at full width)", "lab1.time",
                            f"the scaled time were more than 2x from {want:.3f} s")
    else:
        timed = rules.not_judged("time per iteration as the seed's", f"cannot compare: {ms / 1e3:.3f} s per iteration "
                                 f"of VGG-11 x{width}, and the results carry no measured FLOP rate of this machine to "
                                 f"scale the seed's {s['s_per_iter']} s ({SEED_GFLOPS} GFLOP/s) by", "lab1.time")
    n = csvdata.num(d.meta.get("test_examples"))
    band = spread.binomial(acc, float(s["test_accuracy_pct"]), n if n > 0 else 10000)
    seed_acc = float(s["test_accuracy_pct"])
    if rules.synthetic(d.meta) or r.get("data") == "synthetic":
        accuracy = rules.not_judged("accuracy as the seed's", "synthetic data: not a comparison with the seed",
                                    "lab1.accuracy")
    elif steps < SEED_ITERS or csvdata.num(width) != 1:
        accuracy = rules.not_judged("accuracy as the seed's", f"VGG-11 x{width} for {steps} iterations, not the "
                                    f"seed's full width for {SEED_ITERS}", "lab1.accuracy")
    else:
        accuracy = rules.claim(abs(acc - seed_acc) <= band, "accuracy as the seed's", "accuracy not as the seed's",
                               f"{acc:.1f}% after {steps} iterations (seed: {seed_acc}%), noise {band:.1f} points",
                               "lab1.accuracy", f"the accuracy were outside {seed_acc - band:.1f}-{seed_acc + band:.1f}%")
    return [learned, timed, accuracy]
