"""The six labs' rules as one table, and what turns a lab's results into
its section: every platform's verdict, the headline, the figures.

Each labN.py module gives TITLE, SHORT (for the summary), SEED, QUESTION
(optional: what of the seed's question the lab takes up), SHOWS_ON (the kinds of platform on
which its finding can show: net, sim; empty: any), HOW_TO_SHOW (how to run
one), KEY (regex, caption) of the 2-3 figures that show the finding,
APPENDIX (regex, caption template) for its other figures, quotes(seed)
and evaluate(platform, seed) -> Finding (raising csvdata.DataError when
the results cannot give a verdict)."""
import re

from . import csvdata, lab1, lab2, lab3, lab4, lab5, lab6, runs
from .doc import Figure, Finding, Section, Table, Verdict

LABS = {1: lab1, 2: lab2, 3: lab3, 4: lab4, 5: lab5, 6: lab6}
KEY_FIGURES = 3


def natural(name):
    """Sort key that puts np10 after np4."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def key_figures(mod, platform):
    """The KEY figures present in the platform's index, in KEY's order (the
    one with the largest number where several match, e.g. the most ranks)."""
    out = []
    for pattern, caption in mod.KEY:
        found = sorted((n for n in platform.figures if re.fullmatch(pattern, n)), key=natural)
        if found:
            out.append(Figure(platform.figures[found[-1]], caption, found[-1]))
        if len(out) == KEY_FIGURES:
            break
    return out


def caption_of(mod, name):
    """A caption for a figure that is not a key one: APPENDIX's template,
    else KEY's caption, else its name."""
    for pattern, template in mod.APPENDIX:
        m = re.fullmatch(pattern, name)
        if m:
            return template.format(*(g or "" for g in m.groups()))
    for pattern, caption in mod.KEY:
        if re.fullmatch(pattern, name):
            return caption
    return f"{name} (from the lab's results index)."


def headline_order(mod, findings):
    """Findings, the headline first: the first platform of a kind that can
    show the finding (SHOWS_ON's order) with a verdict, else the native one."""
    def rank(f):
        has = f.verdict.state != "no verdict"
        if f.platform.kind in mod.SHOWS_ON:
            return (0 if has else 2, mod.SHOWS_ON.index(f.platform.kind), f.platform.key)
        return (1 if has and f.platform.key == "native" else 1.5 if has else 3, 0, f.platform.key)
    return sorted(findings, key=rank)


def section(n, results, seeds, root, commit):
    mod = LABS[n]
    seed = seeds[mod.SEED]
    findings = []
    for p in runs.platforms(results, n, root, commit):
        try:
            f = mod.evaluate(p, seed)
        except csvdata.DataError as e:
            f = Finding(p, Verdict("no verdict", f"the results cannot be read: {e}"))
        f.figures = key_figures(mod, p)
        findings.append(f)
    findings = headline_order(mod, findings)
    for f in findings:
        f.verdict.platform = runs.short(f.platform)
    shown = {f.figures[i].path for f in findings[:1] for i in range(len(f.figures))}
    appendix = []
    for f in findings:
        for name in sorted(f.platform.figures, key=natural):
            path = f.platform.figures[name]
            if path in shown:
                continue
            where = "" if f.platform.key == "native" else f"[{f.platform.label}] "
            appendix.append(Figure(path, where + caption_of(mod, name), name))
    s = Section(lab=n, title=mod.TITLE, seed=seed, question=getattr(mod, "QUESTION", "") or seed.question,
                short=mod.SHORT, quotes=mod.quotes(seed),
                findings=findings, appendix=appendix)
    head = s.headline
    if mod.SHOWS_ON and (head is None or head.platform.kind not in mod.SHOWS_ON):
        s.how_to_show = mod.HOW_TO_SHOW
    s.register, s.counts = register(n, seed, head)
    platform_run(s, runs.record(results, n), mod)
    if not findings:
        s.problems.append(f"not run yet: `make lab{n}` (or `make figures`) writes results/lab{n}/")
    return s


def platform_run(s, rec, mod):
    """What `make figures` recorded of the lab's run on a platform with a
    network (results/labN/platform.txt): a failed run is a problem of the
    section (the native results stand); one this machine could not make
    says why beside how to show the finding."""
    status = rec.get("status", "")
    if status == "failed":
        s.problems.append(f"the run on {rec.get('platform', '?')} that `make figures` made failed: "
                          f"{rec.get('why', '?')} (`{rec.get('command', '?')}`)")
    elif status == "not available" and s.how_to_show:
        s.how_to_show += f" This machine has neither ({rec.get('why', '?')}): `{rec.get('command', '?')}` elsewhere."


def register(n, seed, head):
    """The seed's claims register for lab n (report/seeds/claims.csv) as a
    table with each claim's outcome on the headline platform (held, failed,
    not shown here, not judged and why) and its falsifier, and the counts
    page 1 gives: (claims, judged, held). Checks of ddlab's own arithmetic
    are listed but never counted as claims."""
    rows = [r for r in seed.claims if r["lab"] == str(n)]
    if not rows:
        return None, ()
    verdict = head.verdict if head else None
    found = {c.key: c for c in (verdict.claims + verdict.checks if verdict else [])}
    out, total, judged, held = [], 0, 0, 0
    for r in rows:
        c = found.get(r["rule"]) if r["rule"] else None
        is_claim = r["kind"] == "claim"
        total += is_claim
        if c is None:
            outcome = (f"not judged: {r['why_not_judged']}" if not r["rule"] or not verdict else
                       f"no verdict here ({verdict.state}: the results do not give it)")
            if r["kind"] == "check" and not r["rule"]:
                outcome = f"a check, not a claim: {r['why_not_judged']}"
            falsifier = ""
        else:
            judged += is_claim and c.state in ("held", "failed")
            held += is_claim and c.state == "held"
            outcome = ("check " if r["kind"] == "check" else "") + c.state + ": " + c[1].split(": ", 1)[-1]
            falsifier = c.falsifier
        out.append([r["claim"], f"{r['words']} ({r['where']})", f"{r['comparator']}; {r['conditions']}",
                     outcome, falsifier or "-"])
    table = Table(caption=f"The claims register of seed {seed.id} for lab {n} (report/seeds/claims.csv): each "
                          "headline claim, the seed's comparator and conditions, its outcome on the headline "
                          "platform, and the numbers that would have made it read the other way.",
                  header=["Claim", "The seed's words (where)", "Comparator; conditions", "Here", "Would read otherwise if"],
                  rows=out, align="lllll", widths=[0.12, 0.22, 0.15, 0.25, 0.16])
    return table, (total, judged, held)
