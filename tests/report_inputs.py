#!/usr/bin/env python3
"""tests/report_inputs.py - what the report refuses to read: numbers that
cannot be true (report/ddreport/csvdata.py, `plausible`) and folders a run
left unfinished (report/ddreport/runs.py, `finished`).

Each impossible value is written into a results tree the test makes (the
columns the labs write), and the lab's section must say "no verdict" with
the file and line and never print the number as a finding. Unfinished
folders (NAME.tmp, .partial, .lock, .array-N; seed-N.tmp) holding results
must never show as a platform or a repeat. Prints ok / not ok lines; run by
tests/e2e_report_inputs.sh."""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "report"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from ddreport import csvdata, labs, runs, seeds, spread  # noqa: E402
from results_csv import write_results_csv  # noqa: E402

SEEDS = seeds.load(os.path.join(ROOT, "report", "seeds"))
failed = 0


def ok(cond, name, detail=""):
    global failed
    failed += not cond
    print(f"{'ok' if cond else 'not ok'} - report inputs: {name}{'' if cond else f': {detail}'}")


def write(path, rows, meta=None):
    write_results_csv(path, rows, {"program": "tests/report_inputs.py", "git": "test", "data": "real",
                                   "profile": "quick", **(meta or {})})


def lab3_rows(change=None):
    """Table 1 as labs/lab3/table.c writes it (the columns the rule reads)."""
    t = {"1": 1.855, "2a": 1.304, "2b": 0.932, "3": 0.664}
    acc = {"1": 16.33, "2a": 18.18, "2b": 18.20, "3": 18.75}
    rows = [{"task": k, "method": k, "sync": "x", "np": "1" if k == "1" else "4", "batch_per_rank": "64",
             "s_per_iter": str(v), "test_loss": "2.1", "test_accuracy_pct": str(acc[k]),
             "speedup": f"{t['1'] / v:.2f}"} for k, v in t.items()]
    for (task, col), value in (change or {}).items():
        next(r for r in rows if r["task"] == task)[col] = value
    return rows


def section_of(lab, files):
    """labs.section of a results tree holding files {relative path: rows}."""
    with tempfile.TemporaryDirectory(prefix="report-inputs.") as top:
        for rel, rows in files.items():
            write(os.path.join(top, f"lab{lab}", rel), rows)
        return labs.section(lab, top, SEEDS, ROOT, "test")


# Impossible numbers, each in the column and line that holds it: Table 1's
# task 3 (line 9 of the file: 4 metadata lines, the header, then tasks 1,
# 2a, 2b, 3). Each makes the lab's verdict "no verdict" naming file:line.
BAD = [
    ("a negative time", ("3", "s_per_iter"), "-0.199"),
    ("a zero time", ("3", "s_per_iter"), "0"),
    ("an infinite time", ("3", "s_per_iter"), "inf"),
    ("a NaN time", ("3", "s_per_iter"), "nan"),
    ("a 300-digit time", ("3", "s_per_iter"), "1" + "0" * 300),
    ("a 400-digit time (inf as a float)", ("3", "s_per_iter"), "9" * 400),
    ("an accuracy of -50%", ("3", "test_accuracy_pct"), "-50"),
    ("an accuracy of 150%", ("3", "test_accuracy_pct"), "150"),
    ("an accuracy of inf%", ("3", "test_accuracy_pct"), "inf"),
    ("a NaN accuracy", ("3", "test_accuracy_pct"), "nan"),
    ("a negative speed-up", ("3", "speedup"), "-2.8"),
    ("a 300-digit number in a column no rule reads", ("3", "batch_per_rank"), "7" * 300),
]
for name, (task, col), value in BAD:
    s = section_of(3, {"table1.csv": lab3_rows({(task, col): value})})
    v = s.findings[0].verdict
    ok(v.state == "no verdict" and "table1.csv:9" in v.reason and "cannot be true" in v.reason,
       f"lab3 {name} ({col} = {value[:12]}): no verdict naming the file and line", f"{v.state}: {v.reason}")
    ok(any("table1.csv:9" in p for p in s.findings[0].platform.problems),
       f"lab3 {name}: listed among the platform's problems", s.findings[0].platform.problems)

# A duplicated row: today's rule took the first copy; the report refuses both.
rows = lab3_rows()
dup = dict(rows[3], s_per_iter="9.9")
s = section_of(3, {"table1.csv": rows + [dup]})
v = s.findings[0].verdict
ok(v.state == "no verdict" and "table1.csv:10" in v.reason and "first at line 9" in v.reason and "duplicated" in v.reason,
   "lab3 task 3 written twice: refused, both lines named", f"{v.state}: {v.reason}")

# Every lab's own files, one impossible value each, through its section.
from report_mutations import TREES  # noqa: E402  (the mutation suite's results trees: the labs' columns)
for lab, (rel, col, value) in {1: ("vgg11-cifar10-summary.csv", "ms_mean", "-254"),
                               2: ("bench-np80.csv", "median_us", "inf"),
                               4: ("fig3.csv", "accuracy", "1.5"),
                               5: ("accuracy.csv", "final_pct", "nan"),
                               6: ("lab6.csv", "train_s", "0")}.items():
    files = {k: [dict(r) for r in v] for k, v in TREES[lab]().items()}
    files[rel][-1][col] = value
    s = section_of(lab, files)
    v = s.findings[0].verdict
    ok(v.state == "no verdict" and f"{rel}:" in v.reason and "cannot be true" in v.reason,
       f"lab{lab} {col} = {value}: no verdict naming {rel}:line", f"{v.state}: {v.reason}")
    files = {k: [dict(r) for r in v] for k, v in TREES[lab]().items()}
    files[rel].append(dict(files[rel][0]))
    s = section_of(lab, files)
    v = s.findings[0].verdict
    ok(v.state == "no verdict" and "duplicated" in v.reason, f"lab{lab} {rel}'s first row twice: refused",
       f"{v.state}: {v.reason}")

# Numbers that can be true stay: the seeds' own files and a zero where a
# zero can be measured (C-SGD sends no bytes).
for path in sorted(os.listdir(os.path.join(ROOT, "report", "seeds"))):
    try:
        csvdata.read(os.path.join(ROOT, "report", "seeds", path))
        good = True
    except csvdata.DataError as e:
        good = str(e)
    ok(good is True, f"the seed file {path} reads", good)

# Unfinished folders are never platforms, nor repeats.
with tempfile.TemporaryDirectory(prefix="report-inputs.") as top:
    base = os.path.join(top, "lab3")
    write(os.path.join(base, "table1.csv"), lab3_rows())
    for name in ("net-1gbit.tmp", "sim-cluster4.partial", "net-10gbit.lock", "sim-wits80.array-3", "net-1gbit.tmp.123"):
        write(os.path.join(base, name, "table1.csv"), lab3_rows())
    write(os.path.join(base, "sim-cluster4", "table1.csv"), lab3_rows())
    keys = [p.key for p in runs.platforms(top, 3, ROOT, "test")]
    ok(keys == ["native", "sim-cluster4"], "net-1gbit.tmp, *.partial, *.lock, *.array-N are not platforms", keys)
    for name in ("seed-2", "seed-3.tmp", "seed-4.partial", "seed-x"):
        os.makedirs(os.path.join(base, name))
    found = [os.path.basename(d) for d in spread.seed_dirs(base)]
    ok(found == ["seed-2"], "seed-N.tmp and seed-N.partial are not repeats", found)

# A repeat is noise only on the data of the run it repeats (spread.repeats).
with tempfile.TemporaryDirectory(prefix="report-inputs.") as top:
    same, other = "synthetic cifar10 (seed 1, n 10000)", "synthetic cifar10 (seed 3, n 10000)"
    row = [{"test_accuracy": "0.2"}]
    write(os.path.join(top, "task1-summary.csv"), row, {"data_source": same})
    write(os.path.join(top, "seed-2", "task1-seed2-summary.csv"), row, {"data_source": same})
    write(os.path.join(top, "seed-3", "task1-seed3-summary.csv"), row, {"data_source": other})
    found = [os.path.basename(p) for p in spread.repeats(spread.seed_dirs(top), "task1", "-summary.csv")]
    ok(found == ["task1-seed2-summary.csv"], "a repeat on other data (another synthetic set) is not noise", found)

sys.exit(1 if failed else 0)
