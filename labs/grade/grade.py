#!/usr/bin/env python3
"""grade.py - grade student submissions (make grade SUBMISSION=dir, bin/grade dir...).

For each submission folder:
  1. the folder is walked once: links, FIFOs, devices, hard-linked and
     oversized files are refused and never read (submission.py);
  2. results items (kind "results"): labs/grade/results_check.py checks the
     submitted results/labN/ files;
  3. code items (labs/labN/exercises/rubric.txt, kind "code"): the student's
     exercise file is compiled with the reference build's flags, checked to
     define the function(s) it replaces, and linked into the test programs
     that tests/grade/tests.txt lists for the item, each run at its rank
     counts under mpirun with a timeout: all of it confined (sandbox.py).
     Those runs only record the function's results; the grader's own build
     of each test, with no submission code in it, replays them and decides
     (code_item.py, labs/grade/tape/). One item per build: a broken ring
     cannot cost the group-averaging item that calls it;
  4. writes dir/grade-report.csv (lab, item, points, max_points, passed,
     reason) and, by --format, dir/grade-report.md (markdown, the default),
     Gradescope's results.json (dir/grade-results.json) and JUnit XML
     (dir/grade-junit.xml) (formats.py; items hidden in the rubric are
     withheld from the Markdown and JUnit until their date).
Exit status: 0 when every item of the graded labs could be graded (passed
or failed), 1 when something could not (missing file or results, a
reference that fails here), 2 on usage errors. Python 3 standard library
only; needs the reference build (make), binutils' nm, and util-linux
(unshare, setpriv, prlimit) with root to confine submissions."""

import argparse
import csv
import fcntl
import glob
import io
import os
import stat
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs", "grade"))
import formats  # noqa: E402
import results_check  # noqa: E402
from code_item import CodeGrader, Expected, Outcome, Toolchain, short  # noqa: E402
from fsafe import remove_tree, shown, take_back, visible  # noqa: E402
from sandbox import Sandbox, unreadable_ancestor  # noqa: E402
from submission import Submission  # noqa: E402


TESTS = os.path.join(ROOT, "tests", "grade", "tests.txt")


class Item:
    def __init__(self, lab, name, points, kind, what, replaces, hidden=False, reveal=None):
        self.lab, self.name, self.points, self.kind = lab, name, points, kind
        self.what, self.replaces = what, replaces
        self.hidden, self.reveal = hidden, reveal  # rubric: a last field `hidden` or `hidden=DATE`
        self.tests = []  # (timeout, [np] or None, program, args)


def die(msg, code=2):
    print("grade: " + msg, file=sys.stderr)
    sys.exit(code)


# ---- configuration -----------------------------------------------------------

def rubric_paths(overrides):
    """{lab: its rubric file}: labs/labN/exercises/rubric.txt, or the file
    --rubric labN=FILE names instead (an instructor's copy, with hidden
    items, say)."""
    paths = {os.path.basename(os.path.dirname(os.path.dirname(p))): p
             for p in glob.glob(os.path.join(ROOT, "labs", "lab*", "exercises", "rubric.txt"))}
    for text in overrides or ():
        lab, sep, path = text.partition("=")
        if not sep or lab not in paths:
            die(f"--rubric: expected labN=FILE with labN one of {', '.join(sorted(paths))}, got '{shown(text)}'")
        if not os.path.isfile(path):
            die(f"--rubric: {shown(path)}: not a file")
        paths[lab] = path
    return paths


def rubric_item(lab, fields, where):
    """One rubric line's Item: 'item points code file replaces' or 'item
    points results check', then optionally `hidden` or `hidden=DATE`."""
    hidden, reveal = False, None
    if len(fields) > 4 and (fields[-1] == "hidden" or fields[-1].startswith("hidden=")):
        hidden, mark = True, fields.pop()
        if mark != "hidden":
            reveal = formats.parse_date(mark[len("hidden="):])
            if reveal is None:
                die(f"{where}: '{mark}': expected hidden or hidden=YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM]")
    if len(fields) < 4 or fields[2] not in ("code", "results") or not fields[1].isdigit() or \
            (fields[2] == "code" and len(fields) != 5):
        die(f"{where}: expected 'item points code file replaces' or 'item points results check', then optionally "
            f"'hidden' or 'hidden=DATE'")
    return Item(lab, fields[0], int(fields[1]), fields[2], fields[3], fields[4] if len(fields) > 4 else None,
                hidden, reveal)


def load_rubrics(tests_path, overrides=None):
    """The rubrics' items, each with its test runs from tests_path
    (tests/grade/tests.txt unless --tests names another list)."""
    items = []
    for lab, path in sorted(rubric_paths(overrides).items()):
        with open(path) as f:
            for n, line in enumerate(f, 1):
                fields = line.split("#", 1)[0].split()
                if fields:
                    items.append(rubric_item(lab, fields, f"{path}:{n}"))
    by_key = {f"{i.lab}/{i.name}": i for i in items}
    path = tests_path
    try:
        f = open(path)
    except OSError as e:
        die(f"--tests: cannot read {path}: {e.strerror}")
    with f:
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


# ---- reports -------------------------------------------------------------------

# A spreadsheet takes a cell that starts with one of these for a formula
# (a submission folder named =HYPERLINK(...) would be one in --summary);
# OWASP's advice: a single quote before it, so it is shown as text.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_rows(rows):
    """rows with every text cell that a spreadsheet would run neutralised."""
    return [[f"'{c}" if isinstance(c, str) and c.startswith(FORMULA_START) else c for c in r] for r in rows]


def write_markdown(sub, outcomes, hidden, about):
    """grade-report.md: the student's view. An item hidden now (hidden:
    {item: "hidden until DATE"}) shows that instead of its points and
    reason, and the total counts the items shown; with no hidden item it
    is the report it always was."""
    ungraded = [o for o in outcomes if o.item not in hidden and o.passed in ("missing", "error")]
    total, _, rest = formats.shown_total(outcomes, hidden).partition(" points")
    md = [f"# Grade report: {shown(sub.name)}", "",
          f"**{total} points**{rest}" + (f"; {len(ungraded)} item(s) could not be graded" if ungraded else ""), "",
          about, "", "| lab | item | points | passed | reason |", "|---|---|---:|---|---|"]
    for o in outcomes:
        if o.item in hidden:
            md.append(f"| {o.item.lab} | {o.item.name} | ?/{o.item.points} | hidden | {hidden[o.item]} |")
            continue
        reason = visible(o.reason).replace("|", "\\|")
        md.append(f"| {o.item.lab} | {o.item.name} | {o.points}/{o.item.points} | {o.passed} | {reason} |")
    md += ["", "passed: yes / no (graded: failed) / missing (not submitted) / error (could not be graded here)" +
           ("; hidden: graded, shown after its date." if hidden else ".")]
    if sub.refused:
        md += ["", "Refused, never read (the grader reads plain files only):", ""]
        md += [f"- `{shown(p)}`: {why}" for p, why in sorted(sub.refused.items())[:50]]
    sub.write_output("grade-report.md", "\n".join(md) + "\n")


def write_reports(sub, outcomes, elapsed, confinement, args, times):
    """The CSV (always, everything in it), then the --format reports.
    times: {item: seconds it took}."""
    total = sum(o.points for o in outcomes)
    most = sum(o.item.points for o in outcomes)
    ungraded = [o for o in outcomes if o.passed in ("missing", "error")]
    rows = [("lab", "item", "points", "max_points", "passed", "reason")]
    for o in outcomes:
        rows.append((o.item.lab, o.item.name, o.points, o.item.points, o.passed, visible(o.reason)))
    text = io.StringIO()
    csv.writer(text).writerows(csv_rows(rows))
    sub.write_output("grade-report.csv", text.getvalue())
    stamp = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    about = (f"Graded {stamp} by ddlab {results_check.git_rev(ROOT)}"
             f" in {elapsed:.0f} s. Logs: .grade/<lab>-<item>/log.txt. Submission code ran {confinement}." +
             ("" if args.tests == TESTS else f" Code items graded by the test runs {args.tests} lists (--tests), "
                                             f"not tests/grade/tests.txt."))
    hidden = {}
    for o in outcomes:
        why = formats.hidden_until(o.item, args.reveal_after)
        if why:
            hidden[o.item] = why
    if "markdown" in args.formats:
        write_markdown(sub, outcomes, hidden, about)
    seen = [Outcome(o.item, o.passed, visible(o.reason)) for o in outcomes]
    if "gradescope" in args.formats:
        summary = f"ddlab grade: {formats.shown_total(seen, hidden)}. {about}"
        sub.write_output(formats.GRADESCOPE_FILE, formats.gradescope(seen, hidden, summary, elapsed))
    if "junit" in args.formats:
        sub.write_output(formats.JUNIT_FILE, formats.junit(shown(sub.name), seen, hidden, times, stamp))
    return total, most, len(ungraded)


def submitted_labs(sub, items):
    labs = set()
    for i in items:
        if i.kind == "code" and sub.lookup(exercise_paths(i))[0]:
            labs.add(i.lab)
        if i.kind == "results" and results_check.results_dir(sub.path, i.lab):
            labs.add(i.lab)
    return labs


def exercise_paths(item):
    lab, name = item.lab, item.what
    return f"labs/{lab}/exercises/{name}", f"{lab}/exercises/{name}", f"{lab}/{name}", name


def grade_results(item, sub, log):
    d = results_check.results_dir(sub.path, item.lab)
    refused = d and sub.refusal_under(os.path.relpath(d, sub.path))
    if refused:
        return Outcome(item, "no", refused)
    passed, reason = results_check.check_bounded(sub.path, item.lab, item.what, log)
    return Outcome(item, passed, reason)


def hidden_from_sandbox(paths):
    """The folders holding the submissions (other students' work), but
    those that would hide the build the sandbox needs."""
    hide = set()
    for path in paths:
        parent = os.path.dirname(os.path.abspath(path))
        if parent != os.sep and ROOT != parent and not ROOT.startswith(parent + os.sep):
            hide.add(parent)
    return sorted(hide)


def tidy_work(work, keep):
    """After an item: keep the source and object for a look (keep: their
    two names, which the grader chose), drop the programs, tapes and
    whatever else the submission's code made, under any name (20,000
    files named like sources once stayed, owned by root), and take the
    rest back from the sandbox's uid: root's, nothing world-writable (the
    submission owned the folder, and may have made it mode 1777 or its
    files 0777). The work folder is the grader's own, made empty for this
    item: everything else in it was made by the run."""
    if not os.path.isdir(work) or os.path.islink(work):
        return
    for name in os.listdir(work):
        p = os.path.join(work, name)
        st = os.lstat(p)
        if name not in keep or not stat.S_ISREG(st.st_mode) or st.st_size > (8 << 20):
            remove_tree(p)
        else:
            take_back(p, 0o644)
    take_back(work, 0o755)


def grade_one(item, sub, code, log):
    if item.kind != "code":
        return grade_results(item, sub, log)
    if isinstance(code, str):
        return Outcome(item, "error", code)
    return code.grade(item, sub, os.path.dirname(log.path), log)


def grade_submission(path, items, code, args):
    """code: a CodeGrader, or why code items cannot be graded here."""
    t0 = time.time()
    sub = Submission(path)
    labs = set(args.labs.split(",")) if args.labs else submitted_labs(sub, items)
    chosen = [i for i in items if i.lab in labs]
    if not chosen:
        print(f"{shown(sub.name)}: nothing to grade (no exercise files or results/labN/ found in {shown(sub.path)})",
              file=sys.stderr)
    outcomes, times = {}, {}
    # Results first: they are read before any submission code has run.
    for item in sorted(chosen, key=lambda i: i.kind == "code"):
        d = sub.fresh_dir(os.path.join(".grade", f"{item.lab}-{item.name}"))
        with open(os.path.join(d, "log.txt"), "w", encoding="utf-8", errors="backslashreplace") as logf:
            def log(text, _f=logf):
                _f.write(text + "\n")
                _f.flush()
            log.path = logf.name
            t_item = time.time()
            try:
                o = grade_one(item, sub, code, log)
            except Exception as e:  # the grader reports, it never dies on one item
                o = Outcome(item, "error", f"grader error: {type(e).__name__}: {e}")
            times[item] = time.time() - t_item
        try:
            tidy_work(os.path.join(d, "work"), (item.what, item.name + ".o") if item.kind == "code" else ())
        except OSError as e:  # said, not fatal: the item was graded
            print(f"grade: {shown(sub.name)} {item.lab}/{item.name}: could not tidy its work folder: {visible(str(e))}",
                  file=sys.stderr)
        outcomes[item] = o
        if not args.quiet:
            print(f"  {shown(sub.name)} {item.lab}/{item.name}: {o.passed} {o.points}/{item.points} - "
                  f"{visible(o.reason)}", file=sys.stderr)
    confinement = code.sandbox.describe() if isinstance(code, CodeGrader) else "nowhere (no code item graded)"
    total, most, ungraded = write_reports(sub, [outcomes[i] for i in chosen], time.time() - t0, confinement,
                                          args, times)
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
    args.formats = formats.parse_formats(args.format)
    if args.formats is None:
        die(f"--format: '{shown(args.format)}' is not a comma list of {', '.join(formats.FORMATS)}")
    if args.reveal_after is not None:
        args.reveal_after, text = formats.parse_date(args.reveal_after), args.reveal_after
        if args.reveal_after is None:
            die(f"--reveal-after: '{shown(text)}' is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM])")
    where, text = ("--timeout", args.timeout) if args.timeout is not None else \
        ("GRADE_TIMEOUT", os.environ.get("GRADE_TIMEOUT", ""))
    if text in ("", None):
        args.timeout = 0  # each test's own timeout
    elif not text.isdigit() or int(text) < 1:
        die(f"{where}: '{text}' is not a number of seconds (an integer, 1 or more)")
    else:
        args.timeout = int(text)


def self_check_item(items):
    """The known-good item the sandbox must build before grading: the
    smallest (lab5's fp16_round: one file, no MPI) when it is there."""
    code = [i for i in items if i.kind == "code"]
    return next((i for i in code if (i.lab, i.name) == ("lab5", "fp16_round")), code[0] if code else None)


def code_grader(args, v, items, hide):
    """A CodeGrader, or why submission code cannot run here (said once on
    stderr; every code item then reports it as an error). hide: the
    folders the sandbox hides while grading, hidden in the self-check too:
    a toolchain that only works where they are seen (a compiler in the
    submissions' folder) must fail there, as a grader error, and not in
    every student's compile."""
    confined = os.geteuid() == 0 and not args.unconfined
    if os.geteuid() != 0 and not args.unconfined:
        return ("not graded: running a submission's code confined needs root (to give it a uid of its own and "
                "namespaces); run the grader as root, or pass --unconfined to run it as your own user")
    why = None
    closed = unreadable_ancestor(ROOT) if confined else None
    if closed:
        why = (f"the sandbox's unprivileged user cannot read the build: {closed} is closed to other users "
               f"(chmod o+rx it, or keep the repository elsewhere)")
    grader = CodeGrader(Toolchain(ROOT, v), Expected(ROOT, v), Sandbox(confined, ROOT), args.timeout,
                        hide=hide if confined else ())
    known_good = self_check_item(items)
    if not why and known_good:
        scratch = tempfile.mkdtemp(prefix="ddlab-grade-")
        try:
            failed = grader.self_check(known_good, scratch)
        finally:
            remove_tree(scratch)
        if failed:
            why = (f"the grader's sandbox cannot build a known-good item here ({short(failed, 300)}): a grader "
                   f"error, not the students'; it needs util-linux's unshare, setpriv and prlimit, a kernel that "
                   f"allows namespaces, the reference build (make), and a compiler (CC={v.get('CC', '?')}) that "
                   f"the sandbox sees: not under the submissions' folders, which it hides; or pass --unconfined")
    if why:
        print(f"grade: code items cannot be graded: {why}", file=sys.stderr)
        return "not graded: " + why
    return grader


def inside_checkout(given):
    """The folder's real path when it is the repository or inside it (a
    lab's own folder, labs/lab5: grading would write into the source
    tree), else None."""
    path = os.path.realpath(given)
    return path if path == ROOT or path.startswith(ROOT + os.sep) else None


def lock_dir(v):
    """Where the grader keeps its locks: the build's grade folder (the
    grader's own, never inside a submission), or, where this user cannot
    write there, a folder of its own under the temporary folder."""
    d = os.path.join(ROOT, v["BUILD"], "grade", "locks")
    try:
        os.makedirs(d, exist_ok=True)
        if os.access(d, os.W_OK):
            return d
    except OSError:
        pass
    d = os.path.join(tempfile.gettempdir(), f"ddlab-grade-locks-{os.getuid()}")
    os.makedirs(d, mode=0o700, exist_ok=True)
    st = os.lstat(d)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        die(f"{d} is not a folder of this user's alone: cannot keep the grader's locks there", 1)
    return d


def lock_submission(path, locks):
    """(the lock on the folder: its descriptor and file, None), or
    (None, the pid of the grader holding it). Graders of one folder at
    once wrote its .grade/ and reports over each other ("does not compile:
    Permission denied", FileExistsError, the report of whichever ended
    last). The lock file is named by the folder's device and inode, so
    every path to it takes the same lock, and it lives in the grader's
    folder (locks), where a submission can put no link."""
    st = os.stat(path)
    lock = os.path.join(locks, f"{st.st_dev}-{st.st_ino}.lock")
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            return None, holder
        # The holder before us removes the file as it lets go
        # (unlock_submission): a lock on a file no longer there is no lock.
        try:
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return (fd, lock), None


def unlock_submission(lock):
    """Let go of lock_submission's lock, removing its file first (while
    it is held), so that the locks do not pile up, one per folder ever
    graded."""
    fd, path = lock
    os.unlink(path)
    os.close(fd)


def check_folder(given, confined):
    """(the folder to grade, None) or (None, why it is not graded): a
    symbolic link is not followed (the reports would be written where it
    points), and confined, a folder whose parent holds the repository is
    refused: the sandbox hides the submissions' parent folders from every
    submission's code, and that one it cannot hide."""
    if os.path.islink(given.rstrip(os.sep) or os.sep):
        return None, (f"a symbolic link (to {shown(os.path.realpath(given))}): not followed; grade the folder "
                      f"itself")
    path = os.path.realpath(given)
    parent = os.path.dirname(path)
    if confined and (parent == ROOT or ROOT == path or ROOT.startswith(parent.rstrip(os.sep) + os.sep)):
        return None, (f"its folder {shown(parent)} holds the repository ({shown(ROOT)}), which the sandbox cannot "
                      f"hide, so the other submissions there would be readable to this one's code: put the "
                      f"submissions in a folder of their own")
    return path, None


def main():
    ap = argparse.ArgumentParser(description="Grade ddlab submissions (labs/grade/README.md).")
    ap.add_argument("submissions", nargs="+", help="submission folders")
    ap.add_argument("--labs", help="grade only these labs (comma-separated, e.g. lab2,lab3); "
                                   "default: the labs the submission has files for")
    ap.add_argument("--timeout", help="cap every test's timeout at this many seconds, 1 or more (default: "
                                      "$GRADE_TIMEOUT, else tests/grade/tests.txt's)")
    ap.add_argument("--tests", default=TESTS,
                    help="which test runs grade which item (default: tests/grade/tests.txt; a list with fewer rank "
                         "counts grades faster and less thoroughly)")
    ap.add_argument("--summary", help="also write one CSV line per submission to this file")
    ap.add_argument("--format", default="markdown",
                    help="the reports besides grade-report.csv, a comma list of markdown (grade-report.md, the "
                         "default), gradescope (Gradescope's results.json as grade-results.json), junit "
                         "(grade-junit.xml)")
    ap.add_argument("--reveal-after", metavar="DATE",
                    help="items hidden in the rubric are shown from DATE on (YYYY-MM-DD, 00:00 UTC, or an ISO "
                         "8601 time), instead of the rubric's date")
    ap.add_argument("--rubric", action="append", metavar="labN=FILE",
                    help="grade labN by FILE instead of labs/labN/exercises/rubric.txt (repeatable)")
    ap.add_argument("--unconfined", action="store_true",
                    help="run submission code as the grader's own user, with resource limits only (for a grader "
                         "that is not root; see labs/grade/README.md, Confinement)")
    ap.add_argument("--no-build", action="store_true", help="do not run make first (make grade already did)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    # Names from submissions are shown escaped; stdout must never be what fails.
    sys.stdout.reconfigure(errors="backslashreplace")
    items = load_rubrics(args.tests, args.rubric)
    check_options(args, items)
    for s in args.submissions:
        if not os.path.isdir(s):
            die(f"{shown(s)}: not a folder")
        inside = inside_checkout(s)
        if inside:
            die(f"{shown(s)}: inside the repository ({shown(inside)} is in {shown(ROOT)}): grading writes .grade/ and "
                f"grade-report.* into the folder, which would put them in the source tree; copy the submission to a "
                f"folder of its own outside the repository (subs/<name>)")
    if not args.no_build:
        r = subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT, "all"])
        if r.returncode != 0:
            die("the reference build failed (make)", 1)
    v = make_vars()
    # The folders and what the sandbox hides are settled first: the
    # self-check (code_grader) runs in the confinement grading will use.
    confined = os.geteuid() == 0 and not args.unconfined
    chosen = [(s,) + check_folder(s, confined) for s in args.submissions]
    code = code_grader(args, v, items, hidden_from_sandbox([p for _, p, why in chosen if p]))
    status = 0
    summary = [("submission", "points", "max_points", "complete")]
    locks = lock_dir(v)
    for sub, path, why in chosen:
        lock, holder = (None, None) if why else lock_submission(path, locks)
        if holder:
            why = (f"being graded by another grader (pid {holder}) right now: not graded here; run it again when "
                   f"that one has finished")
        if not why:
            try:
                total, most, incomplete = grade_submission(path, items, code, args)
            except Exception as e:  # one submission never ends the run: it gets its own line
                why = f"grader error: {type(e).__name__}: {visible(str(e))}"
            finally:
                unlock_submission(lock)
        if why:
            print(f"{shown(sub)}: not graded: {why}")
            summary.append((shown(sub), 0, 0, "no"))
            status = 1
            continue
        # Where the report went: the folder's real path when a folder above
        # it is a link.
        where = path if path != os.path.abspath(sub) else sub
        first = {"markdown": "grade-report.md", "gradescope": formats.GRADESCOPE_FILE,
                 "junit": formats.JUNIT_FILE}[args.formats[0]]
        print(f"{shown(sub)}: {total}/{most} points{' (incomplete: see the report)' if incomplete else ''}"
              f" -> {shown(os.path.join(where, first))}")
        summary.append((shown(sub), total, most, "no" if incomplete else "yes"))
        if incomplete:
            status = 1
    if args.summary:
        with open(args.summary, "w", newline="") as f:
            csv.writer(f).writerows(csv_rows(summary))
    sys.exit(status)


if __name__ == "__main__":
    main()
