#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade_bounds.sh - one large results file must not starve the run
# (bin/grade, labs/grade/README.md, "What the grader reads"): a
# submission whose results/lab5 holds, beside right results, a CSV of
# 256 MiB (the largest file the grader reads at all) of 67 million short
# rows, and one of 12 MiB (under the size bound) of 3 million rows, is
# graded in under 60 s, the grader and everything it started using
# under 512 MB at most (max RSS, /usr/bin/time -v), its logs under 1 MB,
# its results items scored 0 with the files named; the right submission
# graded after it in the same call gets full marks (60/60).
# (A 20 MB CSV of 5.2 million rows once took 7 min 37 s, 2.3 GB of
# memory and wrote 1.07 GB of logs.)
set -u
cd "$(dirname "$0")/.."
. tests/grade/e2e_lib.sh
t0=$(date +%s)
big=$tmp/subs/big good=$tmp/subs/good
for s in "$big" "$good"; do mkdir -p "$s/results" && cp -r tests/grade/results/lab5 "$s/results/"; done
mkdir -p "$good/labs/lab5/exercises"
cp core/util/half_round.c "$good/labs/lab5/exercises/fp16_round.c"
cp core/sync/fedavg_aggregate.c "$good/labs/lab5/exercises/"
# Rows of two short fields after a ddlab metadata block: written in 4 MiB
# blocks, the 256 MiB one to exactly the walk's bound (larger is refused
# unread).
python3 - "$big/results/lab5" <<'PY'
import sys
d = sys.argv[1]
head = b"# program: lab5\n# git: 0\nstep,ms\n"
block = b"1,2\n" * (1 << 20)
for name, size in (("huge-iters.csv", 256 << 20), ("long-iters.csv", 12 << 20)):
    with open(f"{d}/{name}", "wb") as f:
        f.write(head)
        left = size - len(head)
        while left:
            n = min(left, len(block))
            f.write(block[:n])
            left -= n
PY
check $([ "$(stat -c %s "$big/results/lab5/huge-iters.csv")" = $((256 << 20)) ] && echo 0 || echo 1) \
  "a results file of 256 MiB (67 million rows) and one of 12 MiB (3 million) are made"
# Bounded here too, so that a grader without bounds fails this test
# rather than the suite's time.
timeout -s KILL 300 /usr/bin/time -v -o "$tmp/time" bin/grade --no-build --quiet ${unconfined[@]+"${unconfined[@]}"} \
  ${grade_opts[@]+"${grade_opts[@]}"} --labs lab5 "$big" "$good" > "$tmp/out" 2> "$tmp/err"
rc=$?
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print int(s + 0.5)}' "$tmp/time" 2>/dev/null)
rss=$(awk -F': ' '/Maximum resident set size/ {print int($2 / 1024)}' "$tmp/time" 2>/dev/null)
logs=$(du -sk "$big/.grade" 2>/dev/null | cut -f1)
echo "# grade e2e: bounds: graded in ${wall:-?} s, max RSS ${rss:-?} MB, the large submission's logs ${logs:-?} KiB" >&2
check $([ -n "$wall" ] && [ "$wall" -lt 60 ] && [ -n "$rss" ] && [ "$rss" -lt 512 ] && echo 0 || echo 1) \
  "256 MiB and 12 MiB results files: graded in under 60 s (${wall:-killed} s) and 512 MB (${rss:-?} MB max RSS)" "rc $rc"
check $([ -n "$logs" ] && [ "$logs" -lt 1024 ] && echo 0 || echo 1) "its logs stay under 1 MB (${logs:-?} KiB)"
r=$(reason "$big" lab5 metadata)
check $([ "$(passed "$big" lab5 metadata)" = no ] && [[ $r == *huge-iters.csv* ]] && echo 0 || echo 1) \
  "the large submission's results items score 0, the file named" "$(passed "$big" lab5 metadata): $r"
check $(grep -q "^$good: 60/60 points" "$tmp/out" && echo 0 || echo 1) \
  "the right submission graded after it in the same call: full marks" "$(cat "$tmp/out" "$tmp/err" | tail -5)"
rm -f "$big/results/lab5/"*-iters.csv
echo "# grade e2e: bounds $(( $(date +%s) - t0 )) s" >&2
exit $fail
