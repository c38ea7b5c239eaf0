#!/usr/bin/env bash
# ddl-test-pass: optimised: the report is Python and TeX over the labs' results; the labs' own e2e tests run under the sanitizers
# ddl-test-order: last: it builds the report from the tables and figures the labs' e2e tests leave in DDL_E2E_SHARE
# e2e_report.sh - `make report` (report/build.py) after every lab has run:
# the PDF and the web page build, page 1 gives a verdict for every lab, the
# layout holds, only indexed figures get in, bad inputs are named in their
# lab's section without stopping the build, and the page passes headless
# Chromium (report/check_html.py), whose screenshot of the first screen is
# kept in the artefact folder.
#
# The labs' tiny end-to-end runs (tests/e2e_labN.sh) leave their results
# folders (CSV, results index) and renders in DDL_E2E_SHARE (tests/run.sh
# sets it for each phase, tests/share_outputs.sh); a lab missing there (this
# script run on its own) is run here through its e2e test. The report is
# built into a temporary folder (--results/--pdf/--html), never into the
# checkout's report/. Artefacts (the first screen, the built PDF and page)
# go to DDL_TEST_ARTEFACTS (default results/tests/e2e_report/).
# Prints ok / not ok / skip lines.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "report e2e"
ART=${DDL_TEST_ARTEFACTS:-$PWD/results/tests/e2e_report}
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT # KEEP=1: leave the scratch folder
command -v python3 >/dev/null 2>&1 || { echo "skip - report e2e: python3 not installed (make deps)"; exit 0; }

share=${DDL_E2E_SHARE:-$tmp/share}
for n in 1 2 3 4 5 6; do
  if [ ! -f "$share/lab$n/results/index.csv" ]; then
    echo "report e2e: no results of lab$n's tiny run in $share: running tests/e2e_lab$n.sh" >&2
    DDL_E2E_SHARE=$share BIN=$BIN tests/e2e_lab$n.sh > "$tmp/lab$n.log" 2>&1
  fi
  [ -f "$share/lab$n/results/index.csv" ]
  check $? "lab$n's tiny run left its results and their index" "$(tail -3 "$tmp/lab$n.log" 2>/dev/null)"
  # A copy per test: the bad-input cases below change files.
  mkdir -p "$tmp/results/lab$n" "$tmp/fig/lab$n"
  cp "$share/lab$n/results/"* "$tmp/results/lab$n/" 2>/dev/null
  cp "$share/lab$n/fig/"*.png "$tmp/fig/lab$n/" 2>/dev/null
  sed -i "s|$share/lab$n/fig/|$tmp/fig/lab$n/|" "$tmp/results/lab$n/index.csv" 2>/dev/null
done
# The tiny runs were built from this checkout, perhaps before a commit:
# their results are this commit's for the test (one case below is not).
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
sed -i "s|^# git: .*|# git: $rev|" "$tmp"/results/lab*/*.csv

build() { # out-folder [build.py options]: the report of $tmp/results into out
  local out=$1; shift
  python3 report/build.py --results "$tmp/results" --pdf "$out/report.pdf" --html "$out/html" "$@" > "$out.log" 2>&1
}
mkdir -p "$tmp/a"
build "$tmp/a"
check $? "report/build.py builds" "$(tail -5 "$tmp/a.log")"
[ -s "$tmp/a/html/index.html" ]
check $? "the web page report/html/index.html is written"
mkdir -p "$ART" && cp "$tmp/a/html/index.html" "$ART/index.html" 2>/dev/null && cp -r "$tmp/a/html/." "$ART/html/" 2>/dev/null

if command -v pdflatex >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; then
  [ -s "$tmp/a/report.pdf" ]
  check $? "the PDF is written"
  cp "$tmp/a/report.pdf" "$ART/report.pdf" 2>/dev/null
  pdftotext -layout -f 1 -l 1 "$tmp/a/report.pdf" "$tmp/page1.txt" 2>/dev/null
  for n in 1 2 3 4 5 6; do
    grep -qE "^ *$n +.* 00[0-4] +(reproduced|partly|not|no)" "$tmp/page1.txt"
    check $? "page 1's summary gives lab$n a verdict"
  done
  pages=$(pdfinfo "$tmp/a/report.pdf" 2>/dev/null | awk '/^Pages:/ {print $2}')
  [ "${pages:-99}" -lt 25 ]
  check $? "the PDF has fewer than 25 pages" "${pages:-?} pages"
  wide=$(grep -o 'Overfull \\hbox ([0-9.]*pt' "$tmp/a/report.log" | grep -o '[0-9.]*' |
         awk '$1 > 10 {n++} END {print n + 0}')
  check "$([ "$wide" = 0 ]; echo $?)" "no line of the PDF is overfull by more than 10pt" "$wide lines"
  pdftotext -layout "$tmp/a/report.pdf" - 2>/dev/null | tr -d '\f' > "$tmp/all.txt"
  for n in 1 2 3 4 5 6; do
    grep -qE "^ *$n +Lab $n:" "$tmp/all.txt" && grep -q "Verdict (" "$tmp/all.txt"
    check $? "the PDF has lab$n's section with its verdict"
  done
else
  echo "skip - report e2e: pdflatex or pdftotext missing: install texlive-latex-base texlive-latex-recommended poppler-utils (make deps)"
fi

# The seeds' numbers and the generated LaTeX: one escaping rule for the C
# programs, the shell and Python (report/ddreport/latex.py).
bad=$(python3 - <<'EOF'
import subprocess, sys
sys.path.insert(0, "report")
from ddreport import latex
bad = []
for b in list(range(1, 256)):
    s = bytes([b]).decode("latin-1")
    want = subprocess.run(["bash", "-c", 'source report/tex_text.sh; tex_text "$1"', "-", s],
                          capture_output=True, env={"LC_ALL": "C"}).stdout.decode("latin-1")
    if b >= 128:
        continue  # one byte of a UTF-8 sequence: Python escapes whole characters
    if latex.escape(s) != want:
        bad.append(f"{b}: {latex.escape(s)!r} != {want!r}")
print("; ".join(bad[:5]))
EOF
)
check "$([ -z "$bad" ]; echo $?)" "Python's tex escape agrees with report/tex_text.sh on every ASCII byte" "$bad"

# A picture bin/lab1 draws with --out and no --figures lies beside the
# CSVs, never in the checkout's figures/, and never in the report.
tag=stray$$
"$BIN/lab1" --model cnn3 --dataset mnist --synthetic --width 0.25 --limit 128 --test-limit 64 --iters 2 --batch 16 \
  --out "$tmp/stray" --tag "$tag" --quiet > "$tmp/stray.log" 2>&1
[ -f "$tmp/stray/lab1-filters-$tag.png" ] && [ ! -e "figures/lab1-filters-$tag.png" ]
check $? "bin/lab1 --out DIR draws its pictures in DIR, not in figures/" "$(tail -2 "$tmp/stray.log")"
cp "$tmp/stray/lab1-filters-$tag.png" "$tmp/fig/lab1/" 2>/dev/null
mkdir -p "$tmp/b"
build "$tmp/b" --no-pdf
! grep -q "$tag" "$tmp/b/html/index.html" && [ ! -e "$tmp/b/html/fig/lab1-filters-$tag.png" ]
check $? "a picture in the figures folder that no results index names stays out of the report"

# Bad inputs: each named in its lab's section; the rest still builds.
fig=$(awk -F, '$1 == "figure" {print $3; exit}' "$tmp/results/lab2/index.csv")
head -c 300 "$fig" > "$fig.cut" && mv "$fig.cut" "$fig"
sed -i "0,/^# git: .*/s//# git: 0123456789ab/" "$(ls "$tmp"/results/lab3/*.csv | head -1)"
grep -v '^#' "$tmp/results/lab6/lab6.csv" | head -2 > "$tmp/head.csv"
{ grep '^#' "$tmp/results/lab6/lab6.csv"; head -c 200 "$tmp/head.csv"; } > "$tmp/lab6.csv" && mv "$tmp/lab6.csv" "$tmp/results/lab6/lab6.csv"
# A "# host:" value of 10 MB (the PDF's build failed on it, with no error
# line to show): shown cut.
hostfile=$(grep -l '^# host:' "$tmp"/results/lab1/*.csv | head -1)
python3 -c 'import sys; p = sys.argv[1]; t = open(p).read().splitlines(True)
open(p, "w").write("".join("# host: " + "h" * 10000000 + "\n" if l.startswith("# host:") else l for l in t))' "$hostfile"
mkdir -p "$tmp/c"
build "$tmp/c"
check $? "the report still builds with a corrupt figure, another commit's file, a truncated CSV and a 10 MB host name" \
  "$(tail -3 "$tmp/c.log")"
grep -q "cut by the report: 10000000 characters" "$tmp/c/html/index.html"
check $? "the 10 MB host name is shown cut, with its length"
page=$tmp/c/html/index.html
grep -q "$(basename "$fig"): truncated" "$page"
check $? "lab2's section names the corrupt figure and leaves it out"
grep -q "written by commit 0123456789ab" "$page"
check $? "lab3's section says a result file comes from another commit"
awk '/id="lab6"/,0' "$page" | grep -q "no verdict.*lab6.csv"
check $? "lab6's section says its grid CSV is cut short (no verdict)"
if command -v pdflatex >/dev/null 2>&1; then
  [ -s "$tmp/c/report.pdf" ]
  check $? "the PDF builds around them"
fi

# Outputs that cannot be written (a read-only checkout's report/): one
# line naming the place and the options, no traceback.
python3 report/build.py --results "$tmp/results" --pdf /proc/ddlab-report.pdf --html /proc/ddlab-report \
  > "$tmp/ro.log" 2>&1
st=$?
[ $st = 1 ] && grep -q "report: error: cannot write /proc/.*give writable places with --html and --pdf" "$tmp/ro.log" &&
  ! grep -q Traceback "$tmp/ro.log"
check $? "outputs that cannot be written are named, with the options to write elsewhere (no traceback)" \
  "status $st: $(tail -2 "$tmp/ro.log")"

# No TeX: the web page still comes, and the message names the packages.
mkdir -p "$tmp/nopath" "$tmp/d"
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$tmp/nopath/python3"
for tool in git bash; do ln -s "$(command -v $tool)" "$tmp/nopath/$tool"; done
PATH=$tmp/nopath python3 report/build.py --results "$tmp/results" --pdf "$tmp/d/report.pdf" --html "$tmp/d/html" \
  > "$tmp/d.log" 2>&1
[ $? = 0 ] && [ -s "$tmp/d/html/index.html" ] && [ ! -e "$tmp/d/report.pdf" ] &&
  grep -q "texlive-latex-base" "$tmp/d.log" && grep -q "apt-get install -y chromium" "$tmp/d.log"
check $? "without pdflatex (or chromium) the page is written and the packages to install are named" "$(tail -3 "$tmp/d.log")"

# The page in a browser: images, links, console, no network; a screenshot.
python3 report/check_html.py --screenshot "$ART/first-screen.png" "$tmp/a/html/index.html" > "$tmp/chromium.log" 2>&1
status=$?
cat "$tmp/chromium.log"
grep -q '^\(ok\|not ok\|skip\) - ' "$tmp/chromium.log"
check "$([ $? = 0 ] && [ $status = 0 ]; echo $?)" "headless Chromium checked the page (artefacts in $ART)" \
  "exit status $status"
exit $fail
