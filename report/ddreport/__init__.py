"""ddreport - the ddlab report: each seed's claim beside what ddlab measured.

report/build.py (what `make report` runs) reads every lab's results index,
the seeds' numbers (report/seeds/) and the result files, computes one
verdict per lab (labN.py), and writes the same document twice: LaTeX for
report/report.pdf (latex.py) and report/html/index.html (html.py).
Standard library only: Debian's python3 is all it needs."""
