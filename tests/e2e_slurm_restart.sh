#!/usr/bin/env bash
# ddl-test-pass: optimised: the launch layer's restarts under Slurm; the C code it restarts runs under the sanitizers in e2e_resume
# e2e_slurm_restart.sh - a rank lost and the job restarted inside its
# allocation (labs/slurm/lab3.sbatch --max-restarts 1, labs/launch.sh), on
# the one-node cluster labs/slurm/cluster.sh starts: lab3's Task 2b (the
# allreduce, 2 ranks, smoke settings, 64 steps) as an array task would run
# it; once its first checkpoint exists, rank 1's process is killed
# (SIGKILL). The job must end COMPLETED without a requeue, its log and
# results/.../restarts.txt must record one restart, and its losses (the
# timed steps', the test loss and accuracy) must be bit for bit those of
# the same job never disturbed. The cluster is this test's own.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "slurm restart"
e2e_slurm_job_cluster "slurm restart"; case $? in 0) ;; 1) exit 0 ;; *) exit 1 ;; esac
submit() { # array id [script options]: lab3's Task 2b at 2 ranks
  local id=$1; shift
  (cd "$work" && sbatch --parsable --ntasks-per-node=2 --time=5 -o "$tmp/job$id.out" \
     --export=ALL,LAB3_SMOKE=1,LAB3_SMOKE_ITERS=64,LAB_ARRAY_TASK=3,LAB_ARRAY_ID=$id labs/slurm/lab3.sbatch "$@")
}
job=$(submit 1 --max-restarts 1)
ck=$work/results/lab3.array-1/task-3/checkpoints
for _ in $(seq 600); do ls "$ck"/*/checkpoint.txt > /dev/null 2>&1 && break; sleep 0.2; done
pid=$(rank_pid "$job" 1)
check $(all '[ -n "$pid" ]') "rank 1 of job $job runs (pid ${pid:-?}) once its first checkpoint exists" "$(state "$job")"
[ -n "$pid" ] && kill -KILL "$pid"
ref=$(submit 2)
for _ in $(seq $(( E2E_SLURM_WAIT * 5 ))); do
  case "$(state "$job")/$(state "$ref")" in COMPLETED/COMPLETED|*FAILED*|*CANCELLED*|*TIMEOUT*) break ;; esac; sleep 0.2
done
r=$work/results/lab3.array-1/task-3
grep -E "killed|exited with|restart [0-9]" "$tmp/job1.out" | head -4 | sed 's/^/# /'
check $(all '[ "$(state "$job")" = COMPLETED ] && [ "$(restarts "$job")" = 0 ] && grep -q "restart 1 of 1 (--max-restarts) inside Slurm job $job" "$tmp/job1.out" && grep -qx "# restarts: 1" "$r/restarts.txt"') \
  "the job whose rank was killed restarts inside its allocation, ends COMPLETED without a requeue, and its log and restarts.txt say so" \
  "job $job: $(state "$job"), requeues $(restarts "$job"): $(grep -E "restart|exited|error" "$tmp/job1.out" | head -4)"
a=$r/task2b b=$work/results/lab3.array-2/task-3/task2b
losses() { echo "$(col "$1-iters.csv" loss 2>/dev/null | tr '\n' ' ')$(col "$1-summary.csv" test_loss 2>/dev/null)/$(col "$1-summary.csv" test_accuracy 2>/dev/null)"; }
la=$(losses "$a") lb=$(losses "$b")
check $(all '[ "$(col "$a-iters.csv" loss 2>/dev/null | wc -l)" -ge 3 ] && [ "$la" = "$lb" ]') \
  "its losses are bit for bit those of the job never disturbed" "restarted '$la', never '$lb' (job $ref: $(state "$ref"))"
exit $fail
