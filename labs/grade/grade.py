#!/usr/bin/env python3
"""grade.py - grade student submissions (make grade SUBMISSION=dir, bin/grade dir...).

For each submission folder:
  1. code items (labs/labN/exercises/rubric.txt, kind "code"): the student's
     exercise file is compiled with the reference build's flags into
     dir/.grade/labN-item/, checked to define the function(s) it replaces,
     and linked before the reference libddl.a into the test programs that
     tests/grade/tests.txt lists for the item; each runs at its rank counts
     under mpirun with a timeout. One item per build: a broken ring cannot
     cost the group-averaging item that calls it.
  2. results items (kind "results"): labs/grade/results_check.py checks the
     submitted results/labN/ files.
  3. writes dir/grade-report.md and dir/grade-report.csv (lab, item,
     points, max_points, passed, reason).
Exit status: 0 when every item of the graded labs could be graded (passed
or failed), 1 when something could not (missing file or results, a
reference that fails here), 2 on usage errors. Python 3 standard library
only; needs the reference build (make) and binutils' nm."""

import argparse
import csv
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs", "grade"))
import results_check  # noqa: E402

MPIRUN = ["mpirun", "--oversubscribe", "--mca", "pml", "ob1", "--mca", "btl", "self,vader", "--bind-to", "none"]
TEST_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE",
            "DDL_TEST_ROOT": ROOT}


class Item:
    def __init__(self, lab, name, points, kind, what, replaces):
        self.lab, self.name, self.points, self.kind = lab, name, points, kind
        self.what, self.replaces = what, replaces
        self.tests = []  # (timeout, [np] or None, program, args)


class Outcome:
    """passed: 'yes' | 'no' (graded, failed) | 'missing' | 'error' (not graded)."""

    def __init__(self, item, passed, reason):
        self.item, self.passed, self.reason = item, passed, reason
        self.points = item.points if passed == "yes" else 0


def die(msg, code=2):
    print("grade: " + msg, file=sys.stderr)
    sys.exit(code)


# ---- configuration -----------------------------------------------------------

def load_rubrics():
    items = []
    for path in sorted(glob.glob(os.path.join(ROOT, "labs", "lab*", "exercises", "rubric.txt"))):
        lab = os.path.basename(os.path.dirname(os.path.dirname(path)))
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.split("#", 1)[0].split()
                if not line:
                    continue
                if len(line) < 4 or line[2] not in ("code", "results") or not line[1].isdigit() or \
                        (line[2] == "code" and len(line) != 5):
                    die(f"{path}:{n}: expected 'item points code file replaces' or 'item points results check'")
                items.append(Item(lab, line[0], int(line[1]), line[2], line[3], line[4] if len(line) > 4 else None))
    by_key = {f"{i.lab}/{i.name}": i for i in items}
    path = os.path.join(ROOT, "tests", "grade", "tests.txt")
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) < 4 or not fields[1].isdigit():
                die(f"{path}:{n}: expected 'lab/item timeout ranks program [args]'")
            item = by_key.get(fields[0])
            if item is None:
                # An item whose lab has no rubric yet (e.g. a lab on another branch): ignored.
                continue
            nps = None if fields[2] == "-" else [int(x) for x in fields[2].split(",")]
            item.tests.append((int(fields[1]), nps, fields[3], fields[4:]))
    for i in items:
        if i.kind == "code" and not i.tests:
            die(f"{i.lab}/{i.name}: a code item with no test in tests/grade/tests.txt")
    return items


def make_vars():
    out = subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT, "grade-vars"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        die("make grade-vars failed:\n" + out.stderr, 1)
    v = {}
    for line in out.stdout.splitlines():
        if "=" in line:
            k, val = line.split("=", 1)
            v[k] = val
    return v


# ---- running things ----------------------------------------------------------

def run(cmd, timeout, cwd=ROOT, env=None):
    """(rc, output, timed_out). The command gets its own process group, killed
    whole on timeout, so a hung mpirun leaves no ranks behind."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    try:
        p = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    except OSError as e:
        return 127, str(e), False
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            try:
                out, _ = p.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                out = b""
        return -1, (out or b"").decode("utf-8", "replace"), True


def test_cmd(binary, nps_one, args):
    if nps_one is None:
        return [binary] + args
    return MPIRUN + ["-np", str(nps_one), binary] + args


def count_lines(out):
    lines = out.splitlines()
    ok = sum(1 for l in lines if l.startswith("ok - "))
    bad = [l for l in lines if l.startswith("not ok - ")]
    return ok, bad


def short(text, n=160):
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


class Expected:
    """How many "ok" lines the reference prints per test run, cached by the
    reference binary's content: output that merely looks right (a student
    printing "ok" lines, or exiting 0 early) then cannot pass."""

    def __init__(self, v):
        self.bin = os.path.join(ROOT, v["BIN"], "tests")
        self.path = os.path.join(ROOT, v["BUILD"], "grade-expected.json")
        try:
            with open(self.path) as f:
                self.cache = json.load(f)
        except (OSError, ValueError):
            self.cache = {}

    def get(self, program, np_, args, timeout):
        binary = os.path.join(self.bin, program)
        if not os.access(binary, os.X_OK):
            return None, f"reference test {binary} is not built (run make)"
        h = hashlib.sha1()
        with open(binary, "rb") as f:
            h.update(f.read())
        key = f"{h.hexdigest()} {np_} {' '.join(args)}"
        if key not in self.cache:
            rc, out, timed_out = run(test_cmd(binary, np_, args), timeout * 3, env=TEST_ENV)
            ok, bad = count_lines(out)
            if rc != 0 or bad or timed_out or ok == 0:
                return None, f"the reference fails this test here (np {np_}): {short(bad[0] if bad else out[-300:])}"
            self.cache[key] = ok
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            tmp = self.path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(self.cache, f, indent=1)
            os.replace(tmp, self.path)
        return self.cache[key], None


# ---- code items ----------------------------------------------------------------

def find_file(sub, lab, name):
    for rel in (f"labs/{lab}/exercises/{name}", f"{lab}/exercises/{name}", f"{lab}/{name}", name):
        p = os.path.join(sub, rel)
        if os.path.isfile(p):
            return p
    return None


def defined_globals(obj):
    out = subprocess.run(["nm", "-g", "--defined-only", obj], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return {l.split()[-1] for l in out.stdout.splitlines() if len(l.split()) >= 3 and l.split()[1] in "TDBRCVW"}


def grade_code(item, sub, work, v, expected, timeout_cap, log):
    src = find_file(sub, item.lab, item.what)
    if src is None:
        return Outcome(item, "missing", f"not submitted: no {item.what} (looked in labs/{item.lab}/exercises/, "
                                        f"{item.lab}/ and the top of the submission)")
    d = os.path.join(work, f"{item.lab}-{item.name}")  # holds log.txt, already open
    for old in os.listdir(d):
        if old != "log.txt":
            p = os.path.join(d, old)
            shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    obj = os.path.join(d, item.name + ".o")
    cflags = [f for f in shlex.split(v["CFLAGS"]) if not f.startswith("-MMD") and f != "-MP"]
    # -I the reference file's folder too: its own includes are relative
    # ("comm_impl.h"), so the reference copied as a submission compiles.
    incs = ["-I" + os.path.join(ROOT, "core"), "-I" + os.path.join(ROOT, os.path.dirname(item.replaces))]
    rc, out, to = run([v["CC"]] + cflags + incs + ["-c", os.path.abspath(src), "-o", obj], 120)
    log(f"== compile {src}\n{out}")
    if rc != 0:
        err = [l for l in out.splitlines() if "error" in l] or out.splitlines() or ["timed out" if to else "?"]
        return Outcome(item, "no", "does not compile: " + short(err[0]))
    # The student's object must define what the reference file defines, or
    # the link would quietly take the reference function from libddl.a.
    ref_obj = os.path.join(ROOT, v["BUILD"], os.path.splitext(item.replaces)[0] + ".o")
    want, got = defined_globals(ref_obj), defined_globals(obj)
    if want is None:
        return Outcome(item, "error", f"reference object {ref_obj} missing (run make)")
    if got is None or not want <= got:
        return Outcome(item, "no", "does not define " + ", ".join(sorted(want - (got or set()))))
    lib = os.path.join(ROOT, v["BUILD"], "libddl.a")
    tests_obj = os.path.join(ROOT, v["BUILD"], "tests")
    extra = shlex.split(v.get("SAN_OBJ", ""))
    total_runs = 0
    for timeout, nps, program, args in item.tests:
        timeout = min(timeout, timeout_cap) if timeout_cap else timeout
        binary = os.path.join(d, program)
        rc, out, _ = run([v["CC"]] + shlex.split(v["LDFLAGS"]) +
                         [obj, os.path.join(tests_obj, program + ".o"), os.path.join(tests_obj, "harness.o"), lib] +
                         [os.path.join(ROOT, e) for e in extra] + ["-o", binary] + shlex.split(v["LDLIBS"]), 120)
        log(f"== link {program}\n{out}")
        if rc != 0:
            err = [l for l in out.splitlines() if "multiple definition" in l or "undefined reference" in l or
                   "error" in l] or [out]
            return Outcome(item, "no", "does not link with the tests: " + short(err[0]))
        for np_ in (nps or [None]):
            want_ok, err = expected.get(program, np_, args, timeout)
            if err:
                return Outcome(item, "error", err)
            where = f"{program}{' ' + ' '.join(args) if args else ''}" + (f" at {np_} ranks" if np_ else "")
            t0 = time.time()
            rc, out, timed_out = run(test_cmd(binary, np_, args), timeout, env=TEST_ENV)
            log(f"== run {where} ({time.time() - t0:.1f} s, rc {rc})\n{out}")
            total_runs += 1
            ok, bad = count_lines(out)
            hint = ""
            m = re.search(r"exercise \S+ not implemented", out)
            if m:
                hint = f" ({m.group(0)})"
            if timed_out:
                return Outcome(item, "no", f"{where}: timed out after {timeout} s{hint}")
            if bad:
                return Outcome(item, "no", f"{where}: {len(bad)} check(s) failed, first: {short(bad[0][9:])}")
            if rc != 0:
                sig = f"signal {-rc}" if rc < 0 else f"exit status {rc}"
                return Outcome(item, "no", f"{where}: crashed ({sig}) after {ok} checks{hint}")
            if ok < want_ok:
                return Outcome(item, "no", f"{where}: only {ok} of the reference's {want_ok} checks reported")
        try:
            os.remove(binary)  # keep the logs, not the 10 MB programs
        except OSError:
            pass
    return Outcome(item, "yes", f"{total_runs} test runs passed")


# ---- reports -------------------------------------------------------------------

def write_reports(sub, student, outcomes, elapsed):
    total = sum(o.points for o in outcomes)
    most = sum(o.item.points for o in outcomes)
    ungraded = [o for o in outcomes if o.passed in ("missing", "error")]
    rows = [("lab", "item", "points", "max_points", "passed", "reason")]
    for o in outcomes:
        rows.append((o.item.lab, o.item.name, o.points, o.item.points, o.passed, o.reason))
    tmp = os.path.join(sub, "grade-report.csv.tmp")
    with open(tmp, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    os.replace(tmp, os.path.join(sub, "grade-report.csv"))
    md = [f"# Grade report: {student}", "",
          f"**{total} / {most} points**" + (f"; {len(ungraded)} item(s) could not be graded" if ungraded else ""), "",
          f"Graded {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} by ddlab {results_check.git_rev(ROOT)}"
          f" in {elapsed:.0f} s. Logs: .grade/<lab>-<item>/log.txt.", "",
          "| lab | item | points | passed | reason |", "|---|---|---:|---|---|"]
    for o in outcomes:
        reason = o.reason.replace("|", "\\|")
        md.append(f"| {o.item.lab} | {o.item.name} | {o.points}/{o.item.points} | {o.passed} | {reason} |")
    md += ["", "passed: yes / no (graded: failed) / missing (not submitted) / error (could not be graded here)."]
    tmp = os.path.join(sub, "grade-report.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(md) + "\n")
    os.replace(tmp, os.path.join(sub, "grade-report.md"))
    return total, most, len(ungraded)


def submitted_labs(sub, items):
    labs = set()
    for i in items:
        if i.kind == "code" and find_file(sub, i.lab, i.what):
            labs.add(i.lab)
        if i.kind == "results" and results_check.results_dir(sub, i.lab):
            labs.add(i.lab)
    return labs


def grade_submission(sub, items, v, expected, args):
    t0 = time.time()
    student = os.path.basename(os.path.normpath(sub))
    labs = set(args.labs.split(",")) if args.labs else submitted_labs(sub, items)
    chosen = [i for i in items if i.lab in labs]
    work = os.path.join(sub, ".grade")
    os.makedirs(work, exist_ok=True)
    outcomes = []
    if not chosen:
        print(f"{student}: nothing to grade (no exercise files or results/labN/ found in {sub})", file=sys.stderr)
    for item in chosen:
        logdir = os.path.join(work, f"{item.lab}-{item.name}")
        os.makedirs(logdir, exist_ok=True)
        with open(os.path.join(logdir, "log.txt"), "w") as logf:
            def log(text, _f=logf):
                _f.write(text + "\n")
                _f.flush()
            try:
                if item.kind == "code":
                    o = grade_code(item, sub, work, v, expected, args.timeout, log)
                else:
                    passed, reason = results_check.check(sub, item.lab, item.what, log)
                    o = Outcome(item, passed, reason)
            except Exception as e:  # the grader reports, it never dies on one item
                o = Outcome(item, "error", f"grader error: {type(e).__name__}: {e}")
        outcomes.append(o)
        if not args.quiet:
            print(f"  {student} {item.lab}/{item.name}: {o.passed} {o.points}/{item.points} - {o.reason}",
                  file=sys.stderr)
    total, most, ungraded = write_reports(sub, student, outcomes, time.time() - t0)
    return total, most, ungraded or not chosen


def check_options(args, items):
    """--labs and --timeout (or GRADE_TIMEOUT) are checked before any work:
    an unknown lab or a negative timeout would otherwise grade nothing, or
    time out every test, without a word."""
    known = sorted({i.lab for i in items}, key=lambda lab: int(lab[3:]) if lab[3:].isdigit() else 0)
    if args.labs is not None:
        labs = args.labs.split(",")
        bad = [lab for lab in labs if lab not in known]
        if bad:
            die(f"--labs: unknown lab '{bad[0]}'; expected a comma list of {', '.join(known)}")
    where, text = ("--timeout", args.timeout) if args.timeout is not None else \
        ("GRADE_TIMEOUT", os.environ.get("GRADE_TIMEOUT", ""))
    if text in ("", None):
        args.timeout = 0  # each test's own timeout
    elif not text.isdigit() or int(text) < 1:
        die(f"{where}: '{text}' is not a number of seconds (an integer, 1 or more)")
    else:
        args.timeout = int(text)


def main():
    ap = argparse.ArgumentParser(description="Grade ddlab submissions (labs/grade/README.md).")
    ap.add_argument("submissions", nargs="+", help="submission folders")
    ap.add_argument("--labs", help="grade only these labs (comma-separated, e.g. lab2,lab3); "
                                   "default: the labs the submission has files for")
    ap.add_argument("--timeout", help="cap every test's timeout at this many seconds, 1 or more (default: "
                                      "$GRADE_TIMEOUT, else tests/grade/tests.txt's)")
    ap.add_argument("--summary", help="also write one CSV line per submission to this file")
    ap.add_argument("--no-build", action="store_true", help="do not run make first (make grade already did)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    items = load_rubrics()
    check_options(args, items)
    for s in args.submissions:
        if not os.path.isdir(s):
            die(f"{s}: not a folder")
    if not args.no_build:
        r = subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT, "all"])
        if r.returncode != 0:
            die("the reference build failed (make)", 1)
    v = make_vars()
    expected = Expected(v)
    status = 0
    summary = [("submission", "points", "max_points", "complete")]
    for sub in args.submissions:
        total, most, incomplete = grade_submission(os.path.abspath(sub), items, v, expected, args)
        print(f"{sub}: {total}/{most} points{' (incomplete: see the report)' if incomplete else ''}"
              f" -> {os.path.join(sub, 'grade-report.md')}")
        summary.append((sub, total, most, "no" if incomplete else "yes"))
        if incomplete:
            status = 1
    if args.summary:
        with open(args.summary, "w", newline="") as f:
            csv.writer(f).writerows(summary)
    sys.exit(status)


if __name__ == "__main__":
    main()
