"""Run-to-run spread: whether two accuracies are "alike" (or one is "within
noise" of the other) is judged against how far the same run moves when only
its seed changes, not against a fixed number of points.

A lab that repeats a run with other seeds writes each repeat's result files
into a folder `seed-N` beside the main results (labs/lab5/run.sh,
labs/lab6/run.sh); the main folder holds the first seed's. A measurement is
then the list of its per-seed values.

The rule (`judge`): two measurements are alike when the gap between their
means is no larger than the tolerance, which is the larger of
  - the spread (max - min over seeds) of either measurement, and
  - two standard errors of the difference of two accuracies on n test
    examples each (binomial): the least noise any accuracy on n examples
    has, so one seed, or seeds that happen to agree, are not held to 0.
"""
import glob
import math
import os

from . import csvdata

PREFIX = "seed-"


def seed_dirs(folder):
    """The folders of the repeats with other seeds inside a results folder,
    sorted by seed: seed-N only (a killed repeat's seed-3.tmp or
    seed-3.partial is not a repeat)."""
    found = glob.glob(os.path.join(glob.escape(folder), PREFIX + "*"))
    def seed(path):
        tail = os.path.basename(path)[len(PREFIX):]
        return int(tail) if tail.isdigit() else None
    return sorted((d for d in found if os.path.isdir(d) and seed(d) is not None), key=seed)


def data_source(path):
    """The data a run trained on, as its metadata name it ("synthetic
    cifar10 (seed 1, n 10000)", or the real files' source); None when
    unreadable or unsaid."""
    try:
        return csvdata.read(path).meta.get("data_source")
    except (OSError, csvdata.DataError):
        return None


def repeats(dirs, name, suffix):
    """The result file of one run in each repeat folder: NAME-seedN+SUFFIX
    (the seed in the run's own name, as the labs write them, so that a
    reader of every file sees distinct runs) or NAME+SUFFIX; one per
    folder. A repeat is noise only if it trained on the data of the run it
    repeats (the main folder's NAME+SUFFIX, beside the seed folders): one
    whose metadata name other data (before --data-seed, each seed made its
    own synthetic set) is left out, since its spread would include a
    change of data."""
    found = []
    base = os.path.join(os.path.dirname(dirs[0]), f"{name}{suffix}") if dirs else None
    want = data_source(base) if base and os.path.exists(base) else None
    for d in dirs:
        seed = os.path.basename(d)[len(PREFIX):]
        for path in (os.path.join(d, f"{name}-seed{seed}{suffix}"), os.path.join(d, f"{name}{suffix}")):
            if os.path.exists(path):
                if want is None or data_source(path) == want:
                    found.append(path)
                break
    return found


def binomial(a_pct, b_pct, n):
    """Two standard errors (%) of the difference of two accuracies measured
    on n examples each; 0 when n is not known."""
    if not n or math.isnan(n) or n <= 0:
        return 0.0
    p, q = a_pct / 100, b_pct / 100
    return 200 * math.sqrt(max(0.0, p * (1 - p) + q * (1 - q)) / n)


class Measured:
    """One accuracy (%) measured over one or more seeds."""

    def __init__(self, values):
        self.values = [v for v in values if not math.isnan(v)]
        if not self.values:
            raise csvdata.DataError("no accuracy measured")

    @property
    def mean(self):
        return sum(self.values) / len(self.values)

    @property
    def spread(self):
        return max(self.values) - min(self.values)

    def text(self):
        """"88.1%" for one seed, "88.1% (86.9-89.0, 3 seeds)" for more."""
        if len(self.values) == 1:
            return f"{self.mean:.1f}%"
        return f"{self.mean:.1f}% ({min(self.values):.1f}-{max(self.values):.1f}, {len(self.values)} seeds)"


def tolerance(a, b, n=None):
    """The gap (points) two measurements may have and still be alike."""
    return max(a.spread, b.spread, binomial(a.mean, b.mean, n))


def against(a, b, n=None):
    """The tolerance in words, naming what set it: "3.1 points (the seeds'
    min-max)" or "2.7 points (two standard errors on 1000 test examples)"."""
    tol, spread = tolerance(a, b, n), max(a.spread, b.spread)
    if spread >= tol and max(len(a.values), len(b.values)) > 1:
        return f"{tol:.1f} points (the min-max over seeds)"
    return f"{tol:.1f} points (two standard errors on {n:.0f} test examples)"


# The mean range (max - min) of k draws of one normal noise, in standard
# deviations (the control-chart constant d2(k)). A min-max over 2 seeds
# and a min-max over 4 tasks measure the same noise on different scales:
# 4 draws span 1.83x what 2 draws span, on average.
MEAN_RANGE = {2: 1.128, 3: 1.693, 4: 2.059, 5: 2.326, 6: 2.534, 7: 2.704, 8: 2.847, 9: 2.970, 10: 3.078}


def span_of(measured, k):
    """What k values of the noise that moved `measured` over its seeds
    span on average: its min-max scaled by d2(k) / d2(seeds). The
    min-max itself when there are fewer than 3 seeds (one has no spread;
    two give one difference, too little to scale up: 2 values 1.8 points
    apart would make a 3.3-point band) or k is the number of seeds."""
    n = len(measured.values)
    if n < 3 or k == n:
        return measured.spread
    if n not in MEAN_RANGE or k not in MEAN_RANGE:
        raise ValueError(f"span_of: {n} seeds, {k} values: 2 to {max(MEAN_RANGE)} each")
    return measured.spread * MEAN_RANGE[k] / MEAN_RANGE[n]


def gap(a, b):
    """How many points b's mean lies below a's (negative: above)."""
    return a.mean - b.mean


def judge(a, b, n=None, one_sided=False, floor=0.0):
    """(alike, gap, tolerance). one_sided: only b falling below a counts
    (FP16 below FP32, 2 workers below 1); otherwise either way. floor: a
    spread measured on another run of the same length (the baseline's),
    the least the tolerance is where a and b have one seed each."""
    g, tol = gap(a, b), max(tolerance(a, b, n), floor)
    return (g if one_sided else abs(g)) <= tol, g, tol
