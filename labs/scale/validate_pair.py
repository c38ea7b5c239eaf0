#!/usr/bin/env python3
"""labs/scale/validate_pair.py V N CORES - one host count's predictions beside
its measurements (labs/scale/validate.sh): V/validation-hN.csv with columns
quantity, platform, np, measured, band_lo, band_hi, repeats, predicted,
runnable (the mean number of threads runnable during the measurement,
besides the sampler: V/runnable-hN.txt) and cores.

  allreduce <alg> <bytes>   lab2 bench: measured median of 5 timed calls
                            (band: fastest .. mean), predicted one call (us)
  ddp step / exposed sync   lab3 Task 3: mean over the timed steps of the
                            mean over ranks (band: mean -/+ sd over those
                            steps), predicted the simulated run's (ms)
  ddp hidden fraction       hidden / communication over the timed steps
"""
import csv
import os
import statistics
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def allreduce(v, n):
    measured = {(r["alg"], r["bytes"]): r for r in rows(os.path.join(v, "net-lab2-h%d" % n, "bench-np%d.csv" % n))}
    out = []
    for r in rows(os.path.join(v, "sim-lab2-h%d" % n, "bench-np%d.csv" % n)):
        m = measured.get((r["alg"], r["bytes"]))
        if m:
            out.append(["allreduce %s %s B (us)" % (r["alg"], r["bytes"]), m["median_us"], m["min_us"], m["avg_us"],
                        m["reps"], r["median_us"]])
    return out


def steps(path):
    """Per timed step (iter >= 1): means over ranks of ms, sync_ms; sums of comm, hidden."""
    by = {}
    for r in rows(path):
        if int(r["iter"]) >= 1:
            by.setdefault(int(r["iter"]), []).append(r)
    return [(statistics.mean(float(r["ms"]) for r in rs), statistics.mean(float(r["sync_ms"]) for r in rs),
             sum(float(r["comm_ms"]) for r in rs), sum(float(r["hidden_ms"]) for r in rs)) for rs in by.values()]


def ddp(v, n):
    meas = steps(os.path.join(v, "net-lab3-h%d" % n, "task3-iters.csv"))
    pred = steps(os.path.join(v, "sim-lab3-h%d" % n, "ddp-np%d-iters.csv" % n))
    out = []
    for k, what in ((0, "ddp step (ms)"), (1, "ddp exposed sync (ms)")):
        xs = [s[k] for s in meas]
        mu, sd = statistics.mean(xs), statistics.stdev(xs) if len(xs) > 1 else 0.0
        out.append([what, "%.3f" % mu, "%.3f" % (mu - sd), "%.3f" % (mu + sd), len(xs),
                    "%.3f" % statistics.mean(s[k] for s in pred)])
    frac = [s[3] / s[2] for s in meas if s[2] > 0]
    mu = statistics.mean(frac)
    sd = statistics.stdev(frac) if len(frac) > 1 else 0.0
    out.append(["ddp hidden fraction", "%.4f" % mu, "%.4f" % (mu - sd), "%.4f" % (mu + sd), len(frac),
                "%.4f" % (sum(s[3] for s in pred) / sum(s[2] for s in pred))])
    return out


def runnable(v, n):
    """The mean of the once-a-second samples, or "" without any."""
    try:
        with open(os.path.join(v, "runnable-h%d.txt" % n)) as f:
            xs = [float(x) for x in f.read().split()]
    except (OSError, ValueError):
        return ""
    return "%.2f" % statistics.mean(xs) if xs else ""


def main():
    v, n, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    busy = [runnable(v, n), cores]
    data = [[q, "emu1g (emulated 1 Gbit/s)", n] + rest + busy for q, *rest in allreduce(v, n) + ddp(v, n)]
    path = os.path.join(v, "validation-h%d.csv" % n)
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["quantity", "platform", "np", "measured", "band_lo", "band_hi", "repeats", "predicted",
                    "runnable", "cores"])
        w.writerows(data)
    os.replace(path + ".tmp", path)
    for d in data:
        print("validate: %d hosts: %s: measured %s, predicted %s (%+.1f%%)" %
              (n, d[0], d[3], d[7], 100 * (float(d[7]) - float(d[3])) / float(d[3])))


if __name__ == "__main__":
    main()
