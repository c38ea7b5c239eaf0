"""Reading ddlab's CSV files: `# key: value` metadata lines, a header, rows.

Every result file and every seed file has this shape (core/results writes
it; report/seeds/ keeps it by hand). A file that cannot be read as one, is
empty or has rows of the wrong length raises DataError with a message that
names the file and what is wrong with it, so a lab's section can say so.

Every file read here is also checked for numbers that cannot be true
(`plausible`): a time that is negative, zero where a step cannot take no
time, infinite or NaN; an accuracy outside 0-100%; a magnitude no ddlab
quantity reaches (a 300-digit number); and the same row twice (two rows
with one key: which copy a rule used would decide a claim). One check in
one place, so every lab's rule gets it: the file and line are named and
the lab's verdict becomes "no verdict" with that reason."""
import csv
import fnmatch
import io
import math
import os


class DataError(Exception):
    """A data file is missing, partial or corrupt (the message says which)."""


class Data:
    """One CSV file: meta (dict), header (list), rows (list of dicts)."""

    def __init__(self, path, meta, header, rows, lines=None):
        self.path, self.meta, self.header, self.rows = path, meta, header, rows
        self.lines = lines or [None] * len(rows)  # each row's line in the file (1-based)

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
        reader = csv.reader(io.StringIO(body))
        # (line in the file, cells): the reader counts the body's lines, the
        # metadata lines come before them
        table = [(i + reader.line_num, r) for r in reader if r]
    except csv.Error as e:
        raise DataError(f"{path}: not a CSV table ({e})") from None
    if not table:
        raise DataError(f"{path}: no header line (an empty or truncated file)")
    header = [h.strip() for h in table[0][1]]
    rows, where = [], []
    for n, r in table[1:]:
        if len(r) != len(header):
            raise DataError(f"{path}:{n}: {len(r)} cells, the header {len(header)} (a truncated file?)")
        rows.append(dict(zip(header, r)))
        where.append(n)
    missing = [c for c in need if c not in header]
    if missing:
        raise DataError(f"{path}: no column {', '.join(missing)} (written by another version of the lab?)")
    data = Data(path, meta, header, rows, where)
    plausible(data)
    return data


def num(text):
    """The cell as a float; NaN when empty or not a number."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def exists(path):
    return os.path.isfile(path)


# What a column can hold, for the columns the verdict rules read (the labs'
# writers: labs/labN/*.c), and only those: a column no rule reads may hold a
# placeholder (a NaN loss before the first evaluation) that is no finding. (low, high, low_open): a number in [low, high],
# or (low, high] when low_open. A cell that is not a number at all (empty,
# "-", "n/a") is left to the rule that reads it (rules.num says so there);
# a cell that is a number must lie in its column's range. Zero is refused
# where it cannot be measured: no step, iteration or allreduce of ddlab
# takes no time, and a rate of 0 iterations a second is a run that did
# not run. The upper ends are far above anything a lab writes (a week for
# a run, 10^15 bytes) and only catch what cannot be a measurement.
FRACTION = (0.0, 1.0, False)          # an accuracy written as a fraction
PERCENT = (0.0, 100.0, False)         # an accuracy written in %
TIME_S, TIME_MS, TIME_US = (0.0, 7 * 86400, True), (0.0, 7 * 86400e3, True), (0.0, 7 * 86400e6, True)
RATE = (0.0, 1e9, True)               # iterations a second
AMOUNT = (0.0, 1e15, False)           # bytes, MB, rounds, counts: never negative
COLUMNS = {
    "test_accuracy": FRACTION, "accuracy": FRACTION, "final_accuracy": FRACTION,
    "test_accuracy_pct": PERCENT, "accuracy_pct": PERCENT, "final_pct": PERCENT,
    "accuracy_minus_reference": (-1.0, 1.0, False),   # a difference of two fractions
    "s_per_iter": TIME_S, "training_time_s": TIME_S,
    # a step's share of a run, rounded to the millisecond, can read 0 (the
    # per-epoch files of labs 4 and 5); a whole run's cannot (FILE_COLUMNS)
    "train_s": (0.0, 7 * 86400, False),
    "ms_mean": TIME_MS, "median_us": TIME_US, "min_us": TIME_US,
    "iters_per_s": RATE, "speedup": (0.0, 1e6, True),
    "bytes": AMOUNT, "traffic_mb": AMOUNT, "traffic_tb": AMOUNT, "mb_per_round": AMOUNT, "mb_per_epoch": AMOUNT,
    "mb_per_epoch_closed": AMOUNT, "rounds": AMOUNT, "rounds_per_epoch": AMOUNT, "iterations": AMOUNT,
    "busbw_GBs": (0.0, 1e6, False), "gflops": (0.0, 1e9, False), "test_examples": AMOUNT,
    "local_batch": AMOUNT, "reps": AMOUNT,
}
# Where one file's column is stricter than the rest's: lab6's grid holds a
# whole training run per row.
FILE_COLUMNS = {"lab6.csv": {"train_s": TIME_S}}
# No ddlab quantity, in any column, comes near this: a 300-digit number is a
# corrupt or forged file, whatever column it is in.
ABSURD = 1e30
# The columns that name one row of each result file; two rows with the same
# key are one measurement written twice (or a forged copy), and which one a
# rule picks would decide its claim.
KEYS = [
    ("bench-np*.csv", ("alg", "bytes", "dtype", "ranks")),
    ("train-np*.csv", ("alg", "hidden", "ranks")),
    ("table1.csv", ("task",)),
    ("table2.csv", ("workers", "passes", "label", "iterations")),
    ("fig3.csv", ("workers", "label", "iterations")),
    ("comm.csv", ("label",)),
    ("accuracy.csv", ("label",)),
    ("lab6.csv", ("device", "style", "workload", "workers")),
    ("peer.csv", ("np", "method")),
    ("*-summary.csv", ("run", "model", "width", "dataset", "tag", "label")),
]


def refuse(data, n, what):
    line = data.lines[n] if n is not None else None
    raise DataError(f"{data.path}:{line}: {what}: a number that cannot be true, refused")


def plausible(data):
    """DataError naming file:line for a number that cannot be true or a row
    written twice (see COLUMNS, ABSURD, KEYS)."""
    columns = {**COLUMNS, **FILE_COLUMNS.get(os.path.basename(data.path), {})}
    for n, row in enumerate(data.rows):
        for col, text in row.items():
            v = num(text)
            rng = columns.get(col)
            if rng is None:
                # "inf" may be a column's word for "none" (a model's ratio);
                # an infinity spelt in digits (400 of them) is not
                spelt = text.strip().lower().lstrip("+-") in ("inf", "infinity")
                if abs(v) > ABSURD and not (math.isinf(v) and spelt):
                    refuse(data, n, f"{col} = {short_cell(text)} (larger than any quantity ddlab writes)")
                continue
            if math.isnan(v) and text.strip().lower().lstrip("+-") not in ("nan",):
                continue  # not a number at all: the rule that reads it says so
            lo, hi, open_low = rng
            if math.isnan(v) or math.isinf(v) or v > hi or v < lo or (open_low and v == lo):
                edge = "(" if open_low else "["
                refuse(data, n, f"{col} = {short_cell(text)} (outside {edge}{lo:g}, {hi:g}])")
    name = os.path.basename(data.path)
    for pattern, cols in KEYS:
        if not fnmatch.fnmatch(name, pattern):
            continue
        key_cols = [c for c in cols if c in data.header]
        if not key_cols:
            break
        seen = {}
        for n, row in enumerate(data.rows):
            key = tuple(row[c].strip() for c in key_cols)
            if key in seen:
                what = ", ".join(f"{c}={v}" for c, v in zip(key_cols, key))
                raise DataError(f"{data.path}:{data.lines[n]}: the row {what} again (first at line "
                                f"{data.lines[seen[key]]}): a duplicated row, refused")
            seen[key] = n
        break


def short_cell(text):
    text = text.strip()
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text)} characters)"
