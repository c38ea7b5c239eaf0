"""What every lab's rules share: reading a platform's result files, and
writing numbers into reasons the same way everywhere."""
import math
import os

from . import csvdata
from .doc import Verdict


def read(platform, name, need=()):
    """A result file of the platform (DataError when missing or broken)."""
    return csvdata.read(os.path.join(platform.dir, name), need=need)


def num(row, col):
    v = csvdata.num(row.get(col))
    if math.isnan(v):
        raise csvdata.DataError(f"no number in column {col} ({row.get(col)!r})")
    return v


def pct(v, digits=1):
    return f"{v:.{digits}f}%"


def ms(seconds):
    return f"{1e3 * seconds:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def size(nbytes):
    """Bytes as the labs name sizes: 4 B, 64 KiB, 64 MiB."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift:
            return f"{nbytes / (1 << shift):.3g} {unit}"
    return f"{nbytes:.0f} B"


def cmp(a, b):
    """The sign between two measurements, as a reader checks an order."""
    return ">" if a > b else "<" if a < b else "="


def span(lo, hi, fmt="{:+.2f}"):
    """"lo to hi", or one number when they agree."""
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)} to {fmt.format(hi)}"


def ratio(a, b):
    return a / b if b else math.nan


def fmt(v, digits=3):
    """A number in at most `digits` significant digits, no exponent below 1e6."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v == 0:
        return "0"
    mag = math.floor(math.log10(abs(v)))
    places = max(0, digits - 1 - mag)
    return f"{v:,.{places}f}" if abs(v) >= 1e4 else f"{v:.{places}f}"


def claim(ok, held, not_held, numbers):
    """One of the seed's claims tested: (ok, "held: numbers") or
    (ok, "not_held: numbers"): the reason says which way it went first."""
    return ok, f"{held if ok else not_held}: {numbers}"


def combine(claims):
    """One verdict from the seed's claims, each (held: bool, text): all hold:
    reproduced; none: not reproduced; some: partly. The reason lists them."""
    held = sum(1 for ok, _ in claims if ok)
    state = "reproduced" if held == len(claims) else "not reproduced" if held == 0 else "partly"
    return Verdict(state, "; ".join(text for _, text in claims))


def synthetic(meta):
    return meta.get("data") == "synthetic"
