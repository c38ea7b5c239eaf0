"""Past the machine: `make scale`'s predictions and the emulated hosts that
validate them (labs/scale/README.md), as one section after the labs.

Its numbers are of three kinds, and every row says which:
- validated: a prediction paired with a measurement on emulated hosts
  (labs/scale/validate.sh, the same day) and within its bar;
- checked against a formula: the simulated ring against alpha-beta;
- predicted: every number at a rank count this machine cannot run.

The bars are fixed before any run and never moved to fit one: 10% for an
allreduce and for DDP's exposed synchronisation, 15% for DDP's step time
(what the trace-driven studies and ASTRA-sim report at 2-64 nodes), 10
points for DDP's hidden fraction (a fraction has no relative error worth
the name near 0), and 1% for the ring against its formula. A measurement
whose own spread (band_lo..band_hi over its repeats) is wider than the
bar cannot judge a prediction: its row says "not judged" and why, so a
noisy run never passes by noise. Nor does a busy one: the emulated hosts'
steps are wall time on shared cores while a prediction charges CPU time,
so where more threads were runnable during the measurement than its ranks
and one more (the launcher, the packet pacer: labs/scale/validate.sh
samples them once a second), other jobs shared the cores and the row is
not judged either."""
import math
import os
import re

from . import csvdata, png
from .doc import Figure, Table

# (quantity prefix, bar, "rel" | "abs"): the first match wins
BARS = (("allreduce ", 0.10, "rel"), ("ddp exposed sync", 0.10, "rel"), ("ddp step", 0.15, "rel"),
        ("ddp hidden fraction", 0.10, "abs"))
RING_BAR = 0.01
HOW = ("`make scale` (predictions from 2 to 64 ranks; `SCALE_MAX_NP=1024` for more), then "
       "`sudo labs/scale/validate.sh` (measurements on 2, 4 and 8 emulated hosts), then `make report`")


class Beyond:
    """The section: its summary line for page 1, its paragraphs, tables and
    figures, and what could not be read."""

    def __init__(self):
        self.summary, self.notes, self.tables, self.figures, self.problems = "", [], [], [], []

    @property
    def empty(self):
        return not (self.tables or self.figures)


def bar_of(quantity):
    for prefix, bar, kind in BARS:
        if quantity.startswith(prefix):
            return bar, kind
    return None, None


def judge(row):
    """(outcome, error text) of one validation row."""
    q = row["quantity"]
    m, p = csvdata.num(row["measured"]), csvdata.num(row["predicted"])
    lo, hi = csvdata.num(row["band_lo"]), csvdata.num(row["band_hi"])
    bar, kind = bar_of(q)
    busy, ranks = csvdata.num(row.get("runnable", "")), csvdata.num(row.get("np", ""))
    if busy == busy and ranks == ranks and busy > ranks + 1:
        return "not judged", f"other jobs ran beside the measurement ({busy:.1f} threads runnable on average, " \
                             f"{ranks:.0f} ranks)"
    if bar is None or math.isnan(m) or math.isnan(p) or (kind == "rel" and m <= 0):
        return "not judged", "no bar for this quantity" if bar is None else "no number"
    if kind == "rel":
        err, spread = (p - m) / m, (hi - lo) / 2 / m if hi == hi and lo == lo else 0.0
        text = f"{100 * err:+.1f}%"
        limit = f"{100 * bar:.0f}%"
    else:
        err, spread = p - m, (hi - lo) / 2 if hi == hi and lo == lo else 0.0
        text = f"{100 * err:+.1f} points"
        limit = f"{100 * bar:.0f} points"
    if spread > bar:
        unit = " points" if kind == "abs" else "%"
        return "not judged", f"{text}; the measurement spreads {100 * spread:.0f}{unit}, wider than the bar " \
                             f"({limit})"
    return ("validated" if abs(err) <= bar else "off"), f"{text} (bar {limit})"


def validation(folder, out):
    path = os.path.join(folder, "validation.csv")
    if not csvdata.exists(path):
        out.problems.append("No validation on emulated hosts in this checkout's results: every number below is a "
                            "prediction. Run `sudo labs/scale/validate.sh` after `make scale`.")
        return 0, 0
    data = csvdata.read(path, need=("quantity", "np", "measured", "band_lo", "band_hi", "repeats", "predicted"))
    rows, held, judged = [], 0, 0
    for r in sorted(data.rows, key=lambda r: (int(csvdata.num(r["np"])), r["quantity"])):
        outcome, text = judge(r)
        judged += outcome != "not judged"
        held += outcome == "validated"
        rows.append([r["np"], r["quantity"], f"{r['measured']} ({r['band_lo']} .. {r['band_hi']}, "
                     f"{r['repeats']} repeats)", r["predicted"], text, outcome])
    out.tables.append(Table(
        "Predicted against measured on emulated hosts (one rank a host, 1 Gbit/s links, labs/net), the same day: "
        "SimGrid on labs/platforms/emu1g.xml grown to the hosts, compute modelled from a native calibration",
        ["hosts", "quantity", "measured (spread, repeats)", "predicted", "error", "outcome"], rows, align="rllrll",
        note="Bars: allreduce and DDP's exposed sync 10%, DDP's step 15%, hidden fraction 10 points; a row whose "
             "measurement spreads wider than its bar is not judged (report/ddreport/scale.py)."))
    return judged, held


def ring_check(folder, out):
    """The simulated ring against 2(p-1)(alpha + n/p beta) at each
    platform's largest rank count: (within, platforms)."""
    data = csvdata.read(os.path.join(folder, "allreduce.csv"),
                        need=("platform", "np", "alg", "bytes", "simulated_us", "ring_alpha_beta_us"))
    rows, ok = [], 0
    for plat in sorted({r["platform"] for r in data.rows}):
        ring = [r for r in data.rows if r["platform"] == plat and r["alg"] == "ring"]
        if not ring:
            continue
        top = max(int(csvdata.num(r["np"])) for r in ring)
        at = [r for r in ring if int(csvdata.num(r["np"])) == top]
        worst = max(abs(csvdata.num(r["simulated_us"]) / csvdata.num(r["ring_alpha_beta_us"]) - 1) for r in at)
        ok += worst <= RING_BAR
        rows.append([plat, str(top), ", ".join(human(csvdata.num(r["bytes"])) for r in at),
                     f"{100 * worst:.2f}%", "within" if worst <= RING_BAR else "outside"])
    if rows:
        out.tables.append(Table(f"The simulated ring against its alpha-beta formula 2(p-1)(alpha + n/p beta) at "
                                f"each platform's largest rank count (checked against a formula; bar "
                                f"{100 * RING_BAR:.0f}%)", ["platform", "ranks", "sizes", "worst error", "bar"],
                                rows, align="lrlrl"))
    return ok, len(rows)


def human(n):
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n / 1024:g} KiB" if n >= 1024 else f"{n:g} B"


def predictions(folder, out):
    """Each platform's largest rank count: the allreduce at its largest size
    and lab3's strategies, all predictions."""
    ar = csvdata.read(os.path.join(folder, "allreduce.csv"), need=("platform", "np", "alg", "bytes", "simulated_us"))
    rows = []
    for plat in sorted({r["platform"] for r in ar.rows}):
        mine = [r for r in ar.rows if r["platform"] == plat]
        top = max(int(csvdata.num(r["np"])) for r in mine)
        size = max(csvdata.num(r["bytes"]) for r in mine)
        for r in mine:
            if int(csvdata.num(r["np"])) == top and csvdata.num(r["bytes"]) == size:
                rows.append([plat, str(top), f"allreduce {r['alg']} {human(size)}",
                             f"{csvdata.num(r['simulated_us']) / 1e3:.2f} ms", "-", "-"])
    path = os.path.join(folder, "lab3.csv")
    if csvdata.exists(path):
        l3 = csvdata.read(path, need=("platform", "np", "sync", "step_ms", "exposed_sync_ms", "hidden_frac"))
        for plat in sorted({r["platform"] for r in l3.rows}):
            mine = [r for r in l3.rows if r["platform"] == plat]
            top = max(int(csvdata.num(r["np"])) for r in mine)
            for r in mine:
                if int(csvdata.num(r["np"])) == top:
                    h = csvdata.num(r["hidden_frac"])
                    rows.append([plat, str(top), f"lab3 {r['sync']} step", f"{csvdata.num(r['step_ms']):.2f} ms",
                                 f"{csvdata.num(r['exposed_sync_ms']):.2f} ms", "-" if h != h else f"{100 * h:.0f}%"])
    out.tables.append(Table("Predicted at each platform's largest rank count (SimGrid SMPI on this machine; no "
                            "measurement exists at these sizes)", ["platform", "ranks", "what", "time",
                                                                    "exposed sync", "hidden"], rows, align="lrlrrr"))


def figures(root, out):
    folder = os.path.join(root, "figures")
    names = sorted(n for n in os.listdir(folder) if re.fullmatch(r"scale-(allreduce|lab3)-[\w.-]+\.png", n)) \
        if os.path.isdir(folder) else []
    for n in names:
        kind, plat = re.fullmatch(r"scale-(allreduce|lab3)-([\w.-]+)\.png", n).groups()
        why = png.check(os.path.join(folder, n))
        if why:  # as a lab's figure: named under the problems, left out
            out.problems.append(f"figure figures/{n}: {why}; left out")
            continue
        what = ("16 MiB allreduce time against ranks, the ring's alpha-beta line beside it" if kind == "allreduce"
                else "lab3's step time and exposed synchronisation against ranks")
        out.figures.append(Figure(os.path.join(folder, n), f"{plat}: {what} (predicted).", n[:-4]))


def section(results, root):
    """The section from results/scale, or None where make scale never ran."""
    folder = os.path.join(results, "scale")
    if not csvdata.exists(os.path.join(folder, "allreduce.csv")):
        return None
    out = Beyond()
    try:
        judged, held = validation(folder, out)
        within, platforms = ring_check(folder, out)
        predictions(folder, out)
    except csvdata.DataError as e:
        out.problems.append(f"The results cannot be read: {e}. Run {HOW}.")
        out.summary = "no verdict: " + str(e)
        return out
    figures(root, out)
    v = (f"{held} of {judged} judged predictions validated on emulated hosts" if judged else
         "no prediction validated on emulated hosts")
    out.summary = (f"{v}; the simulated ring within {100 * RING_BAR:.0f}% of alpha-beta on {within} of {platforms} "
                   f"platforms; every other number is a prediction")
    out.notes.append(f"{v}. The simulated ring stays within {100 * RING_BAR:.0f}% of its alpha-beta formula at the "
                     f"largest rank count on {within} of {platforms} platforms. The rest are predictions: the rank "
                     f"counts this machine cannot run. To redo it: {HOW}.")
    return out
