"""formats.py - the grader's reports for other tools: Gradescope's
results.json and JUnit XML, and the hidden items' rule (labs/grade/README.md,
"Reports for Gradescope and CI").

An item marked hidden in its rubric (a last field `hidden` or
`hidden=DATE`) is graded like any other, but until its reveal date (the
rubric's, or --reveal-after's for every hidden item) the reports a student
reads withhold its points and reason: Gradescope's JSON gives it the
visibility "after_due_date", the Markdown report and JUnit say "hidden until
DATE". The grader's own CSV keeps everything."""

import datetime
import json
import xml.etree.ElementTree as ET

FORMATS = ("markdown", "gradescope", "junit")
GRADESCOPE_FILE = "grade-results.json"
JUNIT_FILE = "grade-junit.xml"


def parse_formats(text):
    """The chosen formats (a comma list, in FORMATS' order), or None when
    one of them is not known."""
    chosen = [f.strip() for f in text.split(",")]
    if not chosen or any(f not in FORMATS for f in chosen):
        return None
    return [f for f in FORMATS if f in chosen]


def parse_date(text):
    """An aware datetime from YYYY-MM-DD (00:00 UTC that day) or an ISO 8601
    date and time (UTC unless it names an offset); None when it is not one."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        if len(text) == 10:
            d = datetime.datetime.strptime(text, "%Y-%m-%d")
        else:
            d = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    return d if d.tzinfo else d.replace(tzinfo=datetime.timezone.utc)


def date_text(d):
    """A reveal date as the reports say it: the day alone at midnight UTC."""
    d = d.astimezone(datetime.timezone.utc)
    if (d.hour, d.minute, d.second) == (0, 0, 0):
        return d.strftime("%Y-%m-%d")
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def hidden_until(item, reveal_after, now=None):
    """Why the item is withheld from a student's reports now ("hidden until
    DATE", "hidden until the due date" where no date is known), or None when
    it is shown. reveal_after (--reveal-after) overrides the rubric's date."""
    if not getattr(item, "hidden", False):
        return None
    when = reveal_after or item.reveal
    now = now or datetime.datetime.now(datetime.timezone.utc)
    if when is None:
        return "hidden until the due date"
    return f"hidden until {date_text(when)}" if when > now else None


def item_label(o):
    return f"{o.item.lab}/{o.item.name}"


def shown_total(outcomes, hidden):
    """The total line a student may read: all of it, or the items shown
    and how many points wait behind which dates."""
    seen = [o for o in outcomes if o.item not in hidden]
    text = f"{sum(o.points for o in seen)} / {sum(o.item.points for o in seen)} points"
    if hidden:
        text += (f" in the items shown; {sum(i.points for i in hidden)} more in {len(hidden)} item(s) "
                 f"{', '.join(sorted(set(hidden.values())))}")
    return text


def gradescope(outcomes, hidden, summary, elapsed):
    """Gradescope's results.json (gradescope-autograders.readthedocs.io,
    "Autograder Specifications"): one test per rubric item. hidden: the
    items withheld now (hidden_until), which Gradescope shows after the
    assignment's due date; their output is theirs, for that day."""
    tests = []
    for n, o in enumerate(outcomes, 1):
        lab = o.item.lab[3:] if o.item.lab[3:].isdigit() else "0"
        tests.append({
            "score": o.points,
            "max_score": o.item.points,
            "name": item_label(o),
            "number": f"{lab}.{n}",
            "output": f"{o.passed}: {o.reason}",
            "visibility": "after_due_date" if o.item in hidden else "visible",
            "status": "passed" if o.passed == "yes" else "failed",
        })
    doc = {
        "score": sum(o.points for o in outcomes),
        "execution_time": int(round(elapsed)),
        "output": summary,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def junit(name, outcomes, hidden, times, stamp):
    """JUnit XML: a <testsuite> with one <testcase> per rubric item; a
    failed or missing item has a <failure message="reason">, an item that
    could not be graded here an <error>, a hidden one a <skipped
    message="hidden until DATE"> and nothing else."""
    suite = ET.Element("testsuite", name=f"ddlab grade: {name}", timestamp=stamp)
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for o in outcomes:
        t = times.get(o.item, 0.0)
        total_time += t
        case = ET.SubElement(suite, "testcase", classname=f"ddlab.{o.item.lab}", name=o.item.name,
                             time=f"{t:.3f}")
        if o.item in hidden:
            ET.SubElement(case, "skipped", message=hidden[o.item])
            counts["skipped"] += 1
            continue
        points = f"{o.points}/{o.item.points} points"
        if o.passed in ("no", "missing"):
            f = ET.SubElement(case, "failure", message=o.reason, type="failed" if o.passed == "no" else o.passed)
            f.text = f"{points}: {o.reason}"
            counts["failures"] += 1
        elif o.passed == "error":
            e = ET.SubElement(case, "error", message=o.reason, type="error")
            e.text = f"{points}: {o.reason}"
            counts["errors"] += 1
        ET.SubElement(case, "system-out").text = f"{points}: {o.reason}"
    suite.set("tests", str(len(outcomes)))
    for k, v in counts.items():
        suite.set(k, str(v))
    suite.set("time", f"{total_time:.3f}")
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
