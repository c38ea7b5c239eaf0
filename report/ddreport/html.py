"""The report as one web page: report/html/index.html, self-contained.

The same sections as the PDF, tables as HTML tables, figures inline. The
pictures and the raw result files (CSV, JSON, the Chrome/Perfetto traces)
are copied beside the page (fig/, data/), so the folder can be moved or
served as it is and nothing is fetched from a network: no external style
sheet, script or font. write() builds it in a temporary folder and puts it
in place at the end."""
import html
import os
import shutil
import urllib.parse

from . import png
from .runs import short
from .doc import VERDICTS

STYLE = """
body { font-family: sans-serif; max-width: 68em; margin: 1em auto; padding: 0 1em; line-height: 1.45; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; padding-top: 0.6em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; text-align: right; vertical-align: top; }
th { border-bottom: 2px solid #888; } td.l, th.l { text-align: left; }
caption { caption-side: top; text-align: left; font-weight: bold; padding-bottom: 0.3em; }
.note { font-size: 0.85em; color: #555; }
.v0 { background: #d4f4d4; } .v1 { background: #fbe7b5; } .v2 { background: #f8c9c4; } .v3 { background: #e4e4e4; } .v4 { background: #cfe2f8; }
.verdict { padding: 0.1em 0.5em; border-radius: 0.3em; font-weight: bold; white-space: nowrap; }
.box { border: 1px solid #ccc; border-radius: 0.4em; padding: 0.5em 0.8em; margin: 0.6em 0; background: #fafafa; }
.figs { display: grid; grid-template-columns: repeat(auto-fill, minmax(28em, 1fr)); gap: 1em; }
.figs.small { grid-template-columns: repeat(auto-fill, minmax(20em, 1fr)); }
figure { margin: 0; } figure.wide { grid-column: 1 / -1; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.88em; }
code { background: #f2f2f2; padding: 0 0.2em; }
.scroll { overflow-x: auto; }
"""


def text(s):
    """Plain text with `code` spans, as HTML."""
    parts = s.split("`")
    return "".join(html.escape(p) if i % 2 == 0 else "<code>" + html.escape(p) + "</code>" for i, p in enumerate(parts))


def verdict(state):
    return f'<span class="verdict v{VERDICTS.index(state)}">{html.escape(state)}</span>'


class Files:
    """Copies pictures and raw files into the page's folder, once each."""

    def __init__(self, folder):
        self.folder, self.done = folder, {}

    def put(self, path, sub):
        if path in self.done:
            return self.done[path]
        rel = os.path.join(sub, os.path.basename(path))
        n = 1
        while os.path.exists(os.path.join(self.folder, rel)):
            n += 1
            rel = os.path.join(sub, f"{n}-{os.path.basename(path)}")
        os.makedirs(os.path.join(self.folder, sub), exist_ok=True)
        shutil.copyfile(path, os.path.join(self.folder, rel))
        self.done[path] = rel
        return rel


def table(t):
    align = t.align or "l" + "r" * (len(t.header) - 1)
    cls = [' class="l"' if a == "l" else "" for a in align]
    out = ['<div class="scroll"><table>', f"<caption>{text(t.caption)}</caption>",
           "<tr>" + "".join(f"<th{cls[i]}>{text(h)}</th>" for i, h in enumerate(t.header)) + "</tr>"]
    out += ["<tr>" + "".join(f"<td{cls[i]}>{text(str(c))}</td>" for i, c in enumerate(row)) + "</tr>"
            for row in t.rows]
    out.append("</table></div>")
    if t.note:
        out.append(f'<p class="note">{text(t.note)}</p>')
    return "\n".join(out)


def figures(figs, files, sub, small=False):
    if not figs:
        return ""
    cells = []
    for f in figs:
        src = files.put(f.path, sub)
        wide = ' class="wide"' if png.size(f.path)[0] >= 1200 else ""
        url = html.escape(urllib.parse.quote(src))
        cells.append(f'<figure{wide}><a href="{url}"><img src="{url}" alt="{html.escape(f.name)}">'
                     f"</a><figcaption>{text(f.caption)}</figcaption></figure>")
    return f'<div class="figs{" small" if small else ""}">' + "\n".join(cells) + "</div>"


def items(lines):
    return "<ul>" + "".join(f"<li>{text(x)}</li>" for x in lines) + "</ul>" if lines else ""


def raw_links(f, files, lab):
    sub = os.path.join("data", f"lab{lab}", f.platform.key)
    links = []
    for path in f.platform.raw:
        rel = files.put(path, sub)
        name = os.path.basename(path)
        what = " (Perfetto trace: open it at ui.perfetto.dev or chrome://tracing)" if name.endswith("-trace.json") else ""
        links.append(f'<a href="{html.escape(urllib.parse.quote(rel))}">{html.escape(name)}</a>{html.escape(what)}')
    if not links:
        return ""
    return (f"<details><summary>Raw results of this run ({len(links)} files: CSV, JSON, traces)</summary><ul>" +
            "".join(f"<li>{x}</li>" for x in links) + "</ul></details>")


def finding_box(f, named=True):
    from .latex import conditions_of
    on = f" ({text(f.platform.label)})" if named else ""
    return (f'<div class="box"><b>Verdict{on}:</b> {verdict(f.verdict.state)} '
            f"{text(f.verdict.reason)}.<br><span class=\"note\"><i>Conditions:</i> {text(conditions_of(f))}</span>"
            "</div>")


def section(s, files):
    out = [f'<h2 id="lab{s.lab}">Lab {s.lab}: {text(s.title)}</h2>']
    head = s.headline
    if head:
        out.append(finding_box(head))
    out.append(f"<p><b>The seed's question.</b> {text(s.question)} ({text(s.seed.cite())})</p>")
    out.append("<p><b>What the seed reported.</b></p>" + items([f"{ref}: {t}." for ref, t in s.quotes]))
    if s.register:
        out.append("<p><b>The seed's claims, one by one.</b></p>" + table(s.register))
    if head:
        if head.table:
            out.append(table(head.table))
        out.append(figures(head.figures, files, "fig"))
        out.append(items(head.notes))
    if s.how_to_show:
        out.append(f"<p><b>Where the finding shows.</b> {text(s.how_to_show)}</p>")
    for f in s.findings[1:]:
        out.append(f"<h3>Also run: {text(f.platform.label)}</h3>")
        out.append(finding_box(f, named=False))
        if f.table:
            out.append(table(f.table))
    problems = s.problems + [f"{f.platform.label}: {p}" for f in s.findings for p in f.platform.problems]
    if problems:
        out.append("<p><b>Problems with the results.</b></p>" + items(problems))
    for f in s.findings:
        out.append(raw_links(f, files, s.lab))
    if s.appendix:
        out.append(f"<details><summary>Other figures of lab {s.lab} ({len(s.appendix)})</summary>" +
                   figures(s.appendix, files, "fig", small=True) + "</details>")
    return "\n".join(x for x in out if x)


def beyond(b, files):
    """Past the machine (scale.Beyond), as latex.beyond."""
    out = ['<h2 id="scale">Past the machine</h2>', items(b.notes)]
    out += [table(t) for t in b.tables]
    out.append(figures(b.figures, files, "fig"))
    if b.problems:
        out.append("<p><b>Problems with the results.</b></p>" + items(b.problems))
    return "\n".join(x for x in out if x)


def summary(report):
    rows = []
    for s in report.sections:
        state, reason, where = s.summary_cells(short)
        rows.append(f'<tr><td>{s.lab}</td><td class="l"><a href="#lab{s.lab}">{text(s.short)}</a></td>'
                    f'<td>{text(s.seed.id)}</td><td class="l">{verdict(state)}</td><td class="l">{text(reason)}</td>'
                    f'<td class="l">{text(where)}</td></tr>')
    return ('<div class="scroll"><table><caption>Verdicts: is each seed\'s finding reproduced? Computed from this '
            "checkout's results by each lab's rule (report/ddreport/labN.py).</caption>"
            '<tr><th>Lab</th><th class="l">Study</th><th>Seed</th><th class="l">Verdict</th>'
            '<th class="l">Why (from the numbers)</th><th class="l">Platform</th></tr>' + "".join(rows) +
            "</table></div>")


def page(report, files):
    head = [f"<h1>{text(report.title)}</h1>", "<p>Each seed's finding beside what ddlab measured.</p>",
            '<table class="meta">',
            f'<tr><td class="l">Commit</td><td class="l"><code>{html.escape(report.commit)}</code></td></tr>',
            f'<tr><td class="l">Date</td><td class="l">{text(report.date)}</td></tr>',
            f'<tr><td class="l">Machine</td><td class="l">{text(report.machine)}</td></tr>']
    head += [f'<tr><td class="l">{"What ran" if i == 0 else ""}</td><td class="l">{text(x)}</td></tr>'
             for i, x in enumerate(report.what_ran)]
    head.append("</table>")
    if report.data_line:
        head.append(f"<p><b>{text(report.data_line)}</b></p>")
    head.append(summary(report))
    if report.beyond:
        head.append(f'<p><b><a href="#scale">Past the machine</a>:</b> {text(report.beyond.summary)}.</p>')
    head.append(items(report.problems))
    tail = [beyond(report.beyond, files)] if report.beyond else []
    body = "\n".join(head + [section(s, files) for s in report.sections] + tail)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(report.title)}</title><style>{STYLE}</style></head><body>\n{body}\n"
            f'<p class="note">Generated by <code>report/build.py</code> (<code>make report</code>) on '
            f"{text(report.date)} from commit <code>{html.escape(report.commit)}</code>; the PDF twin is "
            "<code>report/report.pdf</code>.</p></body></html>\n")


def write(report, folder):
    """report/html (folder) replaced by a fresh page and its files."""
    parent = os.path.dirname(os.path.abspath(folder))
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, f".{os.path.basename(folder)}.tmp.{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        files = Files(tmp)
        with open(os.path.join(tmp, "index.html"), "w", encoding="utf-8") as f:
            f.write(page(report, files))
        old = folder + f".old.{os.getpid()}"
        if os.path.exists(folder):
            os.rename(folder, old)
        os.rename(tmp, folder)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return os.path.join(folder, "index.html")
