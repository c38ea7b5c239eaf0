"""What every lab's rules share: reading a platform's result files, and
writing numbers into reasons the same way everywhere."""
import math
import os
import re

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


# Platforms with a network that costs something: an emulated network, a
# simulated cluster (runs.describe's kinds).
NETWORKED = ("net", "sim")


def network_claim(platform, ok, held, not_held, numbers, shown_by):
    """A claim only a network that costs something can show. On one
    machine's shared memory it is not judged, whichever way its numbers
    point: (None, "held: not shown here ... shown by <command>")."""
    if platform.kind in NETWORKED:
        return claim(ok, held, not_held, numbers)
    return None, f"{held}: not shown here, on shared memory ({numbers}); {shown_by} shows it"


def disagreement(ok, held, not_held, numbers, checked_by, cause):
    """A claim on which ddlab's numbers may contradict the seed's: when they
    do, the text names the check that makes ddlab's number trustworthy and
    the seed's likely cause."""
    ok, text = claim(ok, held, not_held, numbers)
    if not ok:
        text += f"; ddlab's number is checked by {checked_by}; the seed's likely cause: {cause}"
    return ok, text


def label(text):
    """A claim's name: its text up to the numbers."""
    return text.split(": ", 1)[0]


def combine(claims):
    """One verdict from the seed's claims, each (held, text) with held True,
    False or None (not shown on this platform: network_claim). Any claim
    not shown: "not shown here"; else all hold: reproduced; none: not
    reproduced; some: partly, and the reason says which held first."""
    judged = [(ok, text) for ok, text in claims if ok is not None]
    held = [text for ok, text in judged if ok]
    if len(judged) < len(claims):
        state = "not shown here"
    else:
        state = "reproduced" if len(held) == len(claims) else "not reproduced" if not held else "partly"
    reason = "; ".join(text for _, text in claims)
    if state == "partly":
        reason = f"{len(held)} of {len(claims)} claims held ({', '.join(label(t) for t in held)}); {reason}"
    elif state == "not shown here" and judged:
        reason += f" (of the claims judged here, {len(held)} of {len(judged)} held)"
    return Verdict(state, reason, summary=summary(claims))


def summary(claims):
    """Page 1's short form of a verdict: each claim's name, "not shown
    here" where the platform cannot judge it, and the check behind a
    disagreement (the lab's section gives the numbers). The whole reasons
    made the table of verdicts too long for page 1."""
    parts = []
    for ok, text in claims:
        part = label(text) + (": not shown here" if ok is None else "")
        checked = re.search(r"ddlab's number is checked by ([^;(]+)", text)
        if checked:
            part += f" (ddlab's number checked by {checked.group(1).strip()})"
        parts.append(part)
    return "; ".join(parts)


def native_first(platform, name):
    """The folder to read `name` from for a claim that does not depend on
    the network (an accuracy: the same arithmetic on any transport): on an
    emulated or simulated platform, the native run's beside it
    (results/labN/) when it has the file, as the platform runs that
    `make figures` makes are kept short (figures/platforms.sh); else the
    platform's own."""
    if platform.kind in NETWORKED:
        parent = os.path.dirname(os.path.normpath(platform.dir))
        if os.path.exists(os.path.join(parent, name)):
            return parent
    return platform.dir


def synthetic(meta):
    return meta.get("data") == "synthetic"
