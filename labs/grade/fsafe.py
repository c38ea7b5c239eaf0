"""fsafe.py - the grader's file operations on folders a submission could
have shaped (its own folder, its .grade/ and the sandbox's work folder,
which the submission's code owns while it runs), and how a name from a
submission is shown in a report.

None of them follows a symbolic link, none recurses (a tree 1,100
folders deep must not end the grader with a RecursionError: Python's
os.walk and shutil.rmtree recurse), and the grader's own files are
created new (O_EXCL, O_NOFOLLOW), never opened where something already
stands."""

import os
import stat

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path):
    """Remove path, whatever it is (a file, a link, a folder of any depth),
    without following a link: one folder open at a time, the way back up
    by '..' of the folder itself (entered without following links)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(path)
        return
    fd, names = os.open(path, DIR_FLAGS), []
    try:
        while True:
            sub = None
            with os.scandir(fd) as it:
                entries = list(it)
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    sub = e.name
                    break
                os.unlink(e.name, dir_fd=fd)
            if sub is not None:
                nfd = os.open(sub, DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = nfd
                names.append(sub)
                continue
            if not names:
                break
            parent = os.open("..", DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            os.rmdir(names.pop(), dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(path)


def create_new(path, mode=0o644):
    """A new file of the grader's at path, open for writing (binary): what
    stood there (a file, a link, a folder) is removed first, and the open
    fails rather than follow or reuse anything made meanwhile."""
    remove_tree(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    return os.fdopen(fd, "wb")


def take_back(path, keep_mode):
    """Own a plain file or folder as root again, with keep_mode (nothing
    world-writable, no set-id bits): through a descriptor opened without
    following a link, so a link swapped in is not what gets changed."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
            if os.geteuid() == 0:
                os.fchown(fd, 0, 0)
            os.fchmod(fd, keep_mode)
    finally:
        os.close(fd)


def shown(name):
    """A file name as a report shows it: printable characters as they are,
    a backslash doubled, and everything else (a newline, a control
    character, a byte that is not UTF-8) as a visible escape (\\n, \\x1b,
    \\xff), so that no name can start a line of its own or pass for
    another."""
    out = []
    for c in name:
        o = ord(c)
        if c == "\\":
            out.append("\\\\")
        elif c.isprintable():
            out.append(c)
        elif 0xDC80 <= o <= 0xDCFF:  # a byte that is not UTF-8 (os's surrogateescape)
            out.append(f"\\x{o - 0xDC00:02x}")
        elif c in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c])
        else:
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
    return "".join(out)


def visible(text):
    """Text for one line of a report: every character that is not
    printable shown escaped as in shown(), backslashes left as they are."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else shown(c) for c in text)
