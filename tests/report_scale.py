#!/usr/bin/env python3
"""tests/report_scale.py - the report's "Past the machine" section
(report/ddreport/scale.py) on make scale's result files made for the
purpose: predictions within their bars are counted as validated, one
outside its bar is not, a measurement noisier than its bar judges nothing,
the ring outside 1% of its formula is named, a missing validation leaves
every number a prediction, and a cut file gives no verdict. Run by
tests/e2e_report_rules.sh; prints ok / not ok lines."""
import csv
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "report"))

from ddreport import scale  # noqa: E402

failed = 0
# 2 hosts, as labs/scale/validate.sh writes them (measured, band, repeats, predicted)
GOOD = [["allreduce ring 1048576 B (us)", 2, "9000", "8900", "9200", 5, "9400"],
        ["ddp step (ms)", 2, "120", "117", "123", 5, "131"],
        ["ddp exposed sync (ms)", 2, "40", "39", "41", 5, "42"],
        ["ddp hidden fraction", 2, "0.46", "0.44", "0.48", 5, "0.47"]]
RING = [["cluster4", 64, "ring", 16777216, "33100", "33000", "1.003"],
        ["cluster4", 64, "mpi", 16777216, "30000", "nan", ""],
        ["cluster4", 2, "ring", 16777216, "270000", "268000", "1.007"]]
LAB3 = [["cluster4", 64, "ddp", "210", "80", "95", "0.16", "32"]]


def write(folder, name, header, rows):
    with open(os.path.join(folder, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def run(name, validation=GOOD, ring=RING, lab3=LAB3, cut=False, runnable="1.4", empty_png=False):
    with tempfile.TemporaryDirectory(prefix="report-scale.") as top:
        folder = os.path.join(top, "scale")
        os.makedirs(folder)
        if validation is not None:
            write(folder, "validation.csv", ["quantity", "platform", "np", "measured", "band_lo", "band_hi",
                                              "repeats", "predicted", "rel_error", "runnable", "cores"],
                  [[q, "emu1g", n, m, lo, hi, k, p, "", runnable, 2] for q, n, m, lo, hi, k, p in validation])
        write(folder, "allreduce.csv", ["platform", "np", "alg", "bytes", "simulated_us", "ring_alpha_beta_us",
                                        "simulated_over_model"], ring)
        write(folder, "lab3.csv", ["platform", "np", "sync", "step_ms", "exposed_sync_ms", "comm_ms", "hidden_frac",
                                   "batch_per_rank"], lab3)
        if empty_png:  # what gnuplot leaves of a plot it refused
            os.makedirs(os.path.join(top, "figures"))
            open(os.path.join(top, "figures", "scale-allreduce-cluster4.png"), "w").close()
        if cut:
            with open(os.path.join(folder, "allreduce.csv"), "a") as f:
                f.write("cluster4,128,ring\n")
        return scale.section(top, top)


def expect(name, got, *words):
    global failed
    text = got.summary + " | " + " | ".join(got.problems) + " | " + \
        " | ".join(" ".join(map(str, r)) for t in got.tables for r in t.rows)
    missing = [w for w in words if w not in text]
    print(("not ok" if missing else "ok") + f" - scale section: {name}" +
          (f": missing {missing} in: {text[:400]}" if missing else ""))
    failed += bool(missing)


expect("all four within their bars", run("good"), "4 of 4 judged predictions validated", "+4.4%", "validated")
expect("a step 20% off its measurement is off (bar 15%)",
       run("off", validation=[GOOD[0], ["ddp step (ms)", 2, "120", "117", "123", 5, "144"]] + GOOD[2:]),
       "3 of 4 judged predictions validated", "+20.0% (bar 15%)", " off")
expect("an allreduce 11% slow is off (bar 10%)",
       run("off", validation=[["allreduce ring 1048576 B (us)", 2, "9000", "8900", "9200", 5, "9990"]]),
       "0 of 1 judged predictions validated")
expect("a measurement spreading 25% judges nothing",
       run("noisy", validation=[["ddp exposed sync (ms)", 2, "40", "30", "50", 5, "41"]]),
       "no prediction validated", "not judged", "wider than the bar")
expect("a measurement beside other jobs judges nothing", run("busy", runnable="9.5"),
       "no prediction validated", "other jobs ran beside the measurement (9.5 threads runnable")
expect("the ring 3% off its formula is named",
       run("ring", ring=[["cluster4", 64, "ring", 16777216, "34000", "33000", "1.03"]]),
       "within 1% of alpha-beta on 0 of 1 platforms", "3.03%", "outside")
expect("without a validation every number is a prediction", run("none", validation=None),
       "no prediction validated", "every number below is a prediction")
expect("a cut file gives no verdict", run("cut", cut=True), "no verdict", "truncated")
got = run("empty png", empty_png=True)
expect("an empty figure is left out and named", got, "figure figures/scale-allreduce-cluster4.png", "left out")
print(("ok" if not got.figures else "not ok") + " - scale section: the empty figure is not among the figures")
failed += bool(got.figures)
expect("the largest rank count's predictions are listed", run("good"), "allreduce ring 16 MiB", "lab3 ddp step",
       "210.00 ms", "16%")
with tempfile.TemporaryDirectory(prefix="report-scale.") as top:
    got = scale.section(top, top)
    print(("ok" if got is None else "not ok") + " - scale section: none where make scale never ran")
    failed += got is not None
sys.exit(1 if failed else 0)
