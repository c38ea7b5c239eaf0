#!/usr/bin/env bash
# e2e_preempt_start.sh - Slurm's signals from a program's very start
# (core/platform/threads.c, ddl_program_start; core/driver/preempt.c), in
# jobs that checkpoint on them (DDL_CHECKPOINT_ON_USR1=1, as the
# labs/slurm scripts set), on lab3's Task 1 at one rank, without Slurm:
#   1. SIGUSR1 and SIGTERM are blocked from the start (seen in
#      /proc/PID/status while MPI starts), and either, sent then, ends the
#      run with "no checkpoint yet" and status 4, leaving no checkpoint;
#   2. SIGTERM in the middle of the training checkpoints at the end of the
#      current step (status 3, "SIGTERM ... checkpoint at batch N"), as
#      SIGUSR1 does; resumed (DDL_RESUME=1), the run's losses, test loss
#      and accuracy are bit for bit those of a run never stopped.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "preempt start"
e2e_need "$BIN/lab3"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset DDL_RESUME DDL_CHECKPOINT_ROOT
lab3() { # out ckpt-root iters: Task 1 of lab3's smoke settings, in the background
  DDL_CHECKPOINT_ON_USR1=1 DDL_CHECKPOINT_ROOT=$2 "$BIN/lab3" run --seed 1 --device cpu --profile quick --out "$1" \
    --quiet --width 0.125 --limit 1024 --test-limit 128 --synthetic --sync none --batch 256 --task 1 \
    --series task --tag task1 --iters "$3" --timed 3 > "$1.log" 2>&1 &
}
# sigblk PID: its main thread's blocked signals (hex), once it has exec'd
sigblk() {
  local k v name= blk=0
  while read -r k v; do
    case $k in Name:) name=$v ;; SigBlk:) blk=$v ;; esac
  done < "/proc/$1/status"
  [ "$name" = lab3 ] && echo "$blk"
}
# blocked PID: 0 once the program blocks SIGUSR1 and SIGTERM in its main
# thread, still 20 ms later (glibc blocks every signal for an instant
# while it starts a thread), 1 if it does not within 10 s; either way
# only once it has exec'd, so that a signal reaches the program, not
# this shell's fork of it.
blocked() {
  local b end=$(( SECONDS + 10 ))
  while [ -e "/proc/$1" ] && [ "$SECONDS" -lt "$end" ]; do
    b=$(sigblk "$1") && (( (16#$b & 0x4200) == 0x4200 )) || continue
    sleep 0.02
    b=$(sigblk "$1") && (( (16#$b & 0x4200) == 0x4200 )) && return 0
  done
  while [ -e "/proc/$1" ] && ! sigblk "$1" > /dev/null 2>&1; do sleep 0.01; done
  return 1
}

# --- 1. before the first step ---------------------------------------------------------
for sig in USR1 TERM; do
  d=$tmp/start-$sig
  lab3 "$d" "$d/ck" 16; pid=$!
  blocked "$pid"; b=$?
  kill -"$sig" "$pid" 2>/dev/null
  wait "$pid"; st=$?
  check $(all '[ "$b" = 0 ] && [ "$st" = 4 ] && grep -q "SIG$sig before the first training step: no checkpoint yet" "$d.log" && ! ls "$d"/ck/*/checkpoint.txt > /dev/null 2>&1') \
    "SIG$sig at the start (blocked while MPI starts: $([ "$b" = 0 ] && echo yes || echo no)): no checkpoint yet, status 4" \
    "status $st: $(tail -2 "$d.log")"
done

# --- 2. SIGTERM mid-training, then the resume ---------------------------------------------
iters=120
ref=$tmp/ref
lab3 "$ref" "$ref/ck" "$iters"; wait $!; sr=$?
d=$tmp/term
lab3 "$d" "$d/ck" "$iters"; pid=$!
# The checkpoint's lock is claimed as the training loop starts.
for _ in $(seq 300); do [ -e "$d/ck/lab3-task1/checkpoint.lock" ] && break; sleep 0.05; done
sleep 0.5
kill -TERM "$pid"
wait "$pid"; st=$?
n=$(sed -n 's/.*SIGTERM (Slurm ending or preempting the job): checkpoint at batch \([0-9]*\).*/\1/p' "$d.log")
check $(all '[ "$sr" = 0 ] && [ "$st" = 3 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -lt "$iters" ]') \
  "SIGTERM mid-training: a checkpoint at the end of the current step (batch ${n:-?} of $iters), status 3" \
  "status $st (reference $sr): $(tail -3 "$d.log")"
mv "$d.log" "$d.first.log"
DDL_RESUME=1 lab3 "$d" "$d/ck" "$iters"; wait $!; s2=$?
losses() { echo "$(col "$1/task1-iters.csv" loss 2>/dev/null | tr '\n' ' ')$(col "$1/task1-summary.csv" test_loss 2>/dev/null)/$(col "$1/task1-summary.csv" test_accuracy 2>/dev/null)"; }
la=$(losses "$d") lb=$(losses "$ref")
check $(all '[ "$s2" = 0 ] && grep -q "resumed from" "$d.log" "$d"/task1-summary.csv && [ "$(col "$ref/task1-iters.csv" loss | wc -l)" -ge 3 ] && [ "$la" = "$lb" ]') \
  "resumed, its losses, test loss and accuracy are bit for bit those of a run never stopped" \
  "status $s2: resumed '$la', never stopped '$lb': $(tail -2 "$d.log")"
exit $fail
