#!/usr/bin/env bash
# ddl-test-pass: optimised: shell logic with a stand-in lab and stand-in Slurm commands; no C runs
# e2e_launch_slurm_msgs.sh - what a lab says under Slurm, without Slurm:
#   1. a second run of a lab while a first holds its lock, both "in" Slurm
#      jobs (SLURM_JOB_ID set): the refusal names the first's Slurm job and
#      node, not a bare pid that may be another node's;
#   2. the requeue after Slurm's warning (launch_requeue, a stand-in
#      scontrol) promises a resume only from the lab's own checkpoints:
#      lab2 beside lab3's checkpoints promises none; lab3 its own; a run
#      stopped before its first step (status 4) says it has no checkpoint.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "launch slurm messages"
w=$tmp/w
mkdir -p "$w/sb"
stand_in_lab "$w" 'one job that waits until its file $HOLD is removed.' <<'LAB'
lab_single sh -c 'while [ -e "$HOLD" ]; do sleep 0.1; done'
lab_commit
LAB
unset LAB_ARRAY_TASK LAB_ARRAY_ID LAB_ARRAY_MERGE RESULTS NP SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID DRY_RUN

# --- 1. the lock's holder ----------------------------------------------------------------
export HOLD=$tmp/hold
: > "$HOLD"
(cd "$w" && exec env SLURM_JOB_ID=4242 SLURMD_NODENAME=node-a labs/lab1/run.sh) > "$tmp/first.out" 2>&1 &
first=$!
for _ in $(seq 200); do [ -s "$w/results/.lab1.lock.slurm" ] && break; sleep 0.1; done
out=$(cd "$w" && env SLURM_JOB_ID=4243 SLURMD_NODENAME=node-b labs/lab1/run.sh 2>&1); st=$?
echo "$out" | sed 's/^/# /'
check $(all '[ "$st" = 2 ] && grep -q "already running (Slurm job 4242 on node node-a" <<<"$out"') \
  "a second run under Slurm names the Slurm job and node that hold the lock" "status $st: $out"
rm -f "$HOLD"
wait "$first"; s1=$?
check $(all '[ "$s1" = 0 ] && [ ! -e "$w/results/.lab1.lock.slurm" ]') "the first run ends well and leaves no note of its job" \
  "status $s1: $(tail -2 "$tmp/first.out")"
out=$(cd "$w" && : > "$HOLD" && (sleep 1; rm -f "$HOLD") & cd "$w" && labs/lab1/run.sh 2>&1); st=$?
check $(is "$st" 0) "outside Slurm a run still takes the lock" "status $st: $out"

# --- 2. the requeue's promise --------------------------------------------------------------
fn() { sed -n "/^$1() {/,/^}/p" labs/launch.sh; }
printf '#!/bin/sh\n# a stand-in scontrol: the requeue ends the batch shell, as Slurm does\nkill -TERM "$STOP_PID"\n' > "$w/sb/scontrol"
chmod +x "$w/sb/scontrol"
requeue() { # lab checkpoint-root status
  local code
  code=$(echo 'note() { echo "[$LAB_NAME] $*" >&2; }'; fn launch_resume_hint; fn launch_requeue_what; fn launch_requeue
         echo 'export STOP_PID=$$; launch_requeue "$1"')
  PATH=$w/sb:$PATH LAB_NAME=$1 DDL_CHECKPOINT_ROOT=$2 SLURM_JOB_ID=812 timeout 20 bash -c "$code" _ "$3" 2>&1
}
mkdir -p "$tmp/ck/lab3-table1-2a/scope"
echo "batch: 3" > "$tmp/ck/lab3-table1-2a/scope/checkpoint.txt"
out=$(requeue lab2 "$tmp/ck" 3)
check $(all 'grep -q "requeueing Slurm job 812" <<<"$out" && ! grep -q "continue from the checkpoints\|continues from" <<<"$out" && grep -q "lab2 has no checkpoint" <<<"$out"') \
  "lab2's requeue beside lab3's checkpoints promises no resume" "$out"
out=$(requeue lab3 "$tmp/ck" 3)
check $(all 'grep -q "continue from lab3.s checkpoints in $tmp/ck" <<<"$out"') "lab3's requeue names its own checkpoints" "$out"
out=$(requeue lab3 "$tmp/empty" 4)
check $(all 'grep -q "before its first step, with no checkpoint yet" <<<"$out" && ! grep -q "continues from" <<<"$out"') \
  "a run stopped before its first step (status 4) is requeued without a promise" "$out"
exit $fail
