"""submission.py - what the grader reads of a submission folder, and how
(labs/grade/README.md, "What the grader reads").

The grader runs as root, so a path in a submission must never lead it
elsewhere: before anything is read the folder is walked once, without
following links, and every entry that is not a plain file or folder is
refused: a symbolic link (to a host file, or a folder), a FIFO (a read
would block), a socket or device, a file with other hard links (it may be
a host file's other name), or one over MAX_FILE bytes. A refused entry is
never opened; an item that needs it, or a file under it, fails with the
entry named in the report. Files are then opened with O_NOFOLLOW and
checked again (a regular file, within the bound), and the grader's own
outputs (.grade/, grade-report.*) are replaced, never written through.
A name that is not printable text (a newline, a control character, bytes
that are not UTF-8) is refused too: it could forge a line of the report;
reports show every name escaped (fsafe.shown). The walk keeps its own
list of folders (no recursion) and refuses folders nested deeper than
MAX_DEPTH."""

import os
import stat
import tempfile

from fsafe import remove_tree, shown

MAX_FILE = 256 << 20
MAX_ENTRIES = 100_000
# No exercise or results file sits deeper than a few folders; deeper ones
# are refused, not read (nor their names, which could pass PATH_MAX).
MAX_DEPTH = 32
# Written by the grader: not part of what the student handed in.
OWN = (".grade", "grade-report.md", "grade-report.csv")


def _kind(st):
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if stat.S_ISFIFO(st.st_mode):
        return "a FIFO"
    if stat.S_ISSOCK(st.st_mode):
        return "a socket"
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return "a device file"
    return "not a regular file"


def _refusal(st):
    if stat.S_ISDIR(st.st_mode):
        return None
    if not stat.S_ISREG(st.st_mode):
        return _kind(st)
    if st.st_nlink > 1:
        return f"a file with {st.st_nlink} hard links (it may be another file's name)"
    if st.st_size > MAX_FILE:
        return f"larger than {MAX_FILE >> 20} MiB"
    return None


class Submission:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.name = os.path.basename(os.path.normpath(self.path))
        self.refused = {}  # path relative to the folder -> why
        self._scan()

    def _scan(self):
        """One walk, breadth first over a list of folders (os.walk
        recurses: a deep tree would end the grader)."""
        entries, todo = 0, [""]
        while todo:
            rel_top = todo.pop()
            try:
                with os.scandir(os.path.join(self.path, rel_top)) as it:
                    names = sorted(e.name for e in it)
            except OSError as e:
                self.refused[rel_top or "."] = f"a folder that cannot be read ({e.strerror})"
                continue
            for name in names:
                rel = os.path.join(rel_top, name) if rel_top else name
                if rel in OWN:
                    continue
                entries += 1
                if entries > MAX_ENTRIES:
                    self.refused["."] = f"more than {MAX_ENTRIES} files"
                    return
                why = self._check(rel, name)
                if why:
                    self.refused[rel] = why
                elif stat.S_ISDIR(os.lstat(os.path.join(self.path, rel)).st_mode):
                    todo.append(rel)

    def _check(self, rel, name):
        if not name.isprintable():
            return "a name that is not printable text (a control character, or bytes that are not UTF-8)"
        try:
            st = os.lstat(os.path.join(self.path, rel))
        except OSError as e:
            return f"an entry that cannot be read ({e.strerror})"
        if stat.S_ISDIR(st.st_mode) and rel.count(os.sep) >= MAX_DEPTH:
            return f"a folder nested more than {MAX_DEPTH} deep"
        return _refusal(st)

    def refusal(self, rel):
        """'refused: X is ...' when rel or a folder on its way is refused."""
        rel = os.path.normpath(rel)
        if "." in self.refused:
            return f"refused: the submission holds {self.refused['.']}"
        parts = rel.split(os.sep)
        for i in range(1, len(parts) + 1):
            p = os.sep.join(parts[:i])
            if p in self.refused:
                return f"refused: {shown(p)} is {self.refused[p]} (the grader reads plain files only)"
        return None

    def refusal_under(self, rel):
        """refusal() of rel, or of the first refused entry inside it."""
        why = self.refusal(rel)
        if why:
            return why
        prefix = os.path.normpath(rel) + os.sep
        for p in sorted(self.refused):
            if p.startswith(prefix):
                return f"refused: {shown(p)} is {self.refused[p]} (the grader reads plain files only)"
        return None

    def lookup(self, candidates):
        """The first of the relative paths that is a plain file, or that is
        refused (it, or a folder on its way: a link is not followed to see
        what it holds): (rel, refusal or None); (None, None) when none is."""
        for rel in candidates:
            why = self.refusal(rel)
            if why:
                return rel, why
            try:
                st = os.lstat(os.path.join(self.path, rel))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                return rel, None
        return None, None

    def read(self, rel):
        """The bytes of a plain file, opened without following a link."""
        fd = os.open(os.path.join(self.path, rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE:
                raise OSError(f"{rel} is not a plain file of at most {MAX_FILE >> 20} MiB")
            return f.read(MAX_FILE + 1)

    # ---- the grader's own outputs ----

    def fresh_dir(self, rel):
        """An empty folder of the grader's at rel (under .grade/): whatever
        was there, a link or a deep tree included, is removed first, never
        followed."""
        parts = os.path.normpath(rel).split(os.sep)
        for i in range(1, len(parts) + 1):
            p = os.path.join(self.path, *parts[:i])
            st = os.lstat(p) if os.path.lexists(p) else None
            if st and (i == len(parts) or not stat.S_ISDIR(st.st_mode)):
                remove_tree(p)
                st = None
            if st is None:
                os.mkdir(p, 0o755)
        return os.path.join(self.path, rel)

    def write_output(self, name, text):
        """Replace the submission's top-level file `name` with text: written
        to a new file (O_EXCL) and renamed over it, so a link there is
        replaced, not written through; a folder of that name is removed
        (the name is the grader's)."""
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=self.path)
        try:
            with os.fdopen(fd, "w", newline="", encoding="utf-8", errors="backslashreplace") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
            target = os.path.join(self.path, name)
            if os.path.isdir(target) and not os.path.islink(target):
                remove_tree(target)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
