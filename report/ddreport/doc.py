"""The report as data: what latex.py and html.py both render.

Text is plain: the writers escape it for their format. One markup only:
`code` in backticks (commands, file names) becomes monospace."""
from dataclasses import dataclass, field

# The verdicts, and what each means. "no verdict" is not a judgement of
# the seed: the results needed to make one are missing. "not shown here"
# is not one either: the finding needs a network that costs something,
# and the platform these results come from has none (one machine's shared
# memory); its reason names the command that would show it. The index is
# the colour (report.tex's verdictN, html.py's .vN).
VERDICTS = ("reproduced", "partly", "not reproduced", "no verdict", "not shown here")


@dataclass
class Verdict:
    state: str          # one of VERDICTS
    reason: str         # one line built from the numbers
    platform: str = ""  # where the numbers come from, in a few words (labs.section sets it)
    summary: str = ""   # page 1's short form: each claim's name and outcome (rules.combine); "" = reason
    claims: list = field(default_factory=list)  # rules.Claim, each with its register key and falsifier
    checks: list = field(default_factory=list)  # ddlab's arithmetic against itself: not claims

    def __post_init__(self):
        if self.state not in VERDICTS:
            raise ValueError(f"unknown verdict {self.state!r}")


@dataclass
class Table:
    caption: str
    header: list
    rows: list          # lists of cells (text), as many as the header
    align: str = ""     # one of l/r/c per column; "" = l then r
    note: str = ""      # a line under the table (provenance)
    widths: list = None # the PDF's column widths (fractions of the line) for a table of sentences; None = natural


@dataclass
class Figure:
    path: str           # the PNG, absolute
    caption: str
    name: str           # its name in the index (file name without .png)


@dataclass
class Platform:
    """One results folder of a lab: native, or an emulated/simulated variant."""
    key: str            # "native", "net-1gbit", "sim-cluster4"
    label: str          # what the run ran on, in words
    kind: str           # native | net | sim (what can show a network's cost)
    dir: str
    figures: dict = field(default_factory=dict)  # name -> path, from the index
    tables: list = field(default_factory=list)   # LaTeX tables from the index
    meta: dict = field(default_factory=dict)     # a result file's metadata
    problems: list = field(default_factory=list) # partial, corrupt, other commit
    raw: list = field(default_factory=list)      # result files (CSV, JSON, traces)


@dataclass
class Finding:
    """What one lab's rules made of one platform's results."""
    platform: Platform
    verdict: Verdict
    table: Table = None
    figures: list = field(default_factory=list)   # Figure, the 2-3 that show it
    notes: list = field(default_factory=list)     # paragraphs
    meta: dict = field(default_factory=dict)      # the main result file's metadata: the conditions


@dataclass
class Section:
    lab: int
    title: str
    short: str                   # the title in the summary table
    seed: object                 # seeds.Seed
    question: str
    quotes: list                 # (ref, text): the seed's headline numbers
    findings: list               # Finding per platform, the headline first
    how_to_show: str = ""        # where the finding shows when this run cannot
    appendix: list = field(default_factory=list)  # Figure
    problems: list = field(default_factory=list)  # the lab's, before any platform
    register: Table = None       # the seed's claims register for this lab, each row's outcome here
    counts: tuple = ()           # (claims in the register, judged here, held here)

    @property
    def headline(self):
        return self.findings[0] if self.findings else None

    def summary_cells(self, where_of):
        """Page 1's row for this lab, before escaping: the headline's verdict,
        its reason (or the lab's problems when there is no finding) and where
        it holds (where_of(platform))."""
        h = self.headline
        if not h:
            return "no verdict", "; ".join(self.problems), "-"
        why = h.verdict.summary or h.verdict.reason
        if self.counts:
            total, judged, held = self.counts
            why = f"{judged} of the seed's {total} claims judged, {held} held. {why}"
        return h.verdict.state, why, h.verdict.platform or where_of(h.platform)


@dataclass
class Report:
    title: str
    commit: str
    date: str
    machine: str
    what_ran: list               # lines: labs, platforms, profile, data
    data_line: str               # "synthetic data: ..." or ""
    sections: list
    problems: list = field(default_factory=list)
    beyond: object = None        # scale.Beyond: past the machine (make scale), or None where it never ran
