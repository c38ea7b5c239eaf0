"""lab4 - group / pairwise averaging vs full allreduce (seed 000)."""
import glob
import os

from . import csvdata, rules, spread
from .doc import Finding, Table

TITLE = "Group and pairwise averaging vs all-reduce"
SHORT = "group / pairwise averaging"
SEED = "000"
SHOWS_ON = ()
HOW_TO_SHOW = ""
KEY = [
    (r"lab4-traffic", "The seed's Figure 3 at 5 workers: traffic of the averaging (ddlab's exact count) for the "
                      "all-reduce and for pairwise averaging at 12 and 18 iterations, accuracy on each bar. The "
                      "seed's bars read 91%, 31% and 89%."),
    (r"lab4-accuracy-bytes", "Accuracy against cumulative traffic, one line per configuration, a panel per worker "
                             "count: the trade-off itself. A line to the left of the all-reduce's at the same "
                             "height sends less for the same accuracy."),
    (r"lab4-consensus", "Consensus distance (how far the workers' weights are from their mean) per iteration, "
                        "log scale. Full averages keep it at 0; pairs let it grow, which is what could cost "
                        "accuracy."),
]
APPENDIX = [
    (r"lab4-lga-accuracy-bytes", "Accuracy against traffic for the other reading of the seed (local gradient "
                                 "aggregation, one full allreduce per k backward passes)."),
    (r"lab4-lga-consensus", "Consensus distance for local gradient aggregation (0: every worker holds the same "
                            "weights)."),
]
# Two accuracies differ when they are more than two standard errors of the
# difference apart on the run's test set (spread.binomial: a stated
# statistical choice; lab4 runs one seed, so the test set's noise is the
# noise measured). "Won back" (the seed: "increasing the number of
# iterations effectively recovers the lost accuracy", 31% -> 89% against
# 91%): at least half of the loss at equal iterations recovered, and a gain
# beyond the noise.
RECOVERED = 0.5
# What makes ddlab's byte counts trustworthy, and why the seed's totals
# differ (labs/lab4/README.md).
BYTES_CHECKED_BY = "tests/mpi_group_avg.c and tests/e2e_lab4.sh (every rank's bytes equal the closed form)"
BYTES_CAUSE = ("not tested here (`sudo make lab4 NET=1gbit` counts every byte on the links, as docker stats "
               "does); by ddlab's reading its docker stats counted all its containers' traffic (about 100 TB a run, "
               "nearly all of it not the averaging); by the closed form, 14 of its 15 schedules with fewer passes send "
               "as much as the all-reduce or more (a round saves at most half, its extra iterations cost 1.25-2.25x)")


def wire_counts(folder):
    """What labs/net/wire.sh counted on an emulated network's links
    (wire-npN.csv, in the folder or its net-* runs) beside ddlab's own
    count of the same job's averaging (runs-npN.csv): per job, the bytes
    all hosts sent on their links (frames with their headers, MPI's
    control messages and start-up included) over the bytes ddlab counted,
    and what a sum of the cumulative counters read once a second (the
    seed's "sum of data collected at 1 second intervals") makes of the
    true total. [] when no such run is there."""
    out = []
    for wire in sorted(glob.glob(os.path.join(folder, "wire-np*.csv")) +
                       glob.glob(os.path.join(folder, "net-*", "wire-np*.csv"))):
        runs = os.path.join(os.path.dirname(wire), os.path.basename(wire).replace("wire-", "runs-"))
        if not os.path.exists(runs):
            continue
        rows = csvdata.read(wire, need=("t_s", "host", "rx_bytes", "tx_bytes")).rows
        hosts = {}
        for r in rows:
            hosts.setdefault(r["host"], []).append((float(r["t_s"]), float(r["rx_bytes"]), float(r["tx_bytes"])))
        sent = sum(s[-1][2] - s[0][2] for s in hosts.values())
        moved = sum(s[-1][1] + s[-1][2] - s[0][1] - s[0][2] for s in hosts.values())
        summed = sum(rx + tx - s[0][1] - s[0][2] for s in hosts.values() for _, rx, tx in s)
        counted = sum(rules.num(r, "bytes_sent") for r in csvdata.read(runs, need=("bytes_sent",)).rows)
        if counted > 0 and moved > 0:
            out.append((int(os.path.basename(wire)[len("wire-np"):-len(".csv")]), sent / counted, summed / moved))
    return sorted(out)


def bytes_cause(folder):
    """The seed's cause of its totals, as far as these results test it."""
    w = wire_counts(folder)
    if not w:
        return BYTES_CAUSE
    span = lambda xs, f: f.format(min(xs)) + ("" if f.format(min(xs)) == f.format(max(xs)) else "-" + f.format(max(xs)))
    return ("tested on the emulated hosts' links (labs/net/wire.sh): every byte sent there, headers and MPI's "
            f"control traffic included, was {span([x for _, x, _ in w], '{:.2f}')}x ddlab's count of the averaging "
            f"over each whole job ({', '.join(f'{p}' for p, _, _ in w)} workers, all its schedules together); "
            "summing the cumulative counters once a second, as the seed says its totals were made, gave "
            f"{span([s for _, _, s in w], '{:.1f}')}x the true total, more for longer runs (these count whole jobs: "
            "the wire does not tell the schedules apart); what made the seed's rows with more iterations smaller "
            "stays unexplained: cause unknown")


def quotes(seed):
    f3 = {(r["config"], r["iterations"]): r["accuracy_pct"] for r in seed.table("figure3").rows}
    t2 = seed.table("table2")
    most = max(int(r["workers"]) for r in t2.rows)
    ar, pair = t2.one(workers=most, passes=most), t2.one(workers=most, passes=1)
    return [(seed.ref("table2"), "at every worker count the rows with fewer passes and more iterations moved less "
                                 f"network traffic than the all-reduce ({most} workers: {float(ar['traffic_tb']):.1f} "
                                 f"TB at {ar['accuracy_pct']}% for the all-reduce, {float(pair['traffic_tb']):.1f} TB "
                                 f"at {pair['accuracy_pct']}% for pairs at {pair['iterations']} iterations)"),
            (seed.ref("figure3"), f"5 workers: all-reduce {f3['all-reduce', '12']}%, pairwise averaging at 12 "
                                  f"iterations {f3['pairwise', '12']}%, at 18 iterations {f3['pairwise', '18']}%")]


def by_workers(rows):
    out = {}
    for r in rows:
        out.setdefault(int(r["workers"]), []).append(r)
    return out


def evaluate(platform, seed):
    mine = rules.read(platform, "table2.csv", need=("workers", "passes", "label", "iterations", "rounds",
                                                    "traffic_mb", "accuracy_pct"))
    fig = rules.read(platform, "fig3.csv", need=("label", "iterations", "accuracy"))
    ours = by_workers(mine.rows)
    theirs = by_workers(seed.table("table2").rows)
    rows, per_round, less_total, total = [], [], 0, 0
    for p in sorted(ours):
        ar = [r for r in ours[p] if r["label"] == "all-reduce"]
        if not ar:
            raise rules.csvdata.DataError(f"{mine.path}: no all-reduce row at {p} workers")
        ar_mb, ar_rounds = rules.num(ar[0], "traffic_mb"), rules.num(ar[0], "rounds")
        seed_rows = {r["iterations"]: r for r in theirs.get(p, [])}
        seed_ar = [r for r in theirs.get(p, []) if int(r["passes"]) == p]
        for r in ours[p]:
            mb = rules.num(r, "traffic_mb")
            s = seed_rows.get(r["iterations"])
            seed_ratio = (float(s["traffic_tb"]) / float(seed_ar[0]["traffic_tb"])) if s and seed_ar else None
            rows.append([str(p), "all-reduce" if r is ar[0] else r["passes"], r["iterations"],
                         rules.fmt(seed_ratio), rules.fmt(mb / ar_mb), s["accuracy_pct"] if s else "-",
                         f"{rules.num(r, 'accuracy_pct'):.1f}"])
            if r is not ar[0]:
                total += 1
                less_total += mb < ar_mb
                if r["label"] == "k=1" and p > 2:
                    per_round.append(mb / rules.num(r, "rounds") / (ar_mb / ar_rounds))
    if not per_round:
        raise rules.csvdata.DataError(f"{mine.path}: no pairwise (k=1) rows at 3 or more workers")
    acc = {}
    for r in fig.rows:
        acc[r["label"], int(r["iterations"])] = 100 * rules.num(r, "accuracy")
    ar12 = [v for (label, _), v in acc.items() if label == "all-reduce"]
    pairs = sorted((it, v) for (label, it), v in acc.items() if label == "k=1")
    if not ar12 or len(pairs) < 2:
        raise rules.csvdata.DataError(f"{fig.path}: not the three bars of Figure 3")
    n = csvdata.num(mine.meta.get("test_examples", fig.meta.get("test_examples")))
    checks = [rules.claim(max(per_round) < 1.0, "pairs send less per round", "pairs do not send less per round",
                          f"{min(per_round):.2f}-{max(per_round):.2f}x the all-reduce's bytes at 3+ workers, as "
                          "the closed form says (a design fact)", "lab4.per_round")]
    claims = [rules.disagreement(less_total == total, "less in total", "not less in total",
                                 f"{less_total} of {total} rows with fewer passes and the seed's extra iterations "
                                 "(seed: all)", BYTES_CHECKED_BY, bytes_cause(platform.dir), "lab4.total",
                                 "any row with fewer passes sent at least as many bytes as its all-reduce")]
    claims += figure3_claims(ar12[0], pairs, n, seed)
    claims.append(trend_claim(ours, n, seed))
    table = Table(
        caption=f"The seed's {seed.ref('table2')} beside ddlab's: traffic relative to the all-reduce at the same "
                "worker count (the seed's docker-stats terabytes, ddlab's exact bytes of the averaging) and "
                "accuracy.",
        header=["Workers", "Passes", "Iterations", "Seed traffic / all-reduce", "ddlab traffic / all-reduce",
                "Seed acc. %", "ddlab acc. %"],
        rows=rows, align="rlrrrrr", note=mine.meta.get("summary", ""))
    tb = [float(r["traffic_tb"]) for r in seed.table("table2").rows]
    notes = [f"The seed measured every byte its containers sent ({min(tb):.0f}-{max(tb):.0f} TB a run, nearly all "
             "of it unrelated to averaging a small CNN); ddlab counts only the averaging's messages, exactly "
             f"({min(rules.num(r, 'traffic_mb') for r in mine.rows):.3g}-"
             f"{max(rules.num(r, 'traffic_mb') for r in mine.rows):.3g} MB a run here). Ratios to the all-reduce "
             "are the one comparison the two can share."]
    if rules.synthetic(mine.meta):
        notes.append("Synthetic MNIST: accuracies compare the configurations with each other only.")
    return Finding(platform, rules.combine(claims, checks), table=table, notes=notes, meta=mine.meta)


def band(a, b, n):
    """Two standard errors of the difference of two accuracies (points) on
    n test examples; None when the results do not say n."""
    return spread.binomial(a, b, n) if n and n > 0 else None


def figure3_claims(ar, pairs, n, seed):
    """Figure 3 at 5 workers: pairs lose accuracy at equal iterations (the
    seed: 31% against 91%) and win it back with more (89% at 18); "won
    back" is judged only after a loss."""
    f3 = {(r["config"], int(r["iterations"])): float(r["accuracy_pct"]) for r in seed.table("figure3").rows}
    (it_lo, p_lo), (it_hi, p_hi) = pairs[0], pairs[-1]
    seed_text = (f"seed: {f3['pairwise', 12]:.0f}% vs {f3['all-reduce', 12]:.0f}% at 12, "
                 f"{f3['pairwise', 18]:.0f}% at 18")
    b = band(p_lo, ar, n)
    if b is None:
        why = "the results do not say how many test examples (test_examples), so no noise band"
        return [rules.not_judged("pairs lose accuracy at equal iterations", why, "lab4.loss"),
                rules.not_judged("won back with more iterations", why, "lab4.wonback")]
    lost = ar - p_lo > b
    loss = rules.claim(lost, "pairs lose accuracy at equal iterations", "no loss at equal iterations",
                       f"pairs {p_lo:.1f}% vs all-reduce {ar:.1f}% at {it_lo}, noise {b:.1f} points ({seed_text})",
                       "lab4.loss", f"the pairs at {it_lo} iterations were above {ar - b:.1f}%")
    if not lost:
        back = rules.not_judged("won back with more iterations", f"nothing was lost at {it_lo} iterations "
                                f"({p_lo:.1f}% vs {ar:.1f}%), so nothing could be won back (pairs at {it_hi}: "
                                f"{p_hi:.1f}%)", "lab4.wonback")
    else:
        gain_band = band(p_hi, p_lo, n)
        need = p_lo + RECOVERED * (ar - p_lo)
        back = rules.claim(p_hi >= need and p_hi - p_lo > gain_band, "won back with more iterations", "not won back",
                           f"{p_hi:.1f}% at {it_hi}, {p_lo:.1f}% at {it_lo}, all-reduce {ar:.1f}% ({seed_text})",
                           "lab4.wonback", f"the pairs at {it_hi} iterations were below {max(need, p_lo + gain_band):.1f}% "
                           f"(half the loss recovered, and a gain beyond {gain_band:.1f} points of noise)")
    return [loss, back]


def trend_claim(ours, n, seed):
    """Table 2's accuracies over worker counts: at every worker count the
    fewest-pass row (the most iterations) at least as accurate as the
    all-reduce, within the noise (the seed: 89.2-96.8% against 66.9-95.8%)."""
    worst = None
    for p, rows in sorted(ours.items()):
        ar = [r for r in rows if r["label"] == "all-reduce"]
        few = min((r for r in rows if r["label"] != "all-reduce"), key=lambda r: rules.num(r, "passes"), default=None)
        if not ar or few is None:
            continue
        a, f = rules.num(ar[0], "accuracy_pct"), rules.num(few, "accuracy_pct")
        b = band(a, f, n)
        if b is None:
            return rules.not_judged("fewest passes as accurate at every worker count", "the results do not say how "
                                    "many test examples (test_examples), so no noise band", "lab4.trend")
        short = (a - f) - b  # > 0: below the all-reduce beyond the noise
        if worst is None or short > worst[0]:
            worst = (short, p, f, a, b)
    if worst is None:
        raise rules.csvdata.DataError("table2.csv: no worker count with an all-reduce and a row with fewer passes")
    short, p, f, a, b = worst
    return rules.claim(short <= 0, "fewest passes as accurate at every worker count",
                       "fewest passes less accurate somewhere", f"the worst: {p} workers, {f:.1f}% against the "
                       f"all-reduce's {a:.1f}%, noise {b:.1f} points (seed: 89.2-96.8% against 66.9-95.8%)",
                       "lab4.trend", "at any worker count the fewest-pass row fell more than the noise below the "
                       "all-reduce's")

