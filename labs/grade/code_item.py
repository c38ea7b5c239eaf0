"""code_item.py - grade one code item (labs/grade/README.md, "How a code
item is graded").

The submission's file is compiled, checked to define what the reference
file defines, and linked into each test program of the item; all of that,
and every run of those programs, happens in the sandbox (sandbox.py).
Its runs only record the graded function's results on a tape
(labs/grade/tape/): the verdict of each run comes from the grader's own
build of the same test, which holds no submission code and plays the
tape back (tape.h). The submission's output is read for its failures
only; a pass printed by it counts for nothing."""

import hashlib
import json
import os
import re
import shlex
import subprocess
import time

from fsafe import create_new, remove_tree
from sandbox import Limits

MPIRUN = ["mpirun", "--oversubscribe", "--mca", "pml", "ob1", "--mca", "btl", "self,vader", "--bind-to", "none"]
TEST_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"}
# Calls a graded function makes that the tape replays (tape_events.c).
REPLAYED_CALLS = ("comm_allreduce", "sync_comm_event")
EXCERPT = 16 << 10
# The test suite's sampling switch (tests/run.sh): the reference's count of
# "ok" lines must come from the same whole tests the sandbox's runs and
# replays make (their environment is the grader's, env -i), whatever tier
# the grader itself was started from, or the cached count would not be
# the count of the programs that the replays run.
SUITE_ONLY = ("DDL_TEST_TIER",)


class Outcome:
    """passed: 'yes' | 'no' (graded, failed) | 'missing' | 'error' (not graded)."""

    def __init__(self, item, passed, reason):
        self.item, self.passed, self.reason = item, passed, reason
        self.points = item.points if passed == "yes" else 0


def short(text, n=160):
    text = "".join(c if c.isprintable() else " " for c in text)
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def run_trusted(cmd, timeout, env=None):
    """(rc, output, timed_out) of one of the grader's own commands (no
    submission code in it): the reference's test runs and links. Its own
    session, killed whole on timeout."""
    full_env = {k: v for k, v in os.environ.items() if k not in SUITE_ONLY}
    full_env.update(env or {})
    try:
        p = subprocess.Popen(cmd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    except OSError as e:
        return 127, str(e), False
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
        return -1, out.decode("utf-8", "replace"), True


def test_cmd(binary, np_, args):
    return [binary] + args if np_ is None else MPIRUN + ["-np", str(np_), binary] + args


class Output:
    """What a run printed, read line by line (a flood of output costs
    time, not memory): ok lines, failed checks, the first grade-tape
    message, a hint, and head and tail for the log."""

    def __init__(self, path):
        # Failed checks and notes: the first few kept, the rest counted (a
        # run may print millions of lines, and memory must not grow with them).
        self.ok, self.bad, self.n_bad, self.tape, self.notes, self.hint = 0, [], 0, None, [], ""
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(EXCERPT)
            f.seek(max(size - EXCERPT, len(head)))
            tail = f.read(EXCERPT)
            f.seek(0)
            for raw in f:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if line.startswith("ok - "):
                    self.ok += 1
                elif line.startswith("not ok - "):
                    self.n_bad += 1
                    if len(self.bad) < 100:
                        self.bad.append(line[9:])
                elif line.startswith("grade-tape: note: "):
                    if len(self.notes) < 10:
                        self.notes.append(line[len("grade-tape: note: "):])
                elif line.startswith("grade-tape: ") and self.tape is None:
                    self.tape = line[len("grade-tape: "):]
                elif not self.hint:
                    m = re.search(r"exercise \S+ not implemented", line)
                    self.hint = f" ({m.group(0)})" if m else ""
        self.excerpt = head.decode("utf-8", "replace")
        if size > len(head):
            cut = size - len(head) - len(tail)
            self.excerpt += (f"\n[... {cut} bytes left out ...]\n" if cut > 0 else "") + tail.decode("utf-8", "replace")


class Toolchain:
    """The reference build the grader compiles and links with, and the
    programs it builds from it alone (trusted: no submission code)."""

    def __init__(self, root, v):
        self.root, self.v = root, v
        self.cc = v["CC"]
        self.cflags = [f for f in shlex.split(v["CFLAGS"]) if not f.startswith("-MMD") and f != "-MP"]
        self.build = os.path.join(root, v["BUILD"])
        self.lib = os.path.join(self.build, "libddl.a")
        self.tape = os.path.join(root, v["GRADE_TAPE_LIB"])
        self.tests = os.path.join(self.build, "tests")
        self.extra = [os.path.join(root, e) for e in shlex.split(v.get("SAN_OBJ", ""))]
        self.cache = os.path.join(self.build, "grade")

    def ref_object(self, item):
        return os.path.join(self.build, os.path.splitext(item.replaces)[0] + ".o")

    def link(self, objs, wraps, libs, out):
        return ([self.cc] + shlex.split(self.v["LDFLAGS"]) + [f"-Wl,--wrap={w}" for w in wraps] + objs +
                ["-Wl,--start-group"] + libs + ["-Wl,--end-group"] + self.extra + ["-o", out] +
                shlex.split(self.v["LDLIBS"]))

    def wraps(self, functions):
        return sorted(functions) + list(REPLAYED_CALLS)

    def _fresh(self, out, inputs):
        try:
            t = os.path.getmtime(out)
        except OSError:
            return False
        return all(os.path.getmtime(i) <= t for i in inputs)

    def _make(self, out, inputs, cmds):
        """Build out by cmds (each writing out + '.tmp') unless newer than
        its inputs; renamed into place, so graders running at once agree."""
        if self._fresh(out, inputs):
            return None
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tmp = f"{out}.{os.getpid()}.tmp"
        for cmd in cmds:
            rc, text, _ = run_trusted([tmp if a == "{tmp}" else a for a in cmd], 300)
            if rc != 0:
                return f"{' '.join(cmd[:2])}...: {short(text)}"
        os.replace(tmp, out)
        return None

    def library_without(self, item, functions):
        """libddl.a less the reference file's member: a submission that does
        not define the function cannot link to the reference's."""
        member = os.path.basename(self.ref_object(item))
        out = os.path.join(self.cache, f"libddl-without-{member[:-2]}.a")
        err = self._make(out, [self.lib], [["cp", self.lib, "{tmp}"], ["ar", "d", "{tmp}", member]])
        if err:
            return None, err
        left = defined_globals(out) or set()
        if left & functions:
            return None, f"{out} still defines {', '.join(sorted(left & functions))}"
        return out, None

    def replay_program(self, item, functions, program):
        out = os.path.join(self.cache, f"{item.lab}-{item.name}", program)
        objs = [os.path.join(self.tests, program + ".o"), os.path.join(self.tests, "harness.o")]
        err = self._make(out, objs + [self.lib, self.tape],
                         [self.link(objs, self.wraps(functions), [self.tape, self.lib], "{tmp}")])
        return out, err


def defined_globals(obj, text=None):
    """Global symbols an object defines (nm -g --defined-only)."""
    if text is None:
        rc, text, _ = run_trusted(["nm", "-g", "--defined-only", obj], 60)
        if rc != 0:
            return None
    return {l.split()[-1] for l in text.splitlines() if len(l.split()) >= 3 and l.split()[1] in "TDBRCVW"}


class Expected:
    """How many "ok" lines the reference prints per test run, cached by the
    reference binary's content: a replay that reports fewer checks than
    that (a test cut short) does not pass."""

    def __init__(self, root, v):
        self.bin = os.path.join(root, v["BIN"], "tests")
        self.path = os.path.join(root, v["BUILD"], "grade-expected.json")
        self.root = root
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
            env = dict(TEST_ENV, DDL_TEST_ROOT=self.root)
            rc, out, timed_out = run_trusted(test_cmd(binary, np_, args), timeout * 3, env=env)
            ok = sum(1 for l in out.splitlines() if l.startswith("ok - "))
            bad = [l for l in out.splitlines() if l.startswith("not ok - ")]
            if rc != 0 or bad or timed_out or ok == 0:
                return None, f"the reference fails this test here (np {np_}): {short(bad[0] if bad else out[-300:])}"
            self.cache[key] = ok
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            tmp = f"{self.path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump(self.cache, f, indent=1)
            os.replace(tmp, self.path)
        return self.cache[key], None


class SandboxFailed(Exception):
    """The sandbox itself could not be set up: the grader's problem, not
    the submission's."""


class CodeGrader:
    """Grades code items of submissions with one toolchain and sandbox."""

    def __init__(self, tc, expected, sandbox, timeout_cap, hide=()):
        self.tc, self.expected, self.sandbox = tc, expected, sandbox
        self.timeout_cap, self.hide = timeout_cap, list(hide)

    def _sandboxed(self, cmd, work, out_name, timeout, env=None, writable=True, home_cwd=False):
        """Run cmd in the sandbox; its output goes to the grader's folder
        beside the work folder (the sandbox cannot write there)."""
        out = os.path.join(os.path.dirname(work), out_name)
        r = self.sandbox.run(cmd, work, out, timeout, Limits(timeout + 30), env=env, writable=writable,
                             hide=self.hide, home_cwd=home_cwd)
        if r.sandbox_error:
            raise SandboxFailed(r.sandbox_error)
        return r, Output(out)

    def grade(self, item, sub, d, log):
        lab, name = item.lab, item.what
        rel, refused = sub.lookup((f"labs/{lab}/exercises/{name}", f"{lab}/exercises/{name}", f"{lab}/{name}", name))
        if rel is None:
            return Outcome(item, "missing", f"not submitted: no {name} (looked in labs/{lab}/exercises/, {lab}/ "
                                            f"and the top of the submission)")
        if refused:
            return Outcome(item, "no", refused)
        functions = defined_globals(self.tc.ref_object(item))
        if not functions:
            return Outcome(item, "error", f"reference object {self.tc.ref_object(item)} missing (run make)")
        tape_has = defined_globals(self.tc.tape) or set()
        no_tape = sorted(f for f in functions if "__wrap_" + f not in tape_has)
        if no_tape:
            return Outcome(item, "error", f"the grader has no tape for {', '.join(no_tape)} (labs/grade/tape/)")
        work = os.path.join(d, "work")
        self.sandbox.make_work(work)
        with create_new(os.path.join(work, name)) as f:
            f.write(sub.read(rel))
        log(f"== {rel} -> {work}/{name}; {self.sandbox.describe()}")
        try:
            o = self._compile(item, work, functions, log)
            for timeout, nps, program, args in item.tests if o is None else ():
                timeout = min(timeout, self.timeout_cap) if self.timeout_cap else timeout
                o = self._test(item, functions, work, program, args, nps, timeout, log)
                if o is not None:
                    break
        except SandboxFailed as e:
            log(f"== the sandbox failed: {e}")
            return Outcome(item, "error", f"not graded: the sandbox failed here: {short(str(e))}")
        runs = sum(len(nps or [None]) for _, nps, _, _ in item.tests)
        return o or Outcome(item, "yes", f"{runs} test runs passed (checked by the grader's replay of their results)")

    def self_check(self, item, scratch):
        """None when the sandbox builds a known-good item here (the
        reference file of item, compiled, checked and linked into its first
        test program exactly as a submission's file is), else why not: a
        sandbox that cannot see the build's headers or libraries would
        otherwise fail every right answer as the student's error."""
        functions = defined_globals(self.tc.ref_object(item))
        if not functions:
            return f"reference object {self.tc.ref_object(item)} missing (run make)"
        work = os.path.join(scratch, "work")
        self.sandbox.make_work(work)
        with open(os.path.join(self.tc.root, item.replaces), "rb") as src, \
                create_new(os.path.join(work, item.what)) as f:
            f.write(src.read())
        notes = []
        log = notes.append
        try:
            o = self._compile(item, work, functions, log) or \
                self._link(item, functions, work, item.tests[0][2], log)
        except SandboxFailed as e:
            return str(e)
        if o is None:
            return None
        return f"{item.replaces} as {item.lab}/{item.name}: {o.reason}"

    def _compile(self, item, work, functions, log):
        """Compile in the sandbox; check the object defines the functions."""
        incs = ["-I" + os.path.join(self.tc.root, "core"),
                "-I" + os.path.join(self.tc.root, os.path.dirname(item.replaces))]
        cmd = [self.tc.cc] + self.tc.cflags + incs + ["-c", item.what, "-o", item.name + ".o"]
        r, out = self._sandboxed(cmd, work, "compile.out", 120)
        log(f"== compile {item.what} (rc {r.rc})\n{out.excerpt}")
        if r.rc != 0 or r.timed_out:
            err = [l for l in out.excerpt.splitlines() if "error" in l] or out.excerpt.splitlines() or \
                ["timed out" if r.timed_out else f"exit status {r.rc}"]
            return Outcome(item, "no", "does not compile: " + short(err[0]))
        r, out = self._sandboxed(["nm", "-g", "--defined-only", item.name + ".o"], work, "nm.out", 60)
        with open(os.path.join(os.path.dirname(work), "nm.out"), "rb") as f:
            text = f.read(4 << 20).decode("utf-8", "replace")
        got = defined_globals(None, text) if r.rc == 0 else set()
        if not functions <= got:
            return Outcome(item, "no", "does not define " + ", ".join(sorted(functions - got)))
        return None

    def _test(self, item, functions, work, program, args, nps, timeout, log):
        """Link one test program with the submission (in the sandbox) and
        run it at each rank count, each run followed by its replay."""
        replay, err = self.tc.replay_program(item, functions, program)
        if err:
            return Outcome(item, "error", f"building the replay of {program}: {err}")
        o = self._link(item, functions, work, program, log)
        if o is not None:
            return o
        for np_ in (nps or [None]):
            o = self._run_pair(item, work, program, replay, args, np_, timeout, log)
            if o is not None:
                return o
        remove_tree(os.path.join(work, program))  # keep the logs, not the programs
        return None

    def _link(self, item, functions, work, program, log):
        """Link the test program with the submission's object, in the
        sandbox. None when it links."""
        lib, err = self.tc.library_without(item, functions)
        if err:
            return Outcome(item, "error", err)
        objs = [item.name + ".o", os.path.join(self.tc.tests, program + ".o"),
                os.path.join(self.tc.tests, "harness.o")]
        r, out = self._sandboxed(self.tc.link(objs, self.tc.wraps(functions), [self.tc.tape, lib], program),
                                 work, "link.out", 120)
        log(f"== link {program} (rc {r.rc})\n{out.excerpt}")
        if r.rc != 0 or r.timed_out:
            err = [l for l in out.excerpt.splitlines() if "multiple definition" in l or "undefined reference" in l or
                   "error" in l] or [out.excerpt or f"exit status {r.rc}"]
            return Outcome(item, "no", "does not link with the tests: " + short(err[0]))
        return None

    def _run_pair(self, item, work, program, replay, args, np_, timeout, log):
        """The submission's run (records the tape), then the replay (the
        verdict). None when both pass."""
        want_ok, err = self.expected.get(program, np_, args, timeout)
        if err:
            return Outcome(item, "error", err)
        where = f"{program}{' ' + ' '.join(args) if args else ''}" + (f" at {np_} ranks" if np_ else "")
        tape = f"tape-{np_ or 1}"
        env = dict(TEST_ENV, DDL_TEST_ROOT=self.tc.root)
        t0 = time.time()
        r, out = self._sandboxed(test_cmd("./" + program, np_, args), work, "run.out", timeout,
                                 env=dict(env, DDL_GRADE_TAPE="record:" + self.sandbox.path(work, tape)))
        log(f"== run {where}: the submission's code ({time.time() - t0:.1f} s, rc {r.rc})\n{out.excerpt}")
        if r.timed_out:
            return Outcome(item, "no", f"{where}: timed out after {timeout} s{out.hint}")
        if out.bad:
            return Outcome(item, "no", f"{where}: {out.n_bad} check(s) failed, first: {short(out.bad[0])}")
        if r.rc != 0:
            sig = f"signal {r.signal}" if r.signal else f"exit status {r.rc}"
            return Outcome(item, "no", f"{where}: crashed ({sig}){out.hint}")
        t0 = time.time()
        r, out = self._sandboxed(test_cmd(replay, np_, args), work, "replay.out", timeout,
                                 env=dict(env, DDL_GRADE_TAPE="replay:" + self.sandbox.path(work, tape)),
                                 writable=False, home_cwd=True)
        log(f"== replay {where}: the grader's test on the recorded results ({time.time() - t0:.1f} s, rc {r.rc})\n"
            f"{out.excerpt}")
        # The tapes are the submission's to write (its own process records
        # them): whatever it made under their names (a folder, a link) is
        # removed as it stands, not followed.
        for rel in os.listdir(work):
            if rel.startswith(tape + "."):
                remove_tree(os.path.join(work, rel))
        note = f" (note: {short(out.notes[0])})" if out.notes else ""
        if out.tape:
            return Outcome(item, "no", f"{where}: its recorded results cannot be replayed: {short(out.tape)}")
        if r.timed_out:
            return Outcome(item, "no", f"{where}: the replay of its results timed out after {timeout} s{note}")
        if out.bad:
            return Outcome(item, "no", f"{where}: {out.n_bad} check(s) failed on its recorded results, first: "
                                       f"{short(out.bad[0])}{note}")
        if r.rc != 0 or out.ok < want_ok:
            return Outcome(item, "no", f"{where}: the replay of its results ended (rc {r.rc}) after {out.ok} of the "
                                       f"reference's {want_ok} checks{note}")
        return None
