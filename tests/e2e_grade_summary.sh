#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade_summary.sh - the grader's CSV files opened in a spreadsheet
# (bin/grade --summary, grade-report.csv; labs/grade/README.md): a
# submission folder named like a formula (=HYPERLINK(...), +, -, @) is a
# text cell in --summary, a single quote before it (OWASP's advice), and
# is graded as any other (its lab5 results: 20 of lab5's 60 points; no
# code submitted, so exit status 1).
set -u
cd "$(dirname "$0")/.."
. tests/grade/e2e_lib.sh
t0=$(date +%s)
names=('=HYPERLINK("http://example.invalid/?leak","open me")' '+1+2' '-2+3' '@SUM(1,2)' 'plain')
subs=()
for n in "${names[@]}"; do
  mkdir -p "$tmp/subs/$n/results" && cp -r tests/grade/results/lab5 "$tmp/subs/$n/results/"
  subs+=("$tmp/subs/$n")
done
# Named as given, from their folder: the summary's first cell is the name itself.
repo=$PWD
(cd "$tmp/subs" && "$repo/bin/grade" --no-build --quiet ${unconfined[@]+"${unconfined[@]}"} --labs lab5 \
  --summary "$tmp/summary.csv" -- "${names[@]}") > "$tmp/out" 2>&1
rc=$?
check $([ "$rc" = 1 ] && [ "$(grep -c "points" "$tmp/out")" = ${#names[@]} ] && echo 0 || echo 1) \
  "folders named like formulas are graded (a line each; exit status 1: no code submitted)" "rc $rc: $(tail -3 "$tmp/out")"
# Each first cell as a CSV reader sees it.
bad=$(python3 - "$tmp/summary.csv" "${names[@]}" 2>&1 <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))[1:]
want = {n: ("'" + n if n[0] in "=+-@" else n) for n in sys.argv[2:]}
got = {r[0]: r for r in rows}
for n, cell in want.items():
    r = got.get(cell)
    if r is None or r[1:] != ["20", "60", "no"]:
        print(f"{n!r}: expected a row {cell!r},20,60,no; rows {rows}")
for r in rows:
    if r[0][:1] in ("=", "+", "-", "@", "\t", "\r"):
        print(f"a cell a spreadsheet would run: {r[0]!r}")
PY
)
check $([ -z "$bad" ] && echo 0 || echo 1) \
  "--summary: a folder named =HYPERLINK(...), +, -, @ is a text cell (a single quote before it), its results graded" "$bad"
echo "# grade e2e: summary $(( $(date +%s) - t0 )) s" >&2
exit $fail
