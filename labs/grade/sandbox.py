"""sandbox.py - run the grader's commands on a submission confined
(labs/grade/README.md, "Confinement").

Everything that touches the submission's code runs here: the compiler,
nm, the linker, the submission's test runs and the replays. Confined (the
grader runs as root), a command runs
  - in new PID, mount, network, IPC and UTS namespaces (util-linux's
    unshare): it sees only its own processes, has no network but its own
    loopback, and when it ends the kernel kills everything it left behind;
  - under a seccomp filter (nosock.py) that keeps it off the host's Unix
    sockets, which a path reaches whatever the network namespace;
  - as an unprivileged uid of its own, picked at random for this grader
    and used by nothing else, with no capabilities and no_new_privs
    (setpriv): it cannot signal or trace anything outside, and the
    process limit counts only its processes;
  - on a read-only view of the file system, with private /tmp, /dev/shm
    and message queues, writing only to its work folder
    (labs/grade/sandbox.sh);
  - under per-process limits on CPU time, address space, file size,
    open files and core dumps, and a process limit (prlimit);
  - with an environment of the grader's choosing (env -i), stdin from
    /dev/null, stdout and stderr into a file of the grader's;
  - in its own session, killed whole at its wall-clock timeout.
Unconfined (--unconfined, for a grader that is not root): the same
commands as the grader's own user, under the same limits but the process
limit, in a session killed whole at the end; a process that starts its own
session (a daemon) or writes outside its folder is not stopped."""

import os
import pwd
import random
import signal
import subprocess
import sys

from fsafe import create_new, remove_tree

HERE = os.path.dirname(os.path.realpath(__file__))
SANDBOX_SH = os.path.join(HERE, "sandbox.sh")
NAMESPACES = ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--mount", "--ipc", "--uts",
              "--"]
# Unprivileged uids the grader picks from: above any system's users and
# the usual ranges of directory services (SSSD maps up to 2000200000),
# below 2^32 - 2 ("nobody" on some systems).
UID_RANGE = (3_000_000_000, 3_900_000_000)
WORK_INSIDE = "/tmp/work"
# What runs nosock.py as the sandbox's uid: the system's python first, as
# the grader's own may sit where that uid cannot go (a pyenv under /root).
PYTHON = next((p for p in ("/usr/bin/python3", sys.executable) if os.access(p, os.X_OK)), "python3")


class Limits:
    """Per process, but nproc: processes of the sandbox's uid at once."""

    def __init__(self, cpu_s, mem=8 << 30, fsize=256 << 20, nproc=512, nofile=1024):
        self.cpu_s, self.mem, self.fsize, self.nproc, self.nofile = cpu_s, mem, fsize, nproc, nofile

    def argv(self, confined):
        a = ["prlimit", f"--cpu={self.cpu_s}", f"--as={self.mem}", f"--fsize={self.fsize}",
             f"--nofile={self.nofile}", "--core=0"]
        # Unconfined, RLIMIT_NPROC would count every process of the user.
        return a + ([f"--nproc={self.nproc}"] if confined else []) + ["--"]


class Result:
    def __init__(self, rc, timed_out, out_path, confined, sandbox_error=None):
        self.timed_out = timed_out
        self.sandbox_error = sandbox_error  # the sandbox could not be set up: why
        self.out_path = out_path
        # Confined, the command's status comes through bash (128 + N for
        # signal N); unconfined, Popen's (-N).
        self.signal = -rc if rc < 0 else rc - 128 if confined and 128 < rc < 160 else 0
        self.rc = rc


def pick_uid():
    """A uid no account has and no process runs as."""
    used = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("Uid:"):
                            used.update(int(x) for x in line.split()[1:])
            except OSError:
                pass
    rng = random.SystemRandom()
    while True:
        uid = rng.randrange(*UID_RANGE)
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        if uid not in used:
            return uid


def unreadable_ancestor(path):
    """The first folder from / down to path that other users cannot enter
    or list, or None: the sandbox's uid reads the build through it."""
    parts = os.path.realpath(path).split(os.sep)
    for i in range(2, len(parts) + 1):
        p = os.sep.join(parts[:i]) or os.sep
        if os.stat(p).st_mode & 0o005 != 0o005:
            return p
    return None


class Sandbox:
    def __init__(self, confined, root):
        self.confined = confined
        self.uid = pick_uid() if confined else os.getuid()
        self.root = root

    def describe(self):
        if self.confined:
            return (f"confined: uid {self.uid}, namespaces (pid, mount, net, ipc, uts), read-only file system but "
                    f"the work folder, no Unix sockets (seccomp), prlimit")
        return f"UNCONFINED: as uid {self.uid}, prlimit only (--unconfined)"

    def path(self, work, rel):
        """Where a command sees work/rel."""
        return os.path.join(WORK_INSIDE if self.confined else work, rel)

    def make_work(self, work):
        """A fresh work folder that the sandbox's uid owns."""
        os.mkdir(work, 0o755)
        if self.confined:
            os.chown(work, self.uid, self.uid)

    def env(self, work, extra):
        e = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "LANG": "C.UTF-8",
             "HOME": "/tmp/home" if self.confined else work, "TMPDIR": "/tmp"}
        e.update(extra)
        return e

    def run(self, cmd, work, out_path, timeout, limits, env=None, writable=True, hide=(), home_cwd=False):
        """Run cmd (a list) with work as its folder; stdout and stderr go to
        out_path. Returns a Result; nothing it started is left running
        (confined) or in its session (unconfined)."""
        argv = []
        if self.confined:
            remove_tree(out_path + ".sandbox")
        status = os.open(os.devnull if not self.confined else out_path + ".sandbox",
                         os.O_WRONLY | os.O_CLOEXEC | (os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW if self.confined else 0),
                         0o644)
        if self.confined:
            # The build it compiles and links with, shown read-only where it
            # is (under /tmp or /dev/shm, the sandbox's private tmpfs would
            # hide it).
            argv = NAMESPACES + ["bash", SANDBOX_SH, "--work", work, "--uid", str(self.uid), "--status-fd", str(status),
                                 "--show", self.root, "--python", PYTHON]
            argv += [] if writable else ["--ro"]
            argv += ["--home-cwd"] if home_cwd else []
            for h in hide:
                argv += ["--hide", h]
            argv += ["--"]
        argv += limits.argv(self.confined) + ["env", "-i"]
        argv += [f"{k}={v}" for k, v in self.env(work, env or {}).items()] + list(cmd)
        with create_new(out_path) as out:
            try:
                p = subprocess.Popen(argv, cwd="/" if self.confined else work, stdin=subprocess.DEVNULL,
                                     stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                     pass_fds=(status,))
            except OSError as e:
                os.close(status)
                return Result(125, False, out_path, self.confined, f"cannot start {argv[0]}: {e}")
            os.close(status)
            timed_out = False
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            # Confined, killing unshare kills the namespace's first process
            # (--kill-child), and with it every process in the namespace.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            rc = p.wait()
        return Result(rc, timed_out, out_path, self.confined, self._setup_error(out_path))

    def _setup_error(self, out_path):
        if not self.confined:
            return None
        path = out_path + ".sandbox"
        with open(path, "rb") as f:
            text = f.read(4000).decode("utf-8", "replace").strip()
        os.remove(path)
        return text.replace("grade-sandbox: ", "") or None
