"""results_check.py - checks on submitted lab results (used by grade.py).

A results item of a rubric (kind "results") names one check here; each
returns ("yes" | "no" | "missing", reason). The files are what the labs
write under results/labN/ (core/results: a "# key: value" metadata block,
a header, rows; a JSON twin with meta, columns, rows). The checks recompute
what the numbers must satisfy from the numbers themselves and from closed
forms, so an edited or invented file is caught:
  metadata   every CSV: the metadata the results schema promises, program =
             the lab, a JSON twin with the same metadata and rows, rows as
             wide as the header;
  bytes      lab2: bytes = count x element size, no wrong results, and the
             bytes each algorithm sent per rank (ddlab's counters) = its
             closed form (ring 2(p-1)/p n, recursive doubling log2 p n plus
             the fold, linear (p-1) n at the root); the MLP's message =
             params x 4; lab4: bytes per round = 2 (P - groups) n 4 and
             traffic_mb = 2 bytes / 1e6;
  bandwidth  lab2: algbw = bytes / median time, busbw = algbw 2(p-1)/p,
             min <= median, positive times;
  speedup    lab3: speedup = T(task 1) / T(task), ranks x batch per rank =
             the global batch, plausible step times;
  timings    lab3: per-rank step times (fastest rank <= mean <= slowest),
             s_per_iter = mean, Table 1 = the tasks' summaries, gradient
             bytes = params x 4, gather/scatter's bytes per step per rank
             (mean) = 2(p-1)/p x gradient bytes;
  accuracy   the final accuracy in ACCURACY's range for the dataset and
             profile the metadata states (only [0, 1] on synthetic data).
"""

import csv
import glob
import io
import json
import math
import os
import subprocess

# (lab, dataset, profile) -> plausible final test accuracy (fraction). Quick
# profiles train briefly (lab3: 39 VGG-11 steps on 10k CIFAR images reach
# 12-16 %, barely above chance): the floors catch untrained or invented
# numbers, the ceilings impossible ones. Edit to match your course's runs.
ACCURACY = {
    ("lab2", "mnist", "quick"): (0.85, 1.0),
    ("lab2", "mnist", "paper"): (0.95, 1.0),
    ("lab3", "cifar10", "quick"): (0.08, 0.80),
    ("lab3", "cifar10", "paper"): (0.50, 0.95),
    ("lab4", "mnist", "quick"): (0.50, 1.0),
    ("lab4", "mnist", "paper"): (0.80, 1.0),
}
REQUIRED_META = ("program", "git", "date", "host", "ranks", "mpi", "profile", "seed", "device")
# Files each lab must have handed in (globs under results/labN/).
REQUIRED_FILES = {"lab2": ("bench-np*.csv", "train-np*.csv"), "lab3": ("table1.csv", "task*-summary.csv"),
                  "lab4": ("iters*.csv",)}


def git_rev(root):
    r = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def results_dir(sub, lab):
    for rel in (f"results/{lab}", f"{lab}/results"):
        p = os.path.join(sub, rel)
        if os.path.isdir(p):
            return p
    return None


class Table:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.meta, self.header, self.rows, self.problems = {}, [], [], []
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        body = []
        for line in lines:
            if line.startswith("#") and not body:
                k, sep, val = line[1:].strip().partition(":")
                if sep:
                    self.meta[k.strip()] = val.strip()
            elif line.strip():
                body.append(line)
        parsed = list(csv.reader(io.StringIO("\n".join(body))))
        if not parsed:
            self.problems.append(f"{self.name}: no header")
            return
        self.header = parsed[0]
        for n, r in enumerate(parsed[1:], 2):
            if len(r) != len(self.header):
                self.problems.append(f"{self.name}: row {n} has {len(r)} fields, the header {len(self.header)}")
            else:
                self.rows.append(dict(zip(self.header, r)))


def num(row, key):
    try:
        v = float(row[key])
    except (KeyError, ValueError):
        return None
    return v if math.isfinite(v) else None


def close(a, b, rel, absolute=0.0):
    return a is not None and b is not None and abs(a - b) <= max(absolute, rel * max(abs(a), abs(b)))


def load(sub, lab, log):
    d = results_dir(sub, lab)
    if not d:
        return None, f"no results/{lab}/ in the submission"
    missing = [g for g in REQUIRED_FILES.get(lab, ()) if not glob.glob(os.path.join(d, "**", g), recursive=True)]
    if missing:
        return None, f"results/{lab}/ lacks {', '.join(missing)}"
    tables = [Table(p) for p in sorted(glob.glob(os.path.join(d, "**", "*.csv"), recursive=True))]
    log(f"== {lab}: {len(tables)} CSV files in {d}")
    return tables, None


def matching(tables, pattern):
    import fnmatch
    return [t for t in tables if fnmatch.fnmatch(t.name, pattern)]


# ---- the checks ----------------------------------------------------------------

def check_metadata(lab, tables):
    bad = []
    for t in tables:
        bad += t.problems
        miss = [k for k in REQUIRED_META if not t.meta.get(k)]
        if "dataset" in t.meta and not t.meta.get("data"):
            miss.append("data")
        if miss:
            bad.append(f"{t.name}: metadata lacks {', '.join(miss)}")
        if t.meta.get("program") and t.meta["program"] != lab:
            bad.append(f"{t.name}: program is {t.meta['program']}, not {lab}")
        jpath = t.path[:-4] + ".json"
        try:
            with open(jpath) as f:
                j = json.load(f)
        except (OSError, ValueError) as e:
            bad.append(f"{t.name}: no readable JSON twin ({type(e).__name__})")
            continue
        if isinstance(j, dict) and "traceEvents" in j:
            continue  # a timeline's JSON is a Chrome trace, not the CSV's twin
        if not isinstance(j, dict) or j.get("meta") != t.meta:
            diff = sorted(k for k in set(t.meta) | set((j.get("meta") or {}) if isinstance(j, dict) else {})
                          if not isinstance(j, dict) or (j.get("meta") or {}).get(k) != t.meta.get(k))
            bad.append(f"{t.name}: metadata differs from its JSON twin ({', '.join(diff[:3]) or 'format'})")
        elif len(j.get("rows") or []) != len(t.rows):
            bad.append(f"{t.name}: {len(t.rows)} rows, its JSON twin {len(j.get('rows') or [])}")
    return bad, f"{len(tables)} files: metadata complete, JSON twins agree"


def block_len(n, p, b):
    return n // p + (1 if b < n % p else 0)


def closed_form_sent_max(alg, count, p, elem):
    """Largest per-rank sent bytes of core/comm's algorithm, or None."""
    if p == 1:
        return 0
    if alg == "ring":
        return elem * max(2 * count - block_len(count, p, (i + 1) % p) - block_len(count, p, (i + 2) % p)
                          for i in range(p))
    if alg == "linear":
        return elem * (p - 1) * count
    if alg == "recdoubling":
        pof2 = 1 << (p.bit_length() - 1)
        rounds = pof2.bit_length() - 1
        # a surviving rank of a folded pair also sends the result back
        return elem * count * (rounds + (1 if p > pof2 else 0))
    return None


ELEM = {"fp32": 4, "fp16": 2}


def check_lab2_bytes(tables):
    bad, n = [], 0
    for t in matching(tables, "bench*.csv"):
        for r in t.rows:
            b, c, p = num(r, "bytes"), num(r, "count"), num(r, "ranks")
            e = ELEM.get(r.get("dtype", ""))
            if None in (b, c, p) or e is None:
                bad.append(f"{t.name}: unreadable row ({r.get('alg')}, {r.get('bytes')})")
                continue
            if b != c * e:
                bad.append(f"{t.name}: {r['alg']} bytes {b:.0f} != count x {e}")
            if r.get("wrong") not in ("0", "0.0"):
                bad.append(f"{t.name}: {r['alg']} at {b:.0f} B reports {r.get('wrong')} wrong results")
            want = closed_form_sent_max(r.get("alg"), int(c), int(p), e)
            if want is not None and r.get("traffic_source") == "ddlab counters":
                got = num(r, "sent_bytes_max")
                n += 1
                if got != want:
                    bad.append(f"{t.name}: {r['alg']} {b:.0f} B np{p:.0f}: sent_bytes_max "
                               f"{r.get('sent_bytes_max')} != closed form {want}")
    for t in matching(tables, "train*.csv"):
        for r in t.rows:
            pa, mb = num(r, "params"), num(r, "message_bytes")
            if pa is None or mb != pa * 4:
                bad.append(f"{t.name}: {r.get('alg')} H={r.get('hidden')}: message_bytes != params x 4")
    return bad, f"bytes of {n} measurements equal the closed forms; no wrong results"


def check_lab2_bandwidth(tables):
    bad, n = [], 0
    for t in matching(tables, "bench*.csv"):
        for r in t.rows:
            b, p = num(r, "bytes"), num(r, "ranks")
            mn, med, avg = num(r, "min_us"), num(r, "median_us"), num(r, "avg_us")
            alg, bus = num(r, "algbw_GBs"), num(r, "busbw_GBs")
            what = f"{t.name}: {r.get('alg')} {r.get('bytes')} B"
            if None in (b, p, mn, med, avg, alg, bus) or mn <= 0 or med <= 0 or avg <= 0:
                bad.append(f"{what}: missing or non-positive times")
                continue
            n += 1
            if mn > med * (1 + 1e-9):
                bad.append(f"{what}: min {mn} us > median {med} us")
            if not close(alg, b / (med * 1e3), 0.01, 0.00015):
                bad.append(f"{what}: algbw {alg} != bytes / median = {b / (med * 1e3):.4f}")
            if not close(bus, alg * 2 * (p - 1) / p, 0.01, 0.00015):
                bad.append(f"{what}: busbw {bus} != algbw x 2(p-1)/p")
    return bad, f"{n} rows: algbw = bytes / median, busbw = algbw 2(p-1)/p"


def accuracy_range(lab, meta):
    if meta.get("data", "real") != "real":
        return (0.0, 1.0), "synthetic data: only [0, 1] checked"
    key = (lab, meta.get("dataset", "?"), meta.get("profile", "?"))
    if key not in ACCURACY:
        return (0.0, 1.0), f"no expected range for {key[1]}/{key[2]}: only [0, 1] checked"
    return ACCURACY[key], f"{key[1]} {key[2]} range {ACCURACY[key][0]:.2f}-{ACCURACY[key][1]:.2f}"


def check_accuracy(lab, tables):
    bad, notes, n = [], set(), 0
    if lab == "lab2":
        sel, col, scale = matching(tables, "train*.csv"), "test_accuracy", 1.0
    elif lab == "lab3":
        sel, col, scale = matching(tables, "table1.csv"), "test_accuracy_pct", 0.01
    else:
        sel, col, scale = matching(tables, "iters*.csv"), "accuracy", 1.0
    for t in sel:
        (lo, hi), note = accuracy_range(lab, t.meta)
        notes.add(note)
        rows = t.rows
        if lab == "lab4":  # the last iteration of each run
            last = {}
            for r in rows:
                last[(r.get("scheme"), r.get("workers"), r.get("passes"))] = r
            rows = list(last.values())
        for r in rows:
            a = num(r, col)
            n += 1
            if a is None or not lo <= a * scale <= hi:
                bad.append(f"{t.name}: {col} {r.get(col)} outside {lo:.2f}-{hi:.2f}"
                           f" ({r.get('alg') or r.get('method') or r.get('scheme')})")
            if lab == "lab2" and r.get("replicas_identical") not in ("yes", None):
                bad.append(f"{t.name}: {r.get('alg')}: replicas not identical")
    return bad, f"{n} accuracies in range ({'; '.join(sorted(notes))})"


def check_lab3_speedup(tables):
    bad, n = [], 0
    for t in matching(tables, "table1.csv"):
        base = [num(r, "s_per_iter") for r in t.rows if r.get("task") == "1"]
        if not base or base[0] is None or base[0] <= 0:
            bad.append(f"{t.name}: no task 1 (single process) time to compute speedups from")
            continue
        gb = t.meta.get("global_batch")
        for r in t.rows:
            s, sp, np_, bpr = num(r, "s_per_iter"), num(r, "speedup"), num(r, "np"), num(r, "batch_per_rank")
            what = f"{t.name}: task {r.get('task')}"
            if s is None or not 0 < s < 3600:
                bad.append(f"{what}: implausible time per iteration {r.get('s_per_iter')} s")
                continue
            n += 1
            if not close(sp, base[0] / s, 0.01, 0.011):
                bad.append(f"{what}: speedup {r.get('speedup')} != T1/Tn = {base[0] / s:.2f}")
            if gb and np_ and bpr and np_ * bpr != float(gb):
                bad.append(f"{what}: {np_:.0f} ranks x {bpr:.0f} per rank != global batch {gb}")
    return bad, f"{n} rows: speedup = T1/Tn, batches add up"


def check_lab3_timings(tables):
    bad, n = [], 0
    summaries = {}
    for t in matching(tables, "*-summary.csv"):
        for r in t.rows:
            what = f"{t.name}"
            lo, mean, hi, spi = num(r, "ms_rank_min"), num(r, "ms_mean"), num(r, "ms_rank_max"), num(r, "s_per_iter")
            if None in (lo, mean, hi, spi) or not 0 < lo:
                bad.append(f"{what}: missing or non-positive step times")
                continue
            n += 1
            summaries[os.path.join(os.path.dirname(t.path), t.name)] = spi
            if not lo - 1e-3 <= mean <= hi + 1e-3:
                bad.append(f"{what}: mean step {mean} ms outside the ranks' {lo}..{hi} ms")
            if not close(spi, mean / 1e3, 0, 6e-5):
                bad.append(f"{what}: s_per_iter {r['s_per_iter']} != ms_mean / 1000")
            pa, gb, p = num(r, "params"), num(r, "grad_bytes"), num(r, "np")
            if pa is None or gb != pa * 4:
                bad.append(f"{what}: grad_bytes {r.get('grad_bytes')} != params x 4")
            elif r.get("sync") == "gather_scatter" and r.get("alg") == "linear" and p:
                sent, want = num(r, "bytes_sent_per_step"), 2 * (p - 1) / p * gb
                if sent is None or abs(sent - want) > 1:
                    bad.append(f"{what}: bytes_sent_per_step {r.get('bytes_sent_per_step')} != 2(p-1)/p x "
                               f"grad_bytes = {want:.0f}")
    for t in matching(tables, "table1.csv"):
        for r in t.rows:
            spi = summaries.get(os.path.join(os.path.dirname(t.path), f"task{r.get('task')}-summary.csv"))
            if spi is not None and not close(num(r, "s_per_iter"), spi, 0, 6e-4):
                bad.append(f"{t.name}: task {r.get('task')} s_per_iter {r.get('s_per_iter')} != its summary's {spi}")
    return bad, f"{n} summaries: per-rank times, bytes and Table 1 agree"


def check_lab4_bytes(tables):
    bad, n = [], 0
    for t in matching(tables, "iters*.csv"):
        params = t.meta.get("params")
        if not params or not params.isdigit():
            bad.append(f"{t.name}: no params in the metadata")
            continue
        for r in t.rows:
            sch, P, k, rounds, sent = (r.get("scheme"), num(r, "workers"), num(r, "passes"), num(r, "rounds"),
                                       num(r, "bytes_sent"))
            if sch not in ("allreduce", "group") or None in (P, k, rounds, sent):
                continue
            P, k = int(P), int(k)
            groups = 1 if sch == "allreduce" or k >= P - 1 else (P + k) // (k + 1)
            want = rounds * 2 * (P - groups) * int(params) * 4
            n += 1
            if sent != want:
                bad.append(f"{t.name}: {sch} P={P} k={k} after {rounds:.0f} rounds: bytes_sent {r.get('bytes_sent')}"
                           f" != 2 (P - groups) n 4 per round = {want:.0f}")
            mb = num(r, "traffic_mb")
            if mb is not None and not close(mb, 2 * sent / 1e6, 1e-6, 2e-6):
                bad.append(f"{t.name}: traffic_mb {r.get('traffic_mb')} != 2 x bytes_sent / 1e6")
    if n == 0:
        bad.append("no allreduce/group rows to check")
    return bad, f"{n} rows: bytes per round equal the closed form"


CHECKS = {
    ("*", "metadata"): check_metadata,
    ("lab2", "bytes"): lambda lab, t: check_lab2_bytes(t),
    ("lab2", "bandwidth"): lambda lab, t: check_lab2_bandwidth(t),
    ("*", "accuracy"): check_accuracy,
    ("lab3", "speedup"): lambda lab, t: check_lab3_speedup(t),
    ("lab3", "timings"): lambda lab, t: check_lab3_timings(t),
    ("lab4", "bytes"): lambda lab, t: check_lab4_bytes(t),
}


def check(sub, lab, what, log):
    fn = CHECKS.get((lab, what)) or CHECKS.get(("*", what))
    if fn is None:
        return "error", f"no results check named '{what}' for {lab} (labs/grade/results_check.py)"
    tables, err = load(sub, lab, log)
    if err:
        return "missing", err
    bad, ok_text = fn(lab, tables)
    for b in bad:
        log("not ok - " + b)
    if bad:
        more = f" (and {len(bad) - 1} more: see the log)" if len(bad) > 1 else ""
        return "no", bad[0] + more
    return "yes", ok_text
