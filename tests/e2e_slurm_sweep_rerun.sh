#!/usr/bin/env bash
# ddl-test-pass: optimised: labs/slurm/sweep.sh, the sbatch script and Slurm; the lab is a stand-in, no C runs
# e2e_slurm_sweep_rerun.sh - a sweep with a failed task on a one-node
# Slurm cluster (labs/slurm/cluster.sh), in a temporary tree with a
# stand-in lab1 (three one-line jobs, the real labs/common.sh,
# labs/launch.sh, labs/slurm/sweep.sh and lab1.sbatch):
#   1. sweep.sh lab1 with job 2 failing: task 2 fails, says so in its log
#      ddlab-lab1-<array>_2.out, and the merge job ends at once
#      (CANCELLED, DependencyNeverSatisfied), not pending for ever; the
#      array's folder holds tasks 1 and 3, and nothing was merged;
#   2. sweep.sh --rerun-failed <array>: an array of task 2 alone, then the
#      merge: both COMPLETED, results/lab1 holds all three jobs' outputs
#      and the array's folder is gone.
# The cluster is this test's own, stopped at exit.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "slurm sweep rerun"
e2e_slurm_check "slurm sweep rerun" || exit 0
e2e_need bin/lab1
repo=$PWD
unset NET HOSTS PLATFORM LAUNCH NODES SLURM_JOB_ID SLURM_CONF NP RESULTS LAB_ARRAY_TASK LAB_ARRAY_ID LAB_ARRAY_MERGE FAIL_JOB DDL_SLURM_CPUS
w=$tmp/w
stand_in_sweep_lab "$w" 3
ln -s "$repo/bin" "$w/bin" # lab1.sbatch checks that bin/lab1 is built
e2e_slurm_up || exit 1
# The stand-in's jobs take one CPU: asked for through sweep.sh's sbatch
# options, so that a site's node with fewer than lab1.sbatch's 8 runs them.
one_cpu=(--cpus-per-task=1)
state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\) Reason=\([^ ]*\).*/\1 \2/p' | head -1; }
ended() { # job...: 0 once none is PENDING, RUNNING or COMPLETING (at most 180 s)
  local j s i
  for (( i = 0; i < E2E_SLURM_WAIT * 5; i++ )); do
    s=
    for j; do s+=$(state "$j")" "; done
    case "$s" in *PENDING*|*RUNNING*|*COMPLETING*|*CONFIGURING*) sleep 0.2 ;; *) return 0 ;; esac
  done
  return 1
}

# --- 1. a failed task ----------------------------------------------------------------
read -r arr merge < <(cd "$w" && FAIL_JOB=2 labs/slurm/sweep.sh lab1 "${one_cpu[@]}" 2> "$tmp/sweep1.err")
check $(all '[ -n "${arr:-}" ] && [ -n "${merge:-}" ]') "sweep.sh lab1 submits the array and its merge" "$(cat "$tmp/sweep1.err")"
ended "$arr"_1 "$arr"_2 "$arr"_3 "$merge"; e=$?
check $(all '[ "$e" = 0 ] && [ "$(state "$arr"_2)" != "COMPLETED None" ] && [ "$(state "$merge")" = "CANCELLED DependencyNeverSatisfied" ]') \
  "task 2 fails and the merge job ends at once (CANCELLED, DependencyNeverSatisfied)" \
  "task 2: $(state "$arr"_2), merge: $(state "$merge")"
log=$w/ddlab-lab1-${arr}_2.out
check $(all 'grep -q "task 2 did not finish.*--rerun-failed $arr" "$log"') "task 2's log is ddlab-lab1-${arr}_2.out and names it" \
  "$(ls "$w"/*.out 2>&1 | tr '\n' ' '): $(tail -3 "$log" 2>&1)"
check $(all '[ -f "$w/results/lab1.array-$arr/task-1/job1.csv" ] && [ -f "$w/results/lab1.array-$arr/task-3/job3.csv" ] && [ ! -e "$w/results/lab1/table.txt" ]') \
  "the array's folder keeps tasks 1 and 3; nothing was merged" "$(ls -R "$w/results" 2>&1 | head -20 | tr '\n' ' ')"

# --- 2. --rerun-failed -----------------------------------------------------------------
read -r arr2 merge2 < <(cd "$w" && labs/slurm/sweep.sh --rerun-failed "$arr" "${one_cpu[@]}" 2> "$tmp/sweep2.err")
check $(all '[ -n "${arr2:-}" ] && grep -q "reruns task(s) 2 of $arr" "$tmp/sweep2.err"') "--rerun-failed $arr: an array of task 2 alone" \
  "$(cat "$tmp/sweep2.err")"
ended "$arr2"_2 "$merge2"; e=$?
got=$(cat "$w"/results/lab1/job*.csv 2>/dev/null | tr '\n' ' ')
check $(all '[ "$e" = 0 ] && [ "$(state "$arr2"_2)" = "COMPLETED None" ] && [ "$(state "$merge2")" = "COMPLETED None" ] && [ "$got" = "job,1 job,2 job,3 " ] && [ -f "$w/results/lab1/table.txt" ] && [ ! -e "$w/results/lab1.array-$arr" ]') \
  "the rerun and its merge complete: all three jobs merged, the array's folder removed" \
  "rerun: $(state "$arr2"_2), merge: $(state "$merge2"), merged '$got': $(tail -3 "$w"/ddlab-lab1-merge-*.out 2>&1)"
exit $fail
