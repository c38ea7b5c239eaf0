#!/usr/bin/env bash
# ddl-test-pass: optimised: the batch scripts' shell and Slurm; the C code they start runs under the sanitizers in e2e_preempt_start and e2e_resume
# e2e_slurm_preempt.sh - Slurm's signals at the worst moments, on the
# one-node cluster labs/slurm/cluster.sh starts, with lab3.sbatch's Task 1
# (smoke settings, 32 steps) run as an array task would run it:
#   1. Slurm's warning (scancel --signal=USR1 --batch) while the rank is
#      still starting (its SIGUSR1 and SIGTERM seen blocked, before MPI_Init
#      returns): "no checkpoint yet", the job requeues itself without
#      promising a resume, and ends COMPLETED after 1 requeue;
#   2. a preemption's SIGTERM (scontrol requeue) in the middle of the
#      training: a checkpoint at the end of the current step, and the
#      requeued job resumes from that step and ends COMPLETED;
# each with the losses (the timed steps', the test loss and accuracy) of
# the same job never disturbed. The cluster is this test's own.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "slurm preempt"
e2e_slurm_job_cluster "slurm preempt"; case $? in 0) ;; 1) exit 0 ;; *) exit 1 ;; esac
submit() { # array id: lab3's Task 1
  (cd "$work" && sbatch --parsable --ntasks-per-node=2 --time=5 -o "$tmp/job$1.out" \
     --export=ALL,LAB3_SMOKE=1,LAB3_SMOKE_ITERS=32,LAB_ARRAY_TASK=1,LAB_ARRAY_ID=$1 labs/slurm/lab3.sbatch)
}
# The pid of JOB's lab3 process once its main thread blocks SIGUSR1 and
# SIGTERM (its name, environment and SigBlk, read from /proc), within 30 s.
# It is this test's by its environment: this cluster's slurm.conf (a path
# of this test's folder) and the job's id, not by its name, which another
# run's lab3 shares. The window is MPI's start-up: polled with the shell's
# own reads.
blocked_rank() {
  local p i k v blk comm
  for (( i = 0; i < 3000; i++ )); do
    for p in /proc/[0-9]*; do
      { read -r comm < "$p/comm"; } 2>/dev/null && [ "$comm" = lab3 ] || continue
      p=${p#/proc/}
      grep -qzxF "SLURM_CONF=$SLURM_CONF" "/proc/$p/environ" 2>/dev/null || continue
      grep -qzx "SLURM_JOB_ID=$1" "/proc/$p/environ" 2>/dev/null || continue
      blk=0
      { while read -r k v; do [ "$k" = SigBlk: ] && blk=$v; done < "/proc/$p/status"; } 2>/dev/null
      (( (16#$blk & 0x4200) == 0x4200 )) && { echo "$p"; return 0; }
    done
    sleep 0.01
  done
  return 1
}
finish() { # job...: until each is COMPLETED or has failed (at most E2E_SLURM_WAIT s)
  local i s j
  for (( i = 0; i < E2E_SLURM_WAIT * 5; i++ )); do
    s=; for j; do s+=$(state "$j")/; done
    case "$s" in *FAILED*|*CANCELLED*|*TIMEOUT*) return 1 ;; esac
    [ "$s" = "$(printf 'COMPLETED/%.0s' "$@")" ] && return 0
    sleep 0.2
  done
  return 1
}
losses() { echo "$(col "$1-iters.csv" loss 2>/dev/null | tr '\n' ' ')$(col "$1-summary.csv" test_loss 2>/dev/null)/$(col "$1-summary.csv" test_accuracy 2>/dev/null)"; }

ref=$(submit 9)
# --- 1. the warning before the first step -----------------------------------------------
job=$(submit 1)
pid=$(blocked_rank "$job")
[ -n "$pid" ] || { echo "# job $job: $(state "$job"); $(squeue 2>&1 | tail -3); $(tail -5 "$tmp/job1.out")"; }
check $(all '[ -n "$pid" ]') "job $job's rank starts with SIGUSR1 and SIGTERM blocked" "$(state "$job")"
scancel --signal=USR1 --batch "$job"
finish "$job" "$ref"
grep -E "no checkpoint yet|requeueing|resumed" "$tmp/job1.out" | head -4 | sed 's/^/# /'
check $(all '[ "$(state "$job")" = COMPLETED ] && [ "$(restarts "$job")" = 1 ] && grep -q "SIGUSR1 before the first training step: no checkpoint yet" "$tmp/job1.out" && grep -q "requeueing Slurm job $job: the run in progress stopped before its first step, with no checkpoint yet" "$tmp/job1.out"') \
  "the warning before the first step: no checkpoint yet, requeued without a promise, COMPLETED after 1 requeue" \
  "job $job: $(state "$job"), requeues $(restarts "$job"): $(grep -E "SIGUSR1|requeue|error" "$tmp/job1.out" | head -4)"
la=$(losses "$work/results/lab3.array-1/task-1/task1") lb=$(losses "$work/results/lab3.array-9/task-1/task1")
check $(all '[ -n "${lb%/}" ] && [ "$la" = "$lb" ]') "its losses are those of the job never disturbed" "'$la' against '$lb'"

# --- 2. a preemption's SIGTERM mid-training ------------------------------------------------
job=$(submit 2)
ck=$work/results/lab3.array-2/task-1/checkpoints
for _ in $(seq 600); do ls "$ck"/*/checkpoint.txt > /dev/null 2>&1 && break; sleep 0.1; done
scontrol requeue "$job"
finish "$job"
grep -E "SIGTERM|resumed from" "$tmp/job2.out" | head -4 | sed 's/^/# /'
check $(all '[ "$(state "$job")" = COMPLETED ] && [ "$(restarts "$job")" = 1 ] && grep -q "SIGTERM (Slurm ending or preempting the job): checkpoint at batch" "$tmp/job2.out" && grep -q "resumed from .* at batch [1-9]" "$tmp/job2.out"') \
  "a preemption's SIGTERM mid-training: a checkpoint at the end of the step, resumed from it, COMPLETED after 1 requeue" \
  "job $job: $(state "$job"), requeues $(restarts "$job"): $(grep -E "SIGTERM|resumed|error" "$tmp/job2.out" | head -4)"
la=$(losses "$work/results/lab3.array-2/task-1/task1")
check $(all '[ -n "${lb%/}" ] && [ "$la" = "$lb" ]') "its losses are those of the job never disturbed" "'$la' against '$lb'"
exit $fail
