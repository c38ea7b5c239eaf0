"""Reading ddlab's CSV files: `# key: value` metadata lines, a header, rows.

Every result file and every seed file has this shape (core/results writes
it; report/seeds/ keeps it by hand). A file that cannot be read as one, is
empty or has rows of the wrong length raises DataError with a message that
names the file and what is wrong with it, so a lab's section can say so."""
import csv
import io
import math
import os


class DataError(Exception):
    """A data file is missing, partial or corrupt (the message says which)."""


class Data:
    """One CSV file: meta (dict), header (list), rows (list of dicts)."""

    def __init__(self, path, meta, header, rows):
        self.path, self.meta, self.header, self.rows = path, meta, header, rows

    def column(self, name):
        return [row.get(name, "") for row in self.rows]

    def where(self, **match):
        """The rows whose columns equal the given values (as text)."""
        return [r for r in self.rows if all(r.get(k) == str(v) for k, v in match.items())]

    def one(self, **match):
        """The single row that matches, or DataError."""
        found = self.where(**match)
        if len(found) != 1:
            what = ", ".join(f"{k}={v}" for k, v in match.items())
            raise DataError(f"{self.path}: expected one row with {what}, found {len(found)}")
        return found[0]


# A value the labs write is a line of a few hundred characters at most; a
# longer one (a 10 MB "# host:") is shown cut, so that it cannot make the
# PDF's build fail and the rest of the report with it.
META_MAX = 400


def short(value):
    if len(value) <= META_MAX:
        return value
    return f"{value[:120]}... (cut by the report: {len(value)} characters)"


def read(path, need=()):
    """Data of the file at path; `need` names columns that must exist."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise DataError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(f"{path}: unreadable ({e})") from None
    meta, body = {}, []
    lines = text.splitlines()
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        key, sep, value = lines[i][1:].partition(":")
        if sep:
            meta[key.strip()] = short(value.strip())
        i += 1
    body = "\n".join(lines[i:])
    try:
        table = list(csv.reader(io.StringIO(body)))
    except csv.Error as e:
        raise DataError(f"{path}: not a CSV table ({e})") from None
    table = [r for r in table if r]
    if not table:
        raise DataError(f"{path}: no header line (an empty or truncated file)")
    header = [h.strip() for h in table[0]]
    rows = []
    for n, r in enumerate(table[1:], start=2):
        if len(r) != len(header):
            raise DataError(f"{path}: row {n} has {len(r)} cells, the header {len(header)} (a truncated file?)")
        rows.append(dict(zip(header, r)))
    missing = [c for c in need if c not in header]
    if missing:
        raise DataError(f"{path}: no column {', '.join(missing)} (written by another version of the lab?)")
    return Data(path, meta, header, rows)


def num(text):
    """The cell as a float; NaN when empty or not a number."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def exists(path):
    return os.path.isfile(path)
