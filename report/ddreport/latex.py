"""The report as LaTeX: report/report.tex's body (\\input{body}).

Every generated string goes through tex(), the rule tex_escape() in
core/results applies to everything the C programs write (report/tex_text.sh
spells it for the shell; tests/e2e_report.sh checks that all three agree
on every byte). Tables are fitted to the text width by \\ddlabfit
(report.tex): set at \\small, scaled down only when still wider. Figures
come two to a row; the PNGs are linked into the build folder under plain
names, so no path reaches LaTeX."""
from . import png
from .runs import short
from .doc import VERDICTS

SPECIAL = {"_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}",
           "\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
           "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}


def escape(text):
    """tex_escape(): specials escaped, control characters as spaces, every
    non-ASCII character as '?' (UTF-8 continuation bytes dropped)."""
    out = []
    for byte in text.encode("utf-8", "replace"):
        c = chr(byte)
        if c in SPECIAL:
            out.append(SPECIAL[c])
        elif byte < 32 or byte == 127:
            out.append(" ")
        elif byte >= 192:
            out.append("?")
        elif byte < 128:
            out.append(c)
    return "".join(out)


def tex(text):
    """Plain text with `code` spans, as LaTeX. A line may break after any
    '/': a path (a results folder under a long TMPDIR) is one word to TeX,
    and in a table's narrow column it overfilled the line by up to 40pt."""
    parts = text.split("`")
    return "".join((escape(p) if i % 2 == 0 else r"\texttt{" + escape(p) + "}").replace("/", r"/\allowbreak{}")
                   for i, p in enumerate(parts))


def verdict(state):
    return r"\verdict{" + str(VERDICTS.index(state)) + "}{" + escape(state) + "}"


def header_cell(text):
    """A long header on two lines (narrower columns than one long line)."""
    words = text.split()
    if len(text) <= 10 or len(words) < 2:
        return tex(text)
    best = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return r"\begin{tabular}[b]{@{}c@{}}" + tex(" ".join(words[:best])) + r"\\" + tex(" ".join(words[best:])) + \
           r"\end{tabular}"


def table(t):
    align = t.align or "l" + "r" * (len(t.header) - 1)
    if t.widths:  # sentences in cells: wrapped in columns of fixed width, never scaled down
        align = "".join(r">{\raggedright\arraybackslash}p{" + f"{w:.2f}" + r"\linewidth}" for w in t.widths)
        return "\n".join([r"\begin{table}[H]\centering\scriptsize", r"\caption{" + tex(t.caption) + "}",
                          r"\begin{tabular}{@{}" + align + "@{}}", r"\toprule",
                          " & ".join(header_cell(h) for h in t.header) + r" \\", r"\midrule"] +
                         [" & ".join(tex(str(c)) for c in row) + r" \\" for row in t.rows] +
                         [r"\bottomrule", r"\end{tabular}", r"\end{table}"])
    lines = [r"\begin{table}[H]\centering\small", r"\caption{" + tex(t.caption) + "}",
             r"\ddlabfit{\begin{tabular}{" + align + "}", r"\toprule",
             " & ".join(header_cell(h) for h in t.header) + r" \\", r"\midrule"]
    lines += [" & ".join(tex(str(c)) for c in row) + r" \\" for row in t.rows]
    lines += [r"\bottomrule", r"\end{tabular}}"]
    if t.note:
        lines.append(r"\par\smallskip{\footnotesize " + tex(t.note) + r"\par}")
    lines.append(r"\end{table}")
    return "\n".join(lines)


class Pictures:
    """Plain names for the PNGs: fig001.png ... in the build folder."""

    def __init__(self):
        self.paths = []

    def name(self, path):
        self.paths.append(path)
        return f"fig{len(self.paths):03d}.png"


def share(path, small=False):
    """The part of the text width a figure gets, from its size in pixels:
    wide multi-panel plots a row of their own, ordinary plots half a row,
    small pictures (a filter mosaic) a quarter, never blown up past that.
    small (the appendix): two thirds of that, three plots to a row."""
    width, _ = png.size(path)
    w = 0.98 if width >= 1200 else 0.24 if width < 300 else 0.48
    return round(w * 2 / 3, 2) if small else w


def figures(figs, pics, small=False):
    """Figures in rows of what fits the text width, each with its caption."""
    rows, row, used = [], [], 0.0
    for f in figs:
        w = share(f.path, small)
        if row and used + w > 1.0:
            rows.append(row)
            row, used = [], 0.0
        row.append((f, w))
        used += w
    if row:
        rows.append(row)
    out = []
    for row in rows:
        cells = [r"\begin{minipage}[t]{" + f"{w}" + r"\linewidth}\centering" +
                 r"\includegraphics[width=\linewidth,height=0.3\textheight,keepaspectratio]{" + pics.name(f.path) +
                 r"}\caption{" + tex(f.caption) + r"}\end{minipage}" for f, w in row]
        out.append(r"\begin{figure}[H]\centering" + "\n" + "\\hfill\n".join(cells) + "\n" + r"\end{figure}")
    return "\n".join(out)


def itemize(items):
    if not items:
        return ""
    return "\\begin{itemize}\n" + "\n".join(r"\item " + tex(i) for i in items) + "\n\\end{itemize}"


def summary(report):
    rows = []
    for s in report.sections:
        state, reason, where = s.summary_cells(short)
        rows.append(f"{s.lab} & " + r"\hyperref[sec:lab" + str(s.lab) + "]{" + tex(s.short) + "} & " + tex(s.seed.id) +
                    r" & \cellcolor{verdict" + str(VERDICTS.index(state)) + r"}\textbf{" + escape(state) + "} & " +
                    tex(reason) + " & " + tex(where) + r" \\")
    return "\n".join([r"\begin{table}[H]\centering\footnotesize", r"\caption{Verdicts: is each seed's finding "
                      r"reproduced? Each verdict is computed from this checkout's results by the lab's rule "
                      r"(report/ddreport/labN.py); the sections say how.}",
                      r"\begin{tabular}{@{}r>{\raggedright}p{0.15\linewidth}c>{\raggedright}p{0.1\linewidth}"
                      r">{\raggedright}p{0.42\linewidth}>{\raggedright\arraybackslash}p{0.1\linewidth}@{}}",
                      r"\toprule Lab & Study & Seed & Verdict & Why (from the numbers) & Platform \\ \midrule"] +
                     rows + [r"\bottomrule\end{tabular}", r"\end{table}"])


def finding_lines(f, lab, named=True):
    cond = conditions_of(f)
    on = " (" + tex(f.platform.label) + ")" if named else ""
    return [r"\noindent\textbf{Verdict" + on + ":} " + verdict(f.verdict.state) + ". " +
            tex(f.verdict.reason) + ".", r"\par\smallskip\noindent{\small\textit{Conditions:} " + tex(cond) +
            r"\par}\smallskip"]


def conditions_of(f):
    from .runs import conditions
    saved = f.platform.meta
    f.platform.meta = {**saved, **f.meta}
    try:
        return conditions(f.platform)
    finally:
        f.platform.meta = saved


def section(s, pics):
    out = [r"\section{Lab " + str(s.lab) + ": " + tex(s.title) + r"}\label{sec:lab" + str(s.lab) + "}"]
    head = s.headline
    if head:
        out += finding_lines(head, s.lab)
    out.append(r"\paragraph{The seed's question.} " + tex(s.question) + " (" + tex(s.seed.cite()) + ")")
    out.append(r"\paragraph{What the seed reported.}")
    out.append(itemize([f"{ref}: {text}." for ref, text in s.quotes]))
    if s.register:  # its caption names it: a run-in \paragraph heading would wait for the next text
        out.append(table(s.register))
    if head:
        if head.table:
            out.append(table(head.table))
        out.append(figures(head.figures, pics))
        out.append(itemize(head.notes))
    if s.how_to_show:
        out.append(r"\paragraph{Where the finding shows.} " + tex(s.how_to_show))
    for f in s.findings[1:]:
        out.append(r"\paragraph{Also run: " + tex(f.platform.label) + ".}")
        out += finding_lines(f, s.lab, named=False)
        if f.table:
            out.append(table(f.table))
    problems = s.problems + [f"{f.platform.label}: {p}" for f in s.findings for p in f.platform.problems]
    if problems:
        out.append(r"\paragraph{Problems with the results.}")
        out.append(itemize(problems))
    return "\n".join(x for x in out if x)


def beyond(b, pics):
    """Past the machine (scale.Beyond): make scale's predictions and their
    validation on emulated hosts."""
    out = [r"\section{Past the machine}\label{sec:scale}", itemize(b.notes)]
    out += [table(t) for t in b.tables]
    out.append(figures(b.figures, pics))
    if b.problems:
        out.append(r"\paragraph{Problems with the results.}")
        out.append(itemize(b.problems))
    return "\n".join(x for x in out if x)


def title_page(r):
    lines = [r"\begin{center}{\LARGE\bfseries " + tex(r.title) + r"\par}\medskip",
             r"{\large Each seed's finding beside what ddlab measured\par}\end{center}", r"\smallskip",
             r"\noindent\begin{tabular}{@{}l>{\raggedright\arraybackslash}p{0.84\linewidth}@{}}",
             r"Commit & \texttt{" + escape(r.commit) + r"} \\",
             r"Date & " + tex(r.date) + r" \\",
             r"Machine & " + tex(r.machine) + r" \\"]
    for i, line in enumerate(r.what_ran):
        lines.append(("What ran" if i == 0 else "") + " & " + tex(line) + r" \\")
    lines.append(r"\end{tabular}\par\smallskip")
    if r.data_line:
        lines.append(r"\noindent\textbf{" + tex(r.data_line) + r"}\par")
    lines.append(r"\noindent{\footnotesize Generated by \texttt{report/build.py} (\texttt{make report}) from the "
                 r"results indexes in \texttt{results/labN/}; the HTML twin is \texttt{report/html/index.html}.\par}")
    lines.append(summary(r))
    if r.beyond:
        lines.append(r"\noindent\textbf{\hyperref[sec:scale]{Past the machine}:} " + tex(r.beyond.summary) + r".\par")
    return "\n".join(lines)


def appendix(report, pics):
    out = [r"\clearpage\appendix\section{Other figures}\label{sec:appendix}\captionsetup{font=footnotesize}",
           "Every other figure of the runs listed in the labs' results indexes, three to a row."]
    for s in report.sections:
        if s.appendix:
            out.append(r"\subsection*{Lab " + str(s.lab) + ": " + tex(s.title) + "}")
            out.append(figures(s.appendix, pics, small=True))
    return "\n".join(out)


def lab_table(path):
    """A lab's own LaTeX table (labs/labN/table.c), set in the appendix's
    size and fitted to the text width."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    opened, closed = text.count(r"\begin{table}"), text.count(r"\end{table}")
    if not opened or opened != closed or text.count(r"\begin{tabular}") != text.count(r"\end{tabular}"):
        return r"\par\emph{" + tex(f"{path}: not a whole table (a cut file?), left out") + r"}\par"
    return (text.replace(r"\begin{table}[htbp]", r"\begin{table}[H]\footnotesize")
                .replace(r"\begin{tabular}", r"\ddlabfit{\begin{tabular}").replace(r"\end{tabular}", r"\end{tabular}}"))


def own_tables(report):
    out = [r"\clearpage\section{The labs' own tables}\label{sec:tables}",
           "Each lab's full table as its table job writes it (report/tables/labN.tex), for the runs in its "
           "results index."]
    for s in report.sections:
        for f in s.findings:
            for path in f.platform.tables:
                out.append(lab_table(path))
    return "\n".join(out)


def body(report, pics):
    parts = [title_page(report)]
    if report.problems:
        parts.append(itemize(report.problems))
    parts.append(r"\clearpage")
    parts += [section(s, pics) for s in report.sections]
    if report.beyond:
        parts.append(beyond(report.beyond, pics))
    if any(s.appendix for s in report.sections):
        parts.append(appendix(report, pics))
    if any(f.platform.tables for s in report.sections for f in s.findings):
        parts.append(own_tables(report))
    return "\n\n".join(parts) + "\n"
