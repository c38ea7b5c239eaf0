"""lab1 - single-node training, the baseline (seed 001, Table 1, Task 1)."""
import glob
import os

from . import csvdata, rules
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
    acc, steps = 100 * rules.num(r, "test_accuracy"), int(rules.num(r, "iterations"))
    s = seed.table("table1").one(task="1")
    learned = acc >= ABOVE_CHANCE
    claim = rules.claim(learned, "above chance", "not above chance",
                        f"VGG-11 x{r.get('width', '1')} {acc:.1f}% after {steps} iterations (seed: "
                        f"{s['test_accuracy_pct']}% after 196; chance 10%)")
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
    return Finding(platform, rules.combine([claim]), table=table, notes=notes, meta=d.meta)
