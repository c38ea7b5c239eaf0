# e2e_lib.sh - sourced by tests/e2e_grade*.sh (from the repository root,
# after `set -u`): the grader call, check, and a report's fields.
# Optimised phase only: the grader (python) builds its own trees from the
# optimised flags' twin; the C it tests is the suite's own, already run
# sanitized in that phase.
if [ "${SANITIZE:-0}" = 1 ]; then
  echo "skip - grade e2e: runs in the optimised phase only"; exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Submission code runs confined only under root; elsewhere the grader is
# told to run it as this user, and the confinement checks are skipped.
if [ "$(id -u)" = 0 ]; then unconfined=(); else unconfined=(--unconfined); fi
source tests/e2e_lib.sh
e2e_begin "grade e2e"
grade() { bin/grade --no-build --quiet ${unconfined[@]+"${unconfined[@]}"} ${grade_opts[@]+"${grade_opts[@]}"} "$@"; }
if [ ! -x bin/grade ] || [ ! -f build/opt/libddl.a ] || [ ! -f build/opt/libgradetape.a ]; then
  echo "not ok - grade e2e: bin/grade or the reference build is missing (make)"; exit 1
fi
# Quick tier (make test; tests/run.sh): code items are graded by a sample
# of tests/grade/tests.txt (bin/grade --tests), every item still graded
# by at least one of its programs. More rank counts run the same record,
# replay and verdict code of the grader with other numbers; the counts
# kept are those where each broken or hostile variant fails:
#   ring: 3 (the including script may set quick_ring first), a count
#     that does not divide the vector (ring_offbyone's); the hostile
#     script's 1, an empty schedule (the forged tape's count);
#   recdoubling 3: a non-power of two, the fold (recdoubling_hang's);
#   group_avg 3: groups smaller than everyone (group_avg_wrong_count's);
#   gather_scatter 2: the smallest count;
#   mpi_ps: none; test_ps_step grades ps_step through the same tape
#     (1-8 workers, momentum, weight decay, Nesterov) in a second.
# make test-full grades every program at every rank count.
quick=0 grade_opts=()
if [ "${DDL_TEST_TIER:-full}" = quick ]; then
  quick=1
  awk 'FNR == NR { keep[$1 " " $2] = $3; next }
       !/^#/ && NF >= 4 && ($1 " " $4) in keep {
         k = keep[$1 " " $4]; if (k == "none") next
         n = split(k, c, ",")
         for (i = 1; i <= n; i++) if (index("," $3 ",", "," c[i] ",") == 0) print $1 " " c[i] > "/dev/stderr"
         $3 = k } { print }' - tests/grade/tests.txt > "$tmp/tests-quick.txt" 2> "$tmp/tests-quick.err" <<SAMPLE
lab2/ring mpi_comm ${quick_ring:-3}
lab2/recdoubling mpi_comm 3
lab3/gather_scatter mpi_sync 2
lab4/group_avg mpi_group_avg 3
lab6/ps_step mpi_ps none
SAMPLE
  check $([ -s "$tmp/tests-quick.err" ] && echo 1 || echo 0) \
    "quick tier: its rank counts are among those tests/grade/tests.txt lists" "not listed: $(tr '\n' ' ' < "$tmp/tests-quick.err")"
  grade_opts=(--tests "$tmp/tests-quick.txt")
fi
# field sub lab item column: a column of the report's row (csv, no commas in the first 5 fields)
field() { awk -F, -v l="$2" -v i="$3" -v c="$4" '$1 == l && $2 == i {print $c}' "$1/grade-report.csv"; }
passed() { field "$1" "$2" "$3" 5; }
reason() { grep "^$2,$3," "$1/grade-report.csv" | cut -d, -f6- | sed 's/^"//; s/"$//'; }
# says sub lab item text name: the check that the item's reason holds text
says() { local r; r=$(reason "$1" "$2" "$3"); check $([[ $r == *"$4"* ]] && echo 0 || echo 1) "$5" "$r"; }
