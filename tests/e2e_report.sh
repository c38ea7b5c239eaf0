#!/usr/bin/env bash
# e2e_report.sh - `make report` after every lab has run: the report builds
# and has every lab's section with a table and a figure of it.
#
# The labs' tiny end-to-end runs (tests/e2e_labN.sh) leave their tables and
# figures in DDL_E2E_SHARE (tests/run.sh sets it for each phase, see
# tests/share_outputs.sh); a lab missing there (this script run on its own)
# is run here through its e2e test. Then report/build.sh compiles them
# (TABLES/FIGURES/REPORT_PDF point it at a temporary folder, never at the
# repository's report/) and pdftotext reads the PDF back: each "Lab N"
# section must hold a table caption and a figure caption of lab N, and no
# "Not run yet". Prints ok / not ok / skip lines.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
check() { # status name [why]
  if [ "$1" = 0 ]; then echo "ok - report e2e: $2"; else echo "not ok - report e2e: $2${3:+: $3}"; fail=1; fi
}
for tool in pdflatex gnuplot; do
  command -v $tool >/dev/null 2>&1 || { echo "skip - report e2e: $tool not installed (make deps)"; exit 0; }
done

share=${DDL_E2E_SHARE:-$tmp/share}
mkdir -p "$tmp/tab" "$tmp/fig"
for n in 1 2 3 4 5 6; do
  if ! ls "$share/lab$n/tab/"*.tex >/dev/null 2>&1; then
    echo "report e2e: no outputs of lab$n's tiny run in $share: running tests/e2e_lab$n.sh" >&2
    DDL_E2E_SHARE=$share BIN=$BIN tests/e2e_lab$n.sh > "$tmp/lab$n.log" 2>&1
  fi
  tables=$(ls "$share/lab$n/tab/"*.tex 2>/dev/null | wc -l)
  figs=$(ls "$share/lab$n/fig/"*.png 2>/dev/null | wc -l)
  [ "$tables" -gt 0 ] && [ "$figs" -gt 0 ]
  check $? "lab$n's tiny run rendered tables and figures" "$tables tables, $figs figures"
  cp "$share/lab$n/tab/"*.tex "$tmp/tab/" 2>/dev/null
  cp "$share/lab$n/fig/"*.png "$tmp/fig/" 2>/dev/null
done

TABLES=$tmp/tab FIGURES=$tmp/fig REPORT_PDF=$tmp/out/report.pdf report/build.sh > "$tmp/build.log" 2>&1
check $? "report/build.sh compiles every lab's tables and figures" "$(grep -m3 -E ':[0-9]+: |^!' "$tmp/build.log")"
[ -s "$tmp/out/report.pdf" ]
check $? "the PDF exists"
[ -s "$tmp/out/report.pdf" ] || exit 1
if ! command -v pdftotext >/dev/null 2>&1; then
  echo "skip - report e2e: pdftotext not installed (poppler-utils; make deps): PDF contents not checked"
  exit $fail
fi
pdftotext -layout "$tmp/out/report.pdf" "$tmp/report.txt" 2>/dev/null
check $? "pdftotext reads the PDF"
pages=$(grep -c $'\f' "$tmp/report.txt")
check "$([ "$pages" -ge 6 ]; echo $?)" "the PDF has pages for the labs" "$pages pages"
grep -q 'Not run yet' "$tmp/report.txt"
check "$([ $? != 0 ]; echo $?)" "no lab is 'not run yet'"
# Section N runs from its heading to the next one; its captions name lab N.
tr -d '\f' < "$tmp/report.txt" > "$tmp/text.txt"
for n in 1 2 3 4 5 6; do
  section=$(awk -v n="$n" 'BEGIN {start = "^ *" n " +Lab " n ":"; m = n + 1; stop = "^ *" m " +Lab " m ":"}
                           $0 ~ start {on = 1; next} $0 ~ stop {on = 0} on' "$tmp/text.txt")
  t=$(printf '%s\n' "$section" | grep -c -E "Table [0-9]+: +[Ll]ab ?$n\\b")
  f=$(printf '%s\n' "$section" | grep -c -E "Figure [0-9]+: +Lab $n:")
  check "$([ -n "$section" ] && [ "$t" -gt 0 ] && [ "$f" -gt 0 ]; echo $?)" \
    "section 'Lab $n' holds lab$n's tables and figures" "$t table captions, $f figure captions"
done
exit $fail
