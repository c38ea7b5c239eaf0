#!/usr/bin/env bash
# ddl-test-pass: optimised: the grader is Python and grades with the optimised reference build (build/opt), whatever the pass
# e2e_grade_lock.sh - two graders started at once on one submission folder
# (bin/grade, labs/grade/README.md): one grades it (full marks, its
# report), the other says the folder is being graded, grades nothing and
# exits non-zero; the report is whole (every item of the one that
# graded). Then, the first one done, a grader of the same folder by
# another path (a link to its parent) grades it again: the lock is gone
# with its holder, and so is its file.
set -u
cd "$(dirname "$0")/.."
. tests/grade/e2e_lib.sh
t0=$(date +%s)
s=$tmp/subs/alice
mkdir -p "$s/labs/lab5/exercises" "$s/results"
cp core/util/half_round.c "$s/labs/lab5/exercises/fp16_round.c"
cp core/sync/fedavg_aggregate.c "$s/labs/lab5/exercises/"
cp -r tests/grade/results/lab5 "$s/results/"
grade "$s" > "$tmp/a.out" 2> "$tmp/a.err" &
a=$!
grade "$s" > "$tmp/b.out" 2> "$tmp/b.err" &
b=$!
wait $a; ra=$?
wait $b; rb=$?
busy=$(cat "$tmp/a.out" "$tmp/b.out" | grep -c "not graded: being graded by another grader")
full=$(cat "$tmp/a.out" "$tmp/b.out" | grep -c ": 60/60 points")
check $([ "$busy" = 1 ] && [ "$full" = 1 ] && [ $((ra + rb)) = 1 ] && echo 0 || echo 1) \
  "two graders at once on one folder: one grades it (60/60, exit 0), the other says it is being graded (exit 1)" \
  "exit $ra, $rb; $(cat "$tmp/a.out" "$tmp/b.out" "$tmp/a.err" "$tmp/b.err" | grep -v "^#" | head -c 800)"
check $(! grep -q "Traceback\|Error" "$tmp/a.err" "$tmp/b.err" && [ "$(awk -F, 'NR > 1 && $5 == "yes"' "$s/grade-report.csv" | wc -l)" = 5 ] &&
  echo 0 || echo 1) "no traceback, and the report is whole: every item passed" "$(cat "$s/grade-report.csv")"
ln -s "$tmp/subs" "$tmp/linked"
grade "$tmp/linked/alice" > "$tmp/c.out" 2>&1
check $([ $? = 0 ] && grep -q ": 60/60 points" "$tmp/c.out" && echo 0 || echo 1) \
  "the first done, the folder is graded again (by another path to it)" "$(tail -3 "$tmp/c.out")"
id=$(stat -c %d-%i "$s")
check $([ ! -e "build/opt/grade/locks/$id.lock" ] && echo 0 || echo 1) "the lock's file is gone with its last holder"
echo "# grade e2e: lock $(( $(date +%s) - t0 )) s" >&2
exit $fail
