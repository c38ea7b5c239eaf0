#!/usr/bin/env python3
"""report/build.py - the ddlab report (`make report`).

Reads each lab's results index (results/labN/index.csv and the net-*/sim-*
folders beside it: what `make labN` produced, nothing else from figures/),
the seeds' numbers (report/seeds/), and the result files; computes each
lab's verdict with its rule (report/ddreport/labN.py); writes
  report/html/index.html   the web page, self-contained (always);
  report/report.pdf        the PDF, when pdflatex is installed.
A lab whose results are missing, partial, corrupt or from another commit
gets a section that says so, and the rest still builds. Exit status 0, or
1 when LaTeX failed (its log is kept in report/report.log; an earlier
report.pdf is left as it was), 2 on bad usage."""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from ddreport import doc, html, labs, latex, scale, seeds  # noqa: E402

OVERFULL_PT = 10.0  # an overfull line beyond this is a layout bug, and said so


def git_commit():
    try:
        rev = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=ROOT).returncode != 0
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def what_ran(sections):
    """Lines for the title page: labs and platforms, profiles, devices, data."""
    labs_line, profiles, devices, data = [], set(), set(), {}
    for s in sections:
        if not s.findings:
            labs_line.append(f"lab{s.lab}: not run")
            continue
        labs_line.append(f"lab{s.lab}: " + ", ".join(f.platform.key for f in s.findings))
        for f in s.findings:
            meta = {**f.platform.meta, **f.meta}
            profiles.add(meta.get("profile", "?"))
            devices.add(meta.get("device", "?"))
            data.setdefault(meta.get("data", "?"), []).append(f"lab{s.lab}")
    lines = ["labs and platforms: " + "; ".join(labs_line)]
    lines.append("profile: " + ", ".join(sorted(profiles)) + "; device: " + ", ".join(sorted(devices)))
    lines.append("data: " + "; ".join(f"{k} ({', '.join(sorted(set(v)))})" for k, v in sorted(data.items())))
    return lines, data


def machine(sections):
    for s in sections:
        for f in s.findings:
            m = {**f.platform.meta, **f.meta}
            if m.get("host"):
                return (f"{m['host']}: {m.get('device_detail', m.get('cores', '?') + ' cores')}"
                        f" (as the results record it)")
    return os.uname().nodename + " (no results)"


def data_line(data):
    synth = sorted(set(data.get("synthetic", [])))
    if not synth:
        return ""
    return (f"Offline: {', '.join(synth)} trained on synthetic data (no datasets under DDL_DATA); their accuracies "
            "compare runs with each other, not with the seeds'.")


def assemble(results, folder, lab_list):
    all_seeds = seeds.load(folder)
    commit = git_commit()
    sections = [labs.section(n, results, all_seeds, ROOT, commit) for n in lab_list]
    ran, data = what_ran(sections)
    problems = [] if any(s.findings for s in sections) else \
        [f"No lab has results in {results}/: run `make figures` (every lab), then `make report`."]
    return doc.Report(title="ddlab report", commit=commit,
                      date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                      machine=machine(sections), what_ran=ran, data_line=data_line(data), sections=sections,
                      problems=problems, beyond=scale.section(results, ROOT))


def compile_pdf(report, pdf):
    """report.pdf via pdflatex (twice: references); 0, or 1 after a message."""
    if not shutil.which("pdflatex"):
        print("report: pdflatex not found, so the PDF was not built; install it with: sudo apt-get install -y "
              "texlive-latex-base texlive-latex-recommended (or `make deps`), then run `make report` again.")
        return 0
    build = tempfile.mkdtemp(prefix="ddlab-report.")
    try:
        pics = latex.Pictures()
        body = latex.body(report, pics)
        for i, path in enumerate(pics.paths, start=1):
            os.symlink(path, os.path.join(build, f"fig{i:03d}.png"))
        with open(os.path.join(build, "body.tex"), "w", encoding="ascii") as f:
            f.write(body)
        shutil.copyfile(os.path.join(HERE, "report.tex"), os.path.join(build, "report.tex"))
        log = os.path.join(build, "report.log")
        for _ in range(2):
            run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
                                  "report.tex"], cwd=build, capture_output=True, text=True, errors="replace")
            if run.returncode != 0:
                keep = os.path.splitext(pdf)[0] + ".log"
                shutil.copyfile(log if os.path.exists(log) else os.path.join(build, "report.tex"), keep)
                errors = [l for l in (run.stdout.splitlines()) if l.startswith("!") or re.match(r"^\S+:\d+: ", l)]
                # no error line (TeX stopped on a resource, say): its last words instead
                errors = errors or [l for l in run.stdout.splitlines() if l.strip()][-6:] or ["(pdflatex printed none)"]
                print("report: pdflatex failed; last errors:\n  " + "\n  ".join(errors[-10:]) +
                      f"\nreport: full log in {keep}; {pdf} was left as it was", file=sys.stderr)
                return 1
        text = open(log, encoding="latin-1").read()
        wide = [float(m) for m in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", text)]
        if any(w > OVERFULL_PT for w in wide):
            print(f"report: warning: {sum(w > OVERFULL_PT for w in wide)} line(s) overfull by more than "
                  f"{OVERFULL_PT:g}pt (widest {max(wide):.1f}pt): see the log", file=sys.stderr)
        os.makedirs(os.path.dirname(os.path.abspath(pdf)), exist_ok=True)
        tmp = f"{pdf}.tmp.{os.getpid()}"
        shutil.copyfile(os.path.join(build, "report.pdf"), tmp)
        os.replace(tmp, pdf)
        shutil.copyfile(log, os.path.splitext(pdf)[0] + ".log")
        pages = re.search(r"\((\d+) pages?", run.stdout)
        print(f"report: wrote {pdf} ({pages.group(1) if pages else '?'} pages)")
        return 0
    finally:
        shutil.rmtree(build, ignore_errors=True)


def parse(argv):
    p = argparse.ArgumentParser(
        prog="report/build.py", description="Build the ddlab report from this checkout's lab results: one section "
        "per lab with the seed's numbers beside ddlab's, the figures that show the finding and a verdict computed "
        "from the results; as a PDF (pdflatex) and a self-contained web page.",
        epilog="Environment: REPORT_RESULTS, REPORT_PDF, REPORT_HTML set the defaults of --results, --pdf, --html "
               "(tests/e2e_report.sh builds into a temporary folder this way).")
    p.add_argument("--results", default=os.environ.get("REPORT_RESULTS") or "results",
                   help="the results root with lab1/ .. lab6/ (default: results)")
    p.add_argument("--pdf", default=os.environ.get("REPORT_PDF") or "report/report.pdf", help="the PDF to write")
    p.add_argument("--html", default=os.environ.get("REPORT_HTML") or "report/html",
                   help="the web page's folder (index.html, fig/, data/)")
    p.add_argument("--seeds", default=os.path.join(HERE, "seeds"), help="the seeds' numbers (report/seeds)")
    p.add_argument("--labs", default="1,2,3,4,5,6", help="which labs, e.g. 3,6 (default: all six)")
    p.add_argument("--no-pdf", action="store_true", help="only the web page (no pdflatex run)")
    a = p.parse_args(argv)
    given = a.labs
    try:
        a.labs = [int(x) for x in given.split(",")]
        if not a.labs or any(n not in labs.LABS for n in a.labs):
            raise ValueError
    except ValueError:
        p.error(f"--labs: a comma list of lab numbers 1..6 (got {given!r})")
    return a


def main(argv):
    a = parse(argv)
    os.chdir(ROOT)
    report = assemble(a.results, a.seeds, a.labs)
    for s in report.sections:
        h = s.headline
        print(f"report: lab{s.lab}: {h.verdict.state if h else 'not run'}"
              f"{' (' + h.platform.key + ')' if h else ''}: {h.verdict.reason if h else '; '.join(s.problems)}")
    try:
        page = html.write(report, a.html)
        print(f"report: wrote {page}")
        if not shutil.which("chromium"):
            print("report: (tests/e2e_report.sh checks the page in headless Chromium: sudo apt-get install -y chromium)")
        return 0 if a.no_pdf else compile_pdf(report, a.pdf)
    except OSError as e:
        # a read-only checkout: say where, and how to write elsewhere
        where = e.filename or "the outputs"
        print(f"report: error: cannot write {where}: {e.strerror or e}; give writable places with --html and --pdf "
              "(or REPORT_HTML, REPORT_PDF)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
