"""nosock.py - the last step of the grader's sandbox before the command
(labs/grade/sandbox.sh; labs/grade/README.md, "Confinement"): it installs
a seccomp filter that keeps the command, and everything it starts, from
reaching the host's Unix sockets, then execs the command.

    python3 -I -S nosock.py [--status-fd N] -- command...

Why a filter: the sandbox's network namespace cuts it off the network and
from abstract Unix sockets (those belong to a network namespace), but a
socket bound to a path (a syslog, D-Bus or munge daemon's, a world-writable
one in some folder) is reached through the file system, whatever the
namespace, and a read-only mount does not stop a connect(). The filter
cannot see which address a connect() names, so it removes the ways to get
a Unix socket that could name one:
  - socket(AF_UNIX, ...) fails with EACCES;
  - socketpair() only for stream and seqpacket sockets (a connected pair,
    which cannot connect elsewhere; libevent, under Open MPI, uses them);
    a datagram pair could sendto() any path, so it fails with EACCES;
  - io_uring_setup() fails (io_uring can open and connect sockets without
    the socket() system call);
  - system calls of another ABI (32-bit x86, x32), which the filter's
    numbers do not cover, fail.
Open MPI on one host (the sandbox's mpirun) talks over TCP on the
namespace's loopback and shared memory, neither of which is touched.

The filter is inherited by every child and survives exec; with
no_new_privs (set by setpriv, and here again) no setuid program can drop
it. A failure here is the sandbox's, not the command's: it is written to
--status-fd (the grader reads it as a sandbox error) and the exit status
is 125; the descriptor is closed before the command starts."""

import ctypes
import errno
import os
import platform
import struct
import sys

# AUDIT_ARCH_* and the system call numbers the filter names, per machine.
ARCHES = {
    "x86_64": (0xC000003E, {"socket": 41, "socketpair": 53, "io_uring_setup": 425}),
    "aarch64": (0xC00000B7, {"socket": 198, "socketpair": 199, "io_uring_setup": 425}),
}
X32_BIT = 0x40000000
AF_UNIX = 1
SOCK_STREAM, SOCK_SEQPACKET, SOCK_TYPE_MASK = 1, 5, 0xF
# Classic BPF: ld [k], jeq #k, jge #k, and #k, ret #k.
LD_ABS, JEQ, JGE, AND, RET = 0x20, 0x15, 0x35, 0x54, 0x06
ALLOW, DENY = 0x7FFF0000, 0x00050000 | errno.EACCES
# struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (the low
# half first: both machines are little-endian).
NR, ARCH, ARG0, ARG1 = 0, 4, 16, 24
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


def program(arch, nr):
    """The filter as (code, jump-if-true label, jump-if-false label, k);
    a label is an index or a name of the ends below, None: the next."""
    return [
        (LD_ABS, None, None, ARCH),
        (JEQ, None, "deny", arch),
        (LD_ABS, None, None, NR),
        (JGE, "deny", None, X32_BIT),
        (JEQ, "socket", None, nr["socket"]),
        (JEQ, "socketpair", None, nr["socketpair"]),
        (JEQ, "deny", "allow", nr["io_uring_setup"]),
        ("socket", LD_ABS, None, None, ARG0),
        (JEQ, "deny", "allow", AF_UNIX),
        ("socketpair", LD_ABS, None, None, ARG1),
        (AND, None, None, SOCK_TYPE_MASK),
        (JEQ, "allow", None, SOCK_STREAM),
        (JEQ, "allow", "deny", SOCK_SEQPACKET),
        ("allow", RET, None, None, ALLOW),
        ("deny", RET, None, None, DENY),
    ]


def assemble(insns):
    """sock_filter bytes, the labels turned into relative jumps."""
    labels, plain = {}, []
    for i, ins in enumerate(insns):
        if isinstance(ins[0], str):
            labels[ins[0]] = i
            ins = ins[1:]
        plain.append(ins)
    out = b""
    for i, (code, jt, jf, k) in enumerate(plain):
        rel = [0 if j is None else labels[j] - i - 1 for j in (jt, jf)]
        out += struct.pack("=HBBI", code, rel[0], rel[1], k)
    return out, len(plain)


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def install():
    """None when the filter is in place, else why not."""
    machine = platform.machine()
    if machine not in ARCHES:
        return f"no seccomp filter for this machine ({machine}): it cannot keep the command off the host's sockets"
    code, n = assemble(program(*ARCHES[machine]))
    libc = ctypes.CDLL(None, use_errno=True)
    prog = SockFprog(n, code)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        why = os.strerror(ctypes.get_errno())
        return f"cannot install the seccomp filter that keeps it off the host's sockets: {why}"
    return None


def main(argv):
    status = 2
    if argv[:1] == ["--status-fd"] and len(argv) > 1 and argv[1].isdigit():
        status, argv = int(argv[1]), argv[2:]
    if argv[:1] != ["--"] or len(argv) < 2:
        os.write(status, b"grade-sandbox: usage: nosock.py [--status-fd N] -- command...\n")
        return 125
    why = install()
    if why:
        os.write(status, f"grade-sandbox: {why}\n".encode())
        return 125
    if status != 2:
        os.close(status)
    try:
        os.execvp(argv[1], argv[1:])
    except OSError as e:
        print(f"nosock: cannot run {argv[1]}: {e.strerror}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
