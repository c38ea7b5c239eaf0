"""results_check.py - checks on submitted lab results (used by grade.py).

A results item of a rubric (kind "results") names one check here; each
returns ("yes" | "no" | "missing", reason). The files are what the labs
write under results/labN/ (core/results: a "# key: value" metadata block,
a header, rows; a JSON twin with meta, columns, rows). The checks recompute
what the numbers must satisfy from the numbers themselves and from closed
forms, so an edited or invented file is caught:
  timings    lab1: ms_mean = the iterations file's mean (step 0 left
             out), images/s = batch / ms_mean, iterations and accuracy =
             the epochs file's last row;
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
             profile the metadata states (only [0, 1] on synthetic data);
             lab5: best >= final, accuracy.csv = the summaries;
  fedbytes   lab5: bytes per round = params x 4 (FP32) or x 2 (FP16) per
             user and direction (seed 004's Section 3.2), counted = closed
             form, rounds per epoch = examples / global batch (D-SGD) or
             1 / E (FedAvg), rounds = epochs x that, bytes per epoch and
             payload totals = rounds x users x bytes per round, comm.csv
             and the epochs files agree with the summaries;
  psbytes    lab6: bytes per rank per step = the closed forms: horovod's
             ring 2(P-1)/P x 4N (mean over ranks), ps 4(N+S) per worker
             each way and 4P(N+S) at the server (S: the batch-norm
             buffers ps also moves; mean over the P+1 ranks 8P(N+S)/(P+1));
  throughput lab6: iterations/s = iterations / training time, wall step =
             training time / iterations, compute + sync + other = wall
             step, global batch = workers x batch x accumulate, the
             oversubscribed flag = ranks > cores, lab6.csv = the summaries.
Every metadata check also holds the oversubscribed flag against ranks and
cores (one host, not simulated).
"""

import csv
import glob
import io
import json
import math
import os
import resource
import select
import signal
import subprocess
import time

# (lab, dataset, profile) -> plausible final test accuracy (fraction). Quick
# profiles train briefly (lab3: 39 VGG-11 steps on 10k CIFAR images reach
# 12-16 %, barely above chance): the floors catch untrained or invented
# numbers, the ceilings impossible ones. Edit to match your course's runs.
ACCURACY = {
    # lab1 quick: 2 epochs of the MNIST nets; VGG-11 / ResNet-18 at width
    # 0.25 for 1-2 epochs on 10000 CIFAR images.
    ("lab1", "mnist", "quick"): (0.85, 1.0),
    ("lab1", "cifar10", "quick"): (0.15, 0.80),
    ("lab2", "mnist", "quick"): (0.85, 1.0),
    ("lab2", "mnist", "paper"): (0.95, 1.0),
    ("lab3", "cifar10", "quick"): (0.08, 0.80),
    ("lab3", "cifar10", "paper"): (0.50, 0.95),
    ("lab4", "mnist", "quick"): (0.50, 1.0),
    ("lab4", "mnist", "paper"): (0.80, 1.0),
    # lab5 quick: 4 epochs of ResNet-18 at width 0.25 on 4096 images; D-SGD
    # at global batch 2048 makes 8 steps and stays at chance (README).
    ("lab5", "cifar10", "quick"): (0.05, 0.80),
    ("lab5", "cifar10", "paper"): (0.30, 0.95),
    # lab6 quick (README, "Measured here"): 66-87 %, 49-73 %, 97 %.
    ("lab6", "mnist", "quick"): (0.30, 1.0),
    ("lab6", "fashion-mnist", "quick"): (0.25, 1.0),
    ("lab6", "sdss", "quick"): (0.60, 1.0),
    ("lab6", "mnist", "paper"): (0.80, 1.0),
    ("lab6", "fashion-mnist", "paper"): (0.60, 1.0),
    ("lab6", "sdss", "paper"): (0.80, 1.0),
}
# Bounds on what a check reads and keeps (a 20 MB CSV of 5.2 million
# rows once took 7 min 37 s, 2.3 GB of memory and 1.07 GB of logs). The
# labs' own files are far below them: a few thousand rows, a few MB.
MAX_TABLE_BYTES = 16 << 20   # a CSV or its JSON twin larger is not read
MAX_ROWS = 200_000           # a CSV with more lines is not parsed
MAX_LAB_BYTES = 64 << 20     # CSV files of one lab read in all; the rest are not
MAX_LOGGED = 50              # failures written to the log per check; the rest counted
# Each results item is checked in a child process under these: whatever
# the files hold, the grader's memory and time per item stay bounded.
CHECK_MEMORY = 768 << 20     # address space of the child
CHECK_SECONDS = 300          # wall clock (and CPU seconds) of the child
REQUIRED_META = ("program", "git", "date", "host", "ranks", "mpi", "profile", "seed", "device")
# Files each lab must have handed in (globs under results/labN/).
REQUIRED_FILES = {"lab1": ("*-summary.csv",), "lab2": ("bench-np*.csv", "train-np*.csv"), "lab3": ("table1.csv", "task*-summary.csv"),
                  "lab4": ("iters*.csv",), "lab5": ("summary-*.csv", "comm.csv"),
                  "lab6": ("lab6.csv", "*-summary.csv")}


def git_rev(root):
    try:
        r = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    except OSError:  # no git (an autograder image): the revision is not known
        return "unknown"
    return r.stdout.strip() or "unknown"


def results_dir(sub, lab):
    for rel in (f"results/{lab}", f"{lab}/results"):
        p = os.path.join(sub, rel)
        if os.path.isdir(p):
            return p
    return None


def size_problem(name, size, what="results file"):
    if size > MAX_TABLE_BYTES:
        return (f"{name}: {size / (1 << 20):.0f} MiB, more than the {MAX_TABLE_BYTES >> 20} MiB a {what} may have "
                f"(not read)")
    return None


class Table:
    def __init__(self, path, skip=None):
        """skip: why the file is not read at all (the lab's bound)."""
        self.path = path
        self.name = os.path.basename(path)
        self.meta, self.header, self.rows, self.problems = {}, [], [], []
        if skip:
            self.problems.append(f"{self.name}: {skip}")
            return
        # A results file is UTF-8 text with a "# key: value" block, a
        # header and rows (core/results/csv.c); anything else is
        # unparseable, and every results item of its lab then scores 0.
        try:
            with open(path, "rb") as f:
                why = size_problem(self.name, os.fstat(f.fileno()).st_size)
                raw = b"" if why else f.read(MAX_TABLE_BYTES + 1)
        except OSError as e:
            self.problems.append(f"{self.name}: unreadable ({e.strerror})")
            return
        lines = raw.count(b"\n")
        if why or lines > MAX_ROWS:
            self.problems.append(why or f"{self.name}: {lines} lines, more than the {MAX_ROWS} rows a results file "
                                        f"may have (not parsed)")
            return
        if b"\0" in raw:
            self.problems.append(f"{self.name}: unparseable: a NUL byte at offset {raw.index(bytes(1))} (not a CSV)")
            return
        try:
            lines = raw.decode("utf-8").splitlines()
        except UnicodeDecodeError as e:
            self.problems.append(f"{self.name}: unparseable: not UTF-8 text (byte {e.start})")
            return
        body = []
        for line in lines:
            if line.startswith("#") and not body:
                k, sep, val = line[1:].strip().partition(":")
                if sep:
                    self.meta[k.strip()] = val.strip()
            elif line.strip():
                body.append(line)
        if not self.meta:
            self.problems.append(f"{self.name}: unparseable: no '# key: value' metadata block (not a ddlab results file)")
            return
        try:
            parsed = list(csv.reader(io.StringIO("\n".join(body)), strict=True))
        except csv.Error as e:
            self.problems.append(f"{self.name}: unparseable CSV: {e}")
            return
        if not parsed:
            self.problems.append(f"{self.name}: unparseable: no header row")
            return
        if any(not c.strip() for c in parsed[0]) or len(set(parsed[0])) != len(parsed[0]):
            self.problems.append(f"{self.name}: unparseable: empty or repeated column names in the header")
            return
        self.header = parsed[0]
        wrong = 0
        for n, r in enumerate(parsed[1:], 2):
            if len(r) != len(self.header):
                wrong += 1
                if wrong <= MAX_LOGGED:
                    self.problems.append(f"{self.name}: row {n} has {len(r)} fields, the header {len(self.header)}")
            else:
                self.rows.append(dict(zip(self.header, r)))
        if wrong > MAX_LOGGED:
            self.problems.append(f"{self.name}: {wrong - MAX_LOGGED} more rows with the wrong number of fields")


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
    tables, read = [], 0
    for p in sorted(glob.glob(os.path.join(d, "**", "*.csv"), recursive=True)):
        try:
            size = os.stat(p).st_size
        except OSError:
            size = 0
        over = read + min(size, MAX_TABLE_BYTES) > MAX_LAB_BYTES
        tables.append(Table(p, f"not read: the lab's CSV files pass {MAX_LAB_BYTES >> 20} MiB" if over else None))
        read += 0 if over else min(size, MAX_TABLE_BYTES)
    log(f"== {lab}: {len(tables)} CSV files in {d}")
    return tables, None


def verdict(bad, n, text, nothing=None):
    """A check that examined nothing fails: a file with no usable rows must
    not pass (an empty or garbage summary once got full marks for accuracy,
    "0 accuracies in range"). `nothing` names what was missing, reported
    beside the other failures; without it the failure is `text`'s."""
    if n == 0 and nothing:
        bad.append(nothing)
    elif n == 0 and not bad:
        bad = [f"nothing to check: {text}"]
    return bad, text


def rows_of(t, bad):
    """The rows of a file a check needs; an empty one is a failure."""
    if not t.rows:
        bad.append(f"{t.name}: no rows")
    return t.rows


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
        why = oversubscription_problem(t.meta)
        if why:
            bad.append(f"{t.name}: {why}")
        jpath = t.path[:-4] + ".json"
        try:
            with open(jpath) as f:
                too_big = size_problem(os.path.basename(jpath), os.fstat(f.fileno()).st_size, "JSON twin")
                j = None if too_big else json.load(f)
        except (OSError, ValueError) as e:
            bad.append(f"{t.name}: no readable JSON twin ({type(e).__name__})")
            continue
        if too_big:
            bad.append(too_big)
            continue
        if isinstance(j, dict) and "traceEvents" in j:
            continue  # a timeline's JSON is a Chrome trace, not the CSV's twin
        if not isinstance(j, dict) or j.get("meta") != t.meta:
            diff = sorted(k for k in set(t.meta) | set((j.get("meta") or {}) if isinstance(j, dict) else {})
                          if not isinstance(j, dict) or (j.get("meta") or {}).get(k) != t.meta.get(k))
            bad.append(f"{t.name}: metadata differs from its JSON twin ({', '.join(diff[:3]) or 'format'})")
        elif len(j.get("rows") or []) != len(t.rows):
            bad.append(f"{t.name}: {len(t.rows)} rows, its JSON twin {len(j.get('rows') or [])}")
    return verdict(bad, len(tables), f"{len(tables)} files: metadata complete, JSON twins agree")


def oversubscription_problem(meta):
    """The oversubscribed flag against ranks and cores: one host, not
    simulated (SMPI's cores are the platform's), a yes/no flag and ranks
    as a count or a range lo-hi; None when it agrees or cannot be judged."""
    flag, cores, ranks = meta.get("oversubscribed", ""), meta.get("cores", ""), meta.get("ranks", "")
    if meta.get("simulated") or not cores.isdigit() or meta.get("hosts", "1") not in ("", "1"):
        return None
    word = flag.split()[0].rstrip(":;,") if flag else ""
    if word not in ("yes", "no"):
        return None
    lo, _, hi = ranks.partition("-")
    hi = hi or lo
    if not (lo.isdigit() and hi.isdigit()):
        return None
    want = "yes" if int(hi) > int(cores) else "no"
    if word != want:
        return f"oversubscribed: {flag}, but {ranks} rank(s) on {cores} cores"
    return None


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
    return verdict(bad, n, f"bytes of {n} measurements equal the closed forms; no wrong results")


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
    return verdict(bad, n, f"{n} rows: algbw = bytes / median, busbw = algbw 2(p-1)/p")


def accuracy_range(lab, meta):
    if meta.get("data", "real") != "real":
        return (0.0, 1.0), "synthetic data: only [0, 1] checked"
    key = (lab, meta.get("dataset", "?"), meta.get("profile", "?"))
    if key not in ACCURACY:
        return (0.0, 1.0), f"no expected range for {key[1]}/{key[2]}: only [0, 1] checked"
    return ACCURACY[key], f"{key[1]} {key[2]} range {ACCURACY[key][0]:.2f}-{ACCURACY[key][1]:.2f}"


LAB6_DATASETS = {"mnist": "mnist", "fashion": "fashion-mnist", "sdss": "sdss"}


def check_lab5_accuracy(tables):
    """Final and best accuracy of every run in range; accuracy.csv and the
    epochs files agree with the summaries."""
    bad, notes, final = [], set(), {}
    for t in matching(tables, "summary-*.csv"):
        (lo, hi), note = accuracy_range("lab5", t.meta)
        notes.add(note)
        for r in rows_of(t, bad):
            a, b = num(r, "final_accuracy"), num(r, "best_accuracy")
            final[r.get("label")] = a
            if a is None or not lo <= a <= hi:
                bad.append(f"{t.name}: final_accuracy {r.get('final_accuracy')} outside {lo:.2f}-{hi:.2f}")
            if b is None or not 0 <= b <= 1 or (a is not None and b < a):
                bad.append(f"{t.name}: best_accuracy {r.get('best_accuracy')} not in [final, 1]")
    for t in matching(tables, "accuracy.csv"):
        for r in t.rows:
            a, want = num(r, "final_accuracy"), final.get(r.get("label"))
            if want is not None and a != want:
                bad.append(f"accuracy.csv: {r.get('label')} final_accuracy {r.get('final_accuracy')} != its summary's {want}")
            if a is not None and not close(num(r, "final_pct"), 100 * a, 0, 0.006):
                bad.append(f"accuracy.csv: {r.get('label')} final_pct {r.get('final_pct')} != 100 x final_accuracy")
    for t in matching(tables, "epochs-*.csv"):
        for r in t.rows:
            a = num(r, "val_accuracy")
            if a is None or not 0 <= a <= 1:
                bad.append(f"{t.name}: epoch {r.get('epoch')} val_accuracy {r.get('val_accuracy')} outside [0, 1]")
    return verdict(bad, len(final), f"{len(final)} runs: accuracies in range ({'; '.join(sorted(notes))}), tables agree")


def check_lab6_accuracy(tables):
    bad, notes, n = [], set(), 0
    runs = lab6_runs(tables)
    for t in matching(tables, "*-summary.csv") + matching(tables, "lab6.csv"):
        for r in rows_of(t, bad):
            wl = r.get("workload", "")
            tag = f"{wl}-{r.get('style')}-w{r.get('workers')}"
            if t.name == "lab6.csv" and tag in runs and r.get("test_accuracy_pct") != runs[tag][0].get("test_accuracy_pct"):
                bad.append(f"lab6.csv: {tag} test_accuracy_pct {r.get('test_accuracy_pct')} != its summary's "
                           f"{runs[tag][0].get('test_accuracy_pct')}")
            meta = {"data": r.get("data", t.meta.get("data", "real")), "profile": r.get("profile", "?"),
                    "dataset": LAB6_DATASETS.get(wl.split("-", 1)[-1], "?")}
            (lo, hi), note = accuracy_range("lab6", meta)
            notes.add(note)
            a = num(r, "test_accuracy_pct")
            n += 1
            if a is None or not lo <= a / 100 <= hi:
                bad.append(f"{t.name}: {wl} {r.get('style')} {r.get('workers')}w: test_accuracy_pct "
                           f"{r.get('test_accuracy_pct')} outside {100 * lo:.0f}-{100 * hi:.0f}")
    return verdict(bad, n, f"{n} accuracies in range ({'; '.join(sorted(notes))})")


def check_lab1_accuracy(tables):
    bad, notes, n = [], set(), 0
    for t in matching(tables, "*-summary.csv"):
        (lo, hi), note = accuracy_range("lab1", t.meta)
        notes.add(note)
        for r in rows_of(t, bad):
            a = num(r, "test_accuracy")
            n += 1
            if a is None or not lo <= a <= hi:
                bad.append(f"{t.name}: test_accuracy {r.get('test_accuracy')} outside {lo:.2f}-{hi:.2f}")
    return verdict(bad, n, f"{n} accuracies in range ({'; '.join(sorted(notes))})")


def check_accuracy(lab, tables):
    if lab == "lab1":
        return check_lab1_accuracy(tables)
    if lab == "lab5":
        return check_lab5_accuracy(tables)
    if lab == "lab6":
        return check_lab6_accuracy(tables)
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
        rows = rows_of(t, bad)
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
    return verdict(bad, n, f"{n} accuracies in range ({'; '.join(sorted(notes))})")


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
    return verdict(bad, n, f"{n} rows: speedup = T1/Tn, batches add up")


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
    return verdict(bad, n, f"{n} summaries: per-rank times, bytes and Table 1 agree")


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
    return verdict(bad, n, f"{n} rows: bytes per round equal the closed form",
                   nothing="no allreduce/group rows to check")


def check_lab1_timings(tables):
    """Per run: the summary's step time = the mean of its iterations file
    (iteration 0, the warm-up, left out), images/s = batch / step time,
    the iterations and the final accuracy = the files' rows."""
    bad, n = [], 0
    by_name = {t.name: t for t in tables}
    for t in matching(tables, "*-summary.csv"):
        for r in t.rows:
            run, what = r.get("run", ""), t.name
            it, ms, ips, b = num(r, "iterations"), num(r, "ms_mean"), num(r, "images_per_s"), num(r, "batch")
            if None in (it, ms, ips, b) or ms <= 0 or it < 1:
                bad.append(f"{what}: missing or non-positive iterations, step time or batch")
                continue
            n += 1
            # ms_mean has 3 decimals: images/s must lie within its rounding
            if not 1e3 * b / (ms + 0.0005) * (1 - 1e-4) - 0.05 <= ips <= 1e3 * b / max(ms - 0.0005, 1e-9) * (1 + 1e-4) + 0.05:
                bad.append(f"{what}: images_per_s {r['images_per_s']} != batch / ms_mean = {1e3 * b / ms:.1f}")
            iters = by_name.get(f"{run}-iters.csv")
            if iters is not None:
                times = [num(x, "ms") for x in iters.rows]
                if len(times) != it or None in times:
                    bad.append(f"{what}: {r['iterations']} iterations, {run}-iters.csv has {len(times)} rows")
                else:
                    steady = times[1:] if len(times) > 1 else times
                    mean = sum(steady) / len(steady)
                    if not close(ms, mean, 1e-3, 0.0006):
                        bad.append(f"{what}: ms_mean {r['ms_mean']} != mean of {run}-iters.csv's steps 1.. = {mean:.3f}")
            epochs = by_name.get(f"{run}-epochs.csv")
            if epochs is not None and epochs.rows:
                last = epochs.rows[-1]
                if num(last, "iter") != it or last.get("test_accuracy") != r.get("test_accuracy"):
                    bad.append(f"{what}: iterations / test_accuracy != {run}-epochs.csv's last row "
                               f"({last.get('iter')}, {last.get('test_accuracy')})")
    return verdict(bad, n, f"{n} runs: step times, images/s, iterations and accuracy agree with the iteration files",
                   nothing="no run summaries to check")


def check_lab5_bytes(tables):
    """Seed 004's Section 3.2 from the parameter count, per user and
    direction; every counted number against it."""
    bad, n, runs = [], 0, {}
    for t in matching(tables, "summary-*.csv"):
        for r in t.rows:
            what = f"{t.name}"
            v = {k: num(r, k) for k in ("users", "global_batch", "local_batch", "local_epochs", "params",
                                        "train_examples", "epochs", "rounds", "rounds_per_epoch_closed",
                                        "rounds_per_epoch", "bytes_per_round_closed", "bytes_per_round",
                                        "bytes_per_epoch_closed", "bytes_per_epoch", "payload_up_bytes",
                                        "payload_down_bytes")}
            scheme, elem = r.get("scheme"), ELEM.get(r.get("precision", ""))
            missing = [k for k, x in v.items() if x is None]
            if missing or elem is None or scheme not in ("csgd", "dsgd", "fedavg"):
                bad.append(f"{what}: unreadable ({', '.join(missing[:3]) or r.get('scheme') or r.get('precision')})")
                continue
            n += 1
            runs[r.get("label")] = (v, scheme)
            if scheme == "csgd":  # one process: nothing crosses a link
                if any(v[k] for k in ("rounds", "bytes_per_round", "bytes_per_epoch", "payload_up_bytes",
                                      "payload_down_bytes", "bytes_per_round_closed")):
                    bad.append(f"{what}: csgd (one process) reports rounds or bytes")
                continue
            per_round = v["params"] * elem
            if v["bytes_per_round_closed"] != per_round:
                bad.append(f"{what}: bytes_per_round_closed {r['bytes_per_round_closed']} != params x {elem} = "
                           f"{per_round:.0f}")
            if v["bytes_per_round"] != per_round or r.get("bytes_match") != "yes":
                bad.append(f"{what}: counted bytes_per_round {r['bytes_per_round']} != closed form {per_round:.0f}")
            if scheme == "dsgd":
                rpe = v["train_examples"] / v["global_batch"]
                runs_rpe = math.ceil(rpe - 1e-9)  # a run makes whole rounds
                if v["users"] * v["local_batch"] != v["global_batch"]:
                    bad.append(f"{what}: {v['users']:.0f} users x local batch {v['local_batch']:.0f} != global batch "
                               f"{v['global_batch']:.0f}")
            else:
                rpe = runs_rpe = 1 / v["local_epochs"] if v["local_epochs"] else float("nan")
            if not close(v["rounds_per_epoch_closed"], rpe, 0, 0.0051):
                bad.append(f"{what}: rounds_per_epoch_closed {r['rounds_per_epoch_closed']} != {rpe:.4g}"
                           f" ({'examples / global batch' if scheme == 'dsgd' else '1 / local epochs'})")
            if not close(v["rounds_per_epoch"], runs_rpe, 0, 0.0051) or \
                    not close(v["rounds"], v["epochs"] * runs_rpe, 0, 1e-6):
                bad.append(f"{what}: {r['rounds']} rounds in {r['epochs']} epochs != {runs_rpe:.4g} per epoch")
            if not close(v["bytes_per_epoch_closed"], rpe * per_round, 0, 1.0):
                bad.append(f"{what}: bytes_per_epoch_closed {r['bytes_per_epoch_closed']} != rounds per epoch x "
                           f"bytes per round = {rpe * per_round:.0f}")
            if not close(v["bytes_per_epoch"], runs_rpe * per_round, 0, 1.0):
                bad.append(f"{what}: bytes_per_epoch {r['bytes_per_epoch']} != {runs_rpe * per_round:.0f}")
            total = v["rounds"] * v["users"] * per_round
            if v["payload_up_bytes"] != total or v["payload_down_bytes"] != total:
                bad.append(f"{what}: payload bytes up {r['payload_up_bytes']} / down {r['payload_down_bytes']} != "
                           f"rounds x users x bytes per round = {total:.0f}")
    for t in matching(tables, "comm.csv"):
        for r in t.rows:
            run = runs.get(r.get("label"))
            if run is None:
                bad.append(f"comm.csv: {r.get('label')}: no summary-{r.get('label')}.csv for this row")
                continue
            v, _ = run
            for col, want in (("bytes_per_round_closed", v["bytes_per_round_closed"]),
                              ("bytes_per_round", v["bytes_per_round"]), ("params", v["params"])):
                if num(r, col) != want:
                    bad.append(f"comm.csv: {r['label']} {col} {r.get(col)} != its summary's {want:.0f}")
            rpe = num(r, "rounds_per_epoch_closed")
            for a, b in (("mb_per_round_closed", num(r, "bytes_per_round_closed")),
                         ("mb_per_epoch_closed", (num(r, "bytes_per_round_closed") or 0) * (rpe or 0))):
                if not close(num(r, a), (b or 0) / 1e6, 0, 0.0006 + 0.006 * (b or 0) / 1e8):
                    bad.append(f"comm.csv: {r['label']} {a} {r.get(a)} != bytes / 1e6 = {(b or 0) / 1e6:.3f}")
    for t in matching(tables, "epochs-*.csv"):
        for r in t.rows:
            run = runs.get(r.get("label"))
            if run is None or run[1] == "csgd":
                continue
            v, _ = run
            want = (num(r, "rounds") or 0) * v["users"] * v["bytes_per_round"]
            if num(r, "payload_up_bytes") != want or num(r, "payload_down_bytes") != want:
                bad.append(f"{t.name}: epoch {r.get('epoch')}: payload {r.get('payload_up_bytes')} != rounds x users x "
                           f"bytes per round = {want:.0f}")
    return verdict(bad, n,
                   f"{n} runs: bytes per round = params x 4 or 2, counted = closed form, rounds and totals agree",
                   nothing="no summary rows to check")


def lab6_runs(tables):
    """tag -> (row, meta) of the run summaries."""
    runs = {}
    for t in matching(tables, "*-summary.csv"):
        for r in t.rows:
            runs[r.get("tag")] = (r, t.meta)
    return runs


def check_lab6_bytes(tables):
    bad, cross, n = [], [], 0
    runs = lab6_runs(tables)
    for t in matching(tables, "*-summary.csv") + matching(tables, "lab6.csv"):
        for r in rows_of(t, bad):
            style, P, N = r.get("style"), num(r, "workers"), num(r, "params")
            mean, most = num(r, "bytes_per_rank"), num(r, "bytes_max_rank")
            tag = r.get("tag") or f"{r.get('workload')}-{style}-w{r.get('workers')}"
            what = f"{t.name}: {tag}"
            if None in (P, N, mean, most) or style not in ("horovod", "ps") or P < 1:
                bad.append(f"{what}: unreadable style, workers, params or bytes")
                continue
            run, meta = runs.get(tag, (r, t.meta))
            if t.name == "lab6.csv" and tag in runs:  # after the closed forms: they say more
                for col in ("bytes_per_rank", "bytes_max_rank", "params"):
                    if r.get(col) != run.get(col):
                        cross.append(f"lab6.csv: {tag} {col} {r.get(col)} != its summary's {run.get(col)}")
            n += 1
            P = int(P)
            if style == "horovod":
                if "ring" not in meta.get("horovod", "ring") or run.get("fp16", "no") == "yes":
                    continue  # another transport or compression: no closed form here
                want = 2 * (P - 1) / P * 4 * N
                if abs(mean - want) > 0.5 + 1e-9 * want:
                    bad.append(f"{what}: bytes_per_rank {r['bytes_per_rank']} != ring 2(P-1)/P x 4N = {want:.0f}")
                continue
            buffers = meta.get("buffers", "").split(" ")[0]
            if buffers.isdigit():
                S = int(buffers)
            else:  # older summaries: the buffers from the server's count
                S = most / (4 * P) - N
                if S < 0 or S != int(S):
                    bad.append(f"{what}: server bytes {r['bytes_max_rank']} are not 4P(N + buffers)")
                    continue
            server = 4 * P * (N + S)
            want = 2 * server / (P + 1)  # P workers 4(N+S) each, the server 4P(N+S): mean over P+1 ranks
            if most != server:
                bad.append(f"{what}: bytes_max_rank {r['bytes_max_rank']} != server's 4P(N+S) = {server:.0f} "
                           f"(N {N:.0f}, S {S:.0f})")
            if abs(mean - want) > 0.5 + 1e-9 * want:
                bad.append(f"{what}: bytes_per_rank {r['bytes_per_rank']} != 8P(N+S)/(P+1) = {want:.0f}")
    bad += cross
    return verdict(bad, n, f"{n} rows: bytes per rank per step = the ring's and the parameter server's closed forms",
                   nothing="no runs to check")


def check_lab6_throughput(tables):
    bad, n = [], 0
    runs = lab6_runs(tables)
    for tag, (r, meta) in runs.items():
        what = f"{tag}-summary.csv" if tag else "a summary"
        it, ts, ips, wall = num(r, "iters"), num(r, "train_s"), num(r, "iters_per_s"), num(r, "wall_step_ms")
        if None in (it, ts, ips, wall) or it <= 0 or ts <= 0:
            bad.append(f"{what}: missing or non-positive iterations or training time")
            continue
        n += 1
        # train_s has 4 significant digits, iters_per_s 2 decimals
        if not close(ips, it / ts, 6e-4, 0.006):
            bad.append(f"{what}: iters_per_s {r['iters_per_s']} != iters / train_s = {it / ts:.2f}")
        if not close(wall, 1e3 * ts / it, 6e-4, 0.0006):
            bad.append(f"{what}: wall_step_ms {r['wall_step_ms']} != 1000 train_s / iters = {1e3 * ts / it:.3f}")
        parts = [num(r, k) for k in ("compute_ms", "sync_ms", "other_ms")]
        if None in parts or min(parts) < 0 or (parts[2] > 0.002 and not close(sum(parts), wall, 1e-3, 0.003)) or \
                sum(parts) < wall - 0.003 * (1 + wall / 100):
            bad.append(f"{what}: compute {r.get('compute_ms')} + sync {r.get('sync_ms')} + other {r.get('other_ms')} "
                       f"ms != wall step {r['wall_step_ms']} ms")
        gb, b, w, acc = num(r, "global_batch"), num(r, "batch_per_worker"), num(r, "workers"), num(r, "accumulate")
        if None in (gb, b, w, acc) or gb != b * w * acc:
            bad.append(f"{what}: global_batch {r.get('global_batch')} != batch x workers x accumulate")
        ranks, want_ranks = num(r, "ranks"), (w or 0) + (1 if r.get("style") == "ps" else 0)
        if ranks != want_ranks:
            bad.append(f"{what}: {r.get('ranks')} ranks for {r.get('style')} with {r.get('workers')} workers")
    for t in matching(tables, "lab6.csv"):
        for r in t.rows:
            tag = f"{r.get('workload')}-{r.get('style')}-w{r.get('workers')}"
            cores = t.meta.get("cores", "")
            if cores.isdigit() and not t.meta.get("simulated") and t.meta.get("hosts", "1") in ("", "1"):
                want = "yes" if (num(r, "ranks") or 0) > int(cores) else "no"
                if r.get("oversubscribed") != want:
                    bad.append(f"lab6.csv: {tag}: oversubscribed {r.get('oversubscribed')} with {r.get('ranks')} ranks "
                               f"on {cores} cores")
            if tag in runs:
                for col in ("train_s", "iters_per_s", "ranks", "oversubscribed", "wall_step_ms"):
                    if r.get(col) != runs[tag][0].get(col):
                        bad.append(f"lab6.csv: {tag} {col} {r.get(col)} != its summary's {runs[tag][0].get(col)}")
    return verdict(bad, n, f"{n} runs: iterations/s = iterations / training time, step times and lab6.csv agree",
                   nothing="no run summaries to check")


CHECKS = {
    ("*", "metadata"): check_metadata,
    ("lab1", "timings"): lambda lab, t: check_lab1_timings(t),
    ("lab2", "bytes"): lambda lab, t: check_lab2_bytes(t),
    ("lab2", "bandwidth"): lambda lab, t: check_lab2_bandwidth(t),
    ("*", "accuracy"): check_accuracy,
    ("lab3", "speedup"): lambda lab, t: check_lab3_speedup(t),
    ("lab3", "timings"): lambda lab, t: check_lab3_timings(t),
    ("lab4", "bytes"): lambda lab, t: check_lab4_bytes(t),
    ("lab5", "bytes"): lambda lab, t: check_lab5_bytes(t),
    ("lab6", "bytes"): lambda lab, t: check_lab6_bytes(t),
    ("lab6", "throughput"): lambda lab, t: check_lab6_throughput(t),
}


def failed(bad, log):
    """("no", the first failure) with the first MAX_LOGGED failures in
    the log and a count of the rest."""
    for b in bad[:MAX_LOGGED]:
        log("not ok - " + b)
    if len(bad) > MAX_LOGGED:
        log(f"not ok - ... and {len(bad) - MAX_LOGGED} more failures, not listed")
    more = f" (and {len(bad) - 1} more: see the log)" if len(bad) > 1 else ""
    return "no", bad[0] + more


def check(sub, lab, what, log):
    fn = CHECKS.get((lab, what)) or CHECKS.get(("*", what))
    if fn is None:
        return "error", f"no results check named '{what}' for {lab} (labs/grade/results_check.py)"
    tables, err = load(sub, lab, log)
    if err:
        return "missing", err
    broken = [p for t in tables for p in t.problems]
    if broken:
        return failed(broken, log)
    bad, ok_text = fn(lab, tables)
    if bad:
        return failed(bad, log)
    return "yes", ok_text


def check_bounded(sub, lab, what, log):
    """check() in a child process with at most CHECK_MEMORY of address
    space and CHECK_SECONDS of time: files under the bounds above can
    still be made to cost more (many columns, long fields), and the
    grader must go on to the next item and submission whatever they
    hold. The log is written by the child; the verdict comes back on a
    pipe."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(rfd)
            resource.setrlimit(resource.RLIMIT_AS, (CHECK_MEMORY, CHECK_MEMORY))
            resource.setrlimit(resource.RLIMIT_CPU, (CHECK_SECONDS, CHECK_SECONDS))
            try:
                verdict_ = check(sub, lab, what, log)
            except MemoryError:
                verdict_ = ("no", f"its results need more than the {CHECK_MEMORY >> 20} MiB of memory the grader "
                                  f"gives a check")
            os.write(wfd, json.dumps(verdict_).encode())
        except BaseException:  # noqa: B036 - nothing may leave the child but its exit
            code = 1
        finally:
            os._exit(code)
    os.close(wfd)
    data, deadline = b"", time.monotonic() + CHECK_SECONDS
    with os.fdopen(rfd, "rb") as r:
        while True:
            ready, _, _ = select.select([r], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(r.fileno(), 1 << 16) if ready else None
            if not chunk:
                break
            data += chunk
    if chunk is None:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    try:
        passed, reason = json.loads(data)
        return passed, reason
    except ValueError:
        if chunk is None or os.WIFSIGNALED(status):
            return "no", (f"checking its results took more than {CHECK_SECONDS} s" if chunk is None else
                          f"checking its results was killed (signal {os.WTERMSIG(status)}: past the grader's "
                          f"{CHECK_MEMORY >> 20} MiB or {CHECK_SECONDS} s)")
        return "error", f"grader error: the results check ended without a verdict (status {status})"
