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


class Claim(tuple):
    """One of the seed's claims as a rule judged it: (held, text), held
    True, False, None (not shown on this platform: network_claim) or
    NOT_JUDGED (judged nowhere at these numbers: the noise is too large, the
    scale is not the seed's); with `key`, the register's rule id
    (report/seeds/claims.csv), and `falsifier`, what numbers would have
    made it read the other way, so that a reader can check the rule without
    opening Python. A tuple, so that (ok, text) = claim still reads it."""

    def __new__(cls, ok, text, key="", falsifier=""):
        c = super().__new__(cls, (ok, text))
        c.key, c.falsifier = key, falsifier
        return c

    @property
    def state(self):
        return {True: "held", False: "failed", None: "not shown here"}.get(self[0], "not judged")


NOT_JUDGED = "not judged"


def claim(ok, held, not_held, numbers, key="", falsifier=""):
    """One of the seed's claims tested: (ok, "held: numbers") or
    (ok, "not_held: numbers"): the reason says which way it went first."""
    return Claim(bool(ok), f"{held if ok else not_held}: {numbers}", key, falsifier)


def not_judged(held, why, key="", falsifier=""):
    """A claim the rule reads but cannot decide at these numbers: "held:
    not judged: why" (the noise is larger than half the distance to
    chance, the run is not at the seed's scale)."""
    return Claim(NOT_JUDGED, f"{held}: not judged: {why}", key, falsifier)


def capped(alike, tol, compared, chance, held, key, falsifier, judge, noise=""):
    """The rule for every "alike" claim: a noise band never exceeds half
    the distance between the compared accuracy and chance (a band that
    wide could call a model at chance "alike" one that learned). Where the
    gap is inside a band that wide, the claim says "not judged: noise too
    large at this profile" instead of passing; a gap beyond the band is
    "apart" whatever the band (judge() makes the Claim either way)."""
    room = (compared - chance) / 2
    if alike and tol > room:
        return not_judged(held, f"noise too large at this profile ({noise or f'{tol:.1f} points'}, more than "
                                f"half the {compared - chance:.1f} points between {compared:.1f}% and chance's "
                                f"{chance:.0f}%)", key, falsifier)
    return judge()


# Platforms with a network that costs something: an emulated network, a
# simulated cluster (runs.describe's kinds).
NETWORKED = ("net", "sim")


def network_claim(platform, ok, held, not_held, numbers, shown_by, key="", falsifier=""):
    """A claim only a network that costs something can show. On one
    machine's shared memory it is not judged, whichever way its numbers
    point: (None, "held: not shown here ... shown by <command>")."""
    if platform.kind in NETWORKED:
        return claim(ok, held, not_held, numbers, key, falsifier)
    return Claim(None, f"{held}: not shown here, on shared memory ({numbers}); {shown_by} shows it", key, falsifier)


def disagreement(ok, held, not_held, numbers, checked_by, cause, key="", falsifier=""):
    """A claim on which ddlab's numbers may contradict the seed's: when they
    do, the text names the check that makes ddlab's number trustworthy and
    what is known of the seed's cause (named only where shown)."""
    ok, text = claim(ok, held, not_held, numbers)
    if not ok:
        text += f"; ddlab's number is checked by {checked_by}; the seed's cause: {cause}"
    return Claim(ok, text, key, falsifier)


def label(text):
    """A claim's name: its text up to the numbers."""
    return text.split(": ", 1)[0]


def combine(claims, checks=()):
    """One verdict from the seed's claims, each (held, text) with held True,
    False, None (not shown on this platform: network_claim) or NOT_JUDGED
    (rules.not_judged: counted neither way). Any claim not shown: "not
    shown here"; else all judged hold: reproduced; none: not reproduced;
    some: partly, and the reason says which held first; none judged at
    all: no verdict. checks: ddlab's arithmetic checked against itself
    (lab5's bytes), listed after the claims and never counted as one."""
    claims = [c if isinstance(c, Claim) else Claim(*c) for c in claims]
    judged = [c for c in claims if c[0] in (True, False)]
    held = [text for ok, text in judged if ok]
    shown = [c for c in claims if c[0] is not NOT_JUDGED]
    if len(judged) < len(shown):
        state = "not shown here"
    elif not judged:
        state = "no verdict"
    else:
        state = "reproduced" if len(held) == len(judged) else "not reproduced" if not held else "partly"
    reason = "; ".join(text for _, text in claims)
    if state == "partly":
        reason = f"{len(held)} of {len(judged)} claims held ({', '.join(label(t) for t in held)}); {reason}"
    elif state == "not shown here" and judged:
        reason += f" (of the claims judged here, {len(held)} of {len(judged)} held)"
    if checks:
        reason += "; checks of ddlab's own arithmetic (not claims): " + "; ".join(t for _, t in checks)
    return Verdict(state, reason, summary=summary(claims), claims=claims, checks=list(checks))


def summary(claims):
    """Page 1's short form of a verdict: each claim's name, "not shown
    here" where the platform cannot judge it, and the check behind a
    disagreement (the lab's section gives the numbers). The whole reasons
    made the table of verdicts too long for page 1."""
    parts = []
    for ok, text in claims:
        part = label(text) + (": not shown here" if ok is None else ": not judged" if ok is NOT_JUDGED else "")
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
