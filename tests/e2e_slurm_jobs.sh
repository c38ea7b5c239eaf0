#!/usr/bin/env bash
# e2e_slurm_jobs.sh - the batch scripts as a user runs them
# (labs/slurm/README.md), on the one-node cluster labs/slurm/cluster.sh
# starts by default (8 CPUs declared on whatever this machine has, nothing
# bound: TaskPlugin=task/none):
#   1. every labs/slurm/labN.sbatch passes sbatch --test-only;
#   2. srun -n 1 -c 1 takes one thread with the whole node in its mask;
#      "oversubscribed" and mpi_yield_when_idle agree, from one rule;
#   3. a lab2 cancelled after some jobs keeps their outputs in
#      results/lab2.partial and promises no checkpoint;
#   4. a lab3 job warned with SIGUSR1 (what --signal=B:USR1@120 sends)
#      checkpoints at its next step, requeues itself, resumes, ends
#      COMPLETED after one requeue with the losses of a job never warned,
#      and its outputs say it was resumed and from where; in the full tier
#      also a job with a real time limit, warned by Slurm itself;
#   5. every command line of the README's ```sh blocks, as written, in a
#      folder of its own (links to this checkout; the cluster's folder
#      /tmp/ddl-slurm becomes this test's): each exits 0, and every batch
#      job it submits ends COMPLETED. The labs run in their smoke settings
#      (LAB2_SMOKE, LAB3_SMOKE in the environment the lines inherit).
#      This runs the one-machine example end to end (cluster up, make lab3
#      LAUNCH=slurm, sbatch --wait lab2.sbatch, squeue, down) and
#      labs/slurm/sweep.sh lab3 (an array of one task per run, and the
#      dependent job that merges and draws: its figure must exist).
# Quick tier (DDL_TEST_TIER=quick): the README's RESUME=1 resubmission of
# lab3 (the resume of finished runs that e2e_slurm and e2e_resume check)
# and its NET=1gbit HOSTS=2 line (e2e_slurm step 7 runs that command) are
# left to make test-full, and sweep.sh runs lab3's array at NP=2 (12
# tasks) rather than the script's 4 (20).
# ddl-test-pass: optimised: the batch scripts' shell and Slurm; the C code they start runs under the sanitizers in e2e_slurm and e2e_resume
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
source tests/e2e_lib.sh
e2e_begin "slurm jobs e2e"
e2e_lab_env NET HOSTS PLATFORM LAUNCH NODES SLURM_JOB_ID SLURM_CONF NP RESULTS FIGURES TABLES DDL_SLURM_CPUS
CLUSTER=$tmp/cluster
trap 'labs/slurm/cluster.sh down "$CLUSTER" --quiet 2>/dev/null; rm -rf "$tmp"' EXIT
quick=0
if [ "${DDL_TEST_TIER:-full}" = quick ]; then
  quick=1
  echo "# quick tier: the README's RESUME=1 resubmission and its NET= line left to make test-full; lab3's array at NP=2"
fi
if ! why=$(labs/slurm/cluster.sh check); then
  echo "skip - slurm jobs e2e: $why"
  exit 0
fi
# A job's state and restarts (e2e_lib.sh's state and restarts) are known
# while Slurm remembers the job (MinJobAge, 300 s).
drain() { # at most N seconds until the queue is empty
  for _ in $(seq $(( $1 * 2 ))); do [ -z "$(squeue -h 2>/dev/null)" ] && return 0; sleep 0.5; done
  return 1
}

eval "$(labs/slurm/cluster.sh up "$CLUSTER" 2> "$tmp/up.err")"
check $(all '[ -n "${SLURM_CONF:-}" ] && [ "$(sinfo -h -N -o %c)" -ge 8 ] && grep -q "^TaskPlugin=task/none" "$SLURM_CONF"') \
  "the default one-node cluster declares 8 CPUs (or more), and binds nothing" "$(tail -2 "$tmp/up.err")"
[ -n "${SLURM_CONF:-}" ] || exit 1
cpus=$(env -u OMP_NUM_THREADS nproc)

# --- 1. every script fits -----------------------------------------------------------
for s in labs/slurm/lab*.sbatch; do
  out=$(sbatch --test-only "$s" 2>&1)
  check $(all 'grep -q "to start at" <<<"$out"') "sbatch --test-only $s" "$out"
done

# --- 2. threads and oversubscription under task/none --------------------------------
one=(--model cnn3 --dataset mnist --synthetic --width 0.25 --limit 64 --test-limit 16 --batch 16 --iters 1 --quiet)
env -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS timeout 120 srun --mpi=pmix -n 1 -c 1 "$BIN/lab1" "${one[@]}" \
  --out "$tmp/c1" > /dev/null 2> "$tmp/c1.err"
st=$?
s1=$(ls "$tmp"/c1/*.csv 2>/dev/null | head -1)
check $(all '[ "$st" = 0 ] && [ -n "$s1" ] && [ "$(meta "$s1" threads)" = 1 ] && [ "$(meta "$s1" cpus_allowed)" = "$cpus" ]') \
  "srun -n 1 -c 1 without binding: 1 thread, with all $cpus CPUs in its mask" \
  "status $st, threads '$(meta "${s1:-/dev/null}" threads)', cpus_allowed '$(meta "${s1:-/dev/null}" cpus_allowed)': $(tail -1 "$tmp/c1.err")"
for np in $(( cpus + 1 )) "$cpus"; do
  timeout 120 srun --mpi=pmix -n "$np" -c 1 "$BIN/lab2" bench --sizes 4096 --algs ring --reps 2 --no-calibrate --quiet \
    --out "$tmp/over$np" > /dev/null 2> "$tmp/over$np.err"
  st=$?
  csv=$tmp/over$np/bench-np$np.csv
  if [ "$np" -gt "$cpus" ]; then want=yes/1; else want=no/0; fi
  got=$(meta "$csv" oversubscribed)/$(meta "$csv" mpi_yield_when_idle)
  check $(all '[ "$st" = 0 ] && [ "$got" = "$want" ]') \
    "srun -n $np on $cpus CPUs (8 declared): oversubscribed and yielding agree ($want)" "status $st, got $got"
done

# --- 3. a cancelled lab2 keeps what finished ------------------------------------------
R=$tmp/l2
LAUNCH=slurm NP=2 LAB2_SMOKE=1 BIN=$BIN RESULTS=$R FIGURES=$tmp/f2 TABLES=$tmp/t2 labs/lab2/run.sh > "$tmp/l2.log" 2>&1 &
lab=$!
for _ in $(seq 600); do
  [ "$(cat "$R.tmp/.finished" 2>/dev/null | wc -l)" -ge 2 ] && break
  kill -0 "$lab" 2>/dev/null || break
  sleep 0.1
done
jobid=$(squeue -h -o %i 2>/dev/null | head -1)
[ -n "$jobid" ] && scancel "$jobid"
wait "$lab"
st=$?
kept=$(ls "$R.partial" 2>/dev/null | tr '\n' ' ')
check $(all '[ -n "$jobid" ] && [ "$st" != 0 ] && [ -s "$R.partial/bench-np2.csv" ] && [ ! -e "$R.tmp" ] && [ ! -e "$R.partial/.finished" ]') \
  "a cancelled lab2 keeps the finished jobs' outputs in results/lab2.partial" "status $st, kept: $kept; $(tail -2 "$tmp/l2.log")"
check $(all 'grep -q "left their outputs in $R.partial" "$tmp/l2.log" && ! grep -q checkpoint "$tmp/l2.log"') \
  "its message says where they are, and promises no checkpoint (lab2 keeps none)" "$(grep "\[lab2\]" "$tmp/l2.log" | tail -3)"

# --- 4. the warning before a time limit: checkpoint, requeue, resume ---------------------
# lab3.sbatch's first job (Table 1's Task 1) alone, as an array task would
# run it, long enough to be warned half-way: once with SIGUSR1 to the batch
# shell (what --signal=B:USR1@120 sends), once never warned.
work=$tmp/work
mkdir -p "$work"
# figures/ and report/ hold tracked scripts beside what the labs write:
# links to those, in folders of the test's own.
for f in "$ROOT"/*; do case $(basename "$f") in results|figures|report) ;; *) ln -s "$f" "$work/" ;; esac; done
mkdir -p "$work/figures" "$work/report"
for f in "$ROOT"/figures/* "$ROOT"/report/*; do
  case $(basename "$f") in tables|*.png) ;; *) ln -s "$f" "$work/$(basename "$(dirname "$f")")/" ;; esac
done
mkdir -p "$work/report/tables"
submit() { # id: lab3.sbatch's job 1 (Task 1, 16 steps)
  (cd "$work" && sbatch --parsable --ntasks-per-node=2 --time=5 -o "$tmp/rq$1.out" \
     --export=ALL,LAB3_SMOKE=1,LAB3_SMOKE_ITERS=16,LAB_ARRAY_TASK=1,LAB_ARRAY_ID=$1 labs/slurm/lab3.sbatch)
}
ref=$(submit 2)
job=$(submit 1)
ck=$work/results/lab3.array-1/task-1/checkpoints
for _ in $(seq 600); do ls "$ck"/*/checkpoint.txt > /dev/null 2>&1 && break; sleep 0.2; done
scancel --signal=USR1 --batch "$job"
for _ in $(seq 480); do [ "$(state "$job")/$(state "$ref")" = COMPLETED/COMPLETED ] && break
  case "$(state "$job")$(state "$ref")" in *FAILED*|*CANCELLED*|*TIMEOUT*) break ;; esac; sleep 0.5; done
a=$work/results/lab3.array-1/task-1/task1 b=$work/results/lab3.array-2/task-1/task1
check $(all '[ "$(state "$job")" = COMPLETED ] && [ "$(restarts "$job")" = 1 ] && grep -q "requeueing Slurm job $job" "$tmp/rq1.out" && grep -q "SIGUSR1.*checkpoint at batch" "$tmp/rq1.out"') \
  "a job warned with SIGUSR1 checkpoints at its next step, requeues itself and ends COMPLETED after 1 requeue" \
  "job $job: $(state "$job"), restarts $(restarts "$job"): $(grep -E "SIGUSR1|requeue|error" "$tmp/rq1.out" | head -4)"
# Every step's loss (the steps before the checkpoint come back with it),
# then the test loss and accuracy.
la=$(col "$a-iters.csv" loss 2>/dev/null | tr '\n' ' ')$(col "$a-summary.csv" test_loss 2>/dev/null)/$(col "$a-summary.csv" test_accuracy 2>/dev/null)
lb=$(col "$b-iters.csv" loss 2>/dev/null | tr '\n' ' ')$(col "$b-summary.csv" test_loss 2>/dev/null)/$(col "$b-summary.csv" test_accuracy 2>/dev/null)
check $(all '[ "$(col "$a-iters.csv" loss 2>/dev/null | wc -l)" -ge 3 ] && [ "$la" = "$lb" ]') \
  "its losses (the timed steps', the test loss and accuracy after 16 steps) are bit for bit those of the job never warned" "warned: '$la', never: '$lb' (job $ref: $(state "$ref"))"
from=$(meta "$a-summary.csv" resumed_from)
check $(all 'grep -q "lab3-task1 at batch [1-9]" <<<"$from" && [ "$(meta "$a-summary.csv" slurm_restarts)" = 1 ] && [ -z "$(meta "$b-summary.csv" resumed_from)" ]') \
  "its outputs say it was resumed, from where, and after 1 restart" "resumed_from '$from', slurm_restarts '$(meta "$a-summary.csv" slurm_restarts)'"
# Full tier: Slurm's own warning, from a real time limit: 2 minutes,
# warned 100 s before (Slurm may warn up to 60 s earlier), a run of about
# a minute here (320 steps): warned once, requeued once, COMPLETED.
if [ "$quick" = 0 ]; then
  tl=$( (cd "$work" && sbatch --parsable --ntasks-per-node=2 --time=2 --signal=B:USR1@100 -o "$tmp/tl.out" \
     --export=ALL,LAB3_SMOKE=1,LAB3_SMOKE_ITERS=320,LAB_ARRAY_TASK=1,LAB_ARRAY_ID=3 labs/slurm/lab3.sbatch) )
  for _ in $(seq 600); do case "$(state "$tl")" in COMPLETED|FAILED|TIMEOUT|CANCELLED) break ;; esac; sleep 0.5; done
  check $(all '[ "$(state "$tl")" = COMPLETED ] && [ "$(restarts "$tl")" = 1 ] && grep -q "SIGUSR1.*checkpoint at batch" "$tmp/tl.out" && grep -q "resumed from .* at batch [1-9]" "$tmp/tl.out"') \
    "--time=2 --signal=B:USR1@100: Slurm's warning checkpoints the run, it requeues, resumes and ends COMPLETED" \
    "job $tl: $(state "$tl"), restarts $(restarts "$tl"): $(grep -E "SIGUSR1|resumed|requeue" "$tmp/tl.out" | head -3)"
fi
drain 30
rm -rf "$work"/results/* "$work"/*.out
echo "# sections 1-4: $SECONDS s"

# --- 5. the README, line by line ----------------------------------------------------------
# The lines of every ```sh block, in the README's order, but the cluster's
# own block first (it starts the cluster the others need) and its `down`
# last; after each, the queue is drained and every job it submitted must
# have COMPLETED.
labs/slurm/cluster.sh down "$CLUSTER" --quiet
unset SLURM_CONF
awk '/^ *```sh/ { on = 1; next } /^ *```/ { on = 0 } on { sub(/^ +/, ""); if ($0 != "") print }' labs/slurm/README.md \
  > "$tmp/lines"
{ grep 'cluster.sh up' "$tmp/lines"; grep -v 'cluster.sh up\|cluster.sh down' "$tmp/lines"; grep 'cluster.sh down' "$tmp/lines"; } |
  sed "s|/tmp/ddl-slurm|$CLUSTER|g" > "$tmp/run-lines"
check $(all '[ "$(grep -c . "$tmp/run-lines")" = "$(grep -c . "$tmp/lines")" ] && [ "$(grep -c . "$tmp/lines")" -ge 8 ]') \
  "the README's command lines are found ($(grep -c . "$tmp/lines"))"
export LAB2_SMOKE=1 LAB3_SMOKE=1 SLURM_WAIT=60
last=0
while IFS= read -r line; do
  case "$line" in
    *NET=*) [ "$quick" = 1 ] && { echo "# quick tier: not run: $line"; continue; } ;;
    *RESUME=1*) [ "$quick" = 1 ] && { echo "# quick tier: not run: $line"; continue; } ;;
  esac
  cd "$work"
  # Quick tier: lab3's array at 2 ranks (12 tasks, not 20)
  case "$line" in *sweep.sh*) [ "$quick" = 1 ] && export NP=2 ;; esac
  eval "$line" > "$tmp/line.out" 2>&1 < /dev/null
  st=$?
  unset NP
  cd "$ROOT"
  bad=""
  if [ -n "${SLURM_CONF:-}" ] && [ -e "${SLURM_CONF:-}" ]; then
    drain 300 || bad="the queue did not empty in 300 s"
    # Batch jobs only: an allocation a lab asked salloc for ends CANCELLED
    # when the lab releases it.
    top=$(scontrol show job 2>/dev/null | sed -n 's/^JobId=\([0-9]*\).*/\1/p' | sort -n | tail -1)
    for j in $(seq $(( last + 1 )) "${top:-$last}"); do
      scontrol show job "$j" 2>/dev/null | grep -q "BatchFlag=1" || continue
      s=$(state "$j"); [ "$s" = COMPLETED ] || bad+=" job $j $s"
    done
    last=${top:-$last}
  fi
  check $(all '[ "$st" = 0 ] && [ -z "$bad" ]') "README: $line ($SECONDS s)" "status $st$bad: $(tail -3 "$tmp/line.out")"
  case "$line" in
    *sweep.sh*)
      n=$(ls "$work"/ddlab-lab3-[0-9]*.out 2>/dev/null | wc -l)
      check $(all '[ -s "$work/results/lab3/task1-summary.csv" ] && ls "$work"/figures/lab3-*.png > /dev/null 2>&1 && ! ls -d "$work"/results/lab3.array-* > /dev/null 2>&1 && [ "$n" -ge 3 ]') \
        "sweep.sh: $n array tasks, then the merge job put their outputs in results/lab3, drew its figures, removed the tasks' folders" \
        "$(ls "$work/results" "$work/figures" 2>&1 | tr '\n' ' ')"
      rm -f "$work"/figures/*.png ;;
  esac
done < "$tmp/run-lines"
check $(all '[ -s "$work/results/lab3/task1-summary.csv" ] && [ -s "$work/results/lab2/train-np4.csv" ] && [ -s "$work/report/tables/lab2.tex" ]') \
  "the example's make lab3 and sbatch lab2.sbatch left their results" "$(ls "$work/results" 2>&1 | tr '\n' ' ')"
if [ "$cpus" -lt 4 ]; then over=yes; else over=no; fi
check $(all '[ "$(meta "$work/results/lab2/train-np4.csv" launcher)" = srun ] && [ "$(meta "$work/results/lab2/train-np4.csv" oversubscribed)" = "$over" ]') \
  "lab2.sbatch ran its 4 ranks with srun in the batch job, on $cpus CPUs: oversubscribed $over" \
  "launcher '$(meta "$work/results/lab2/train-np4.csv" launcher)', oversubscribed '$(meta "$work/results/lab2/train-np4.csv" oversubscribed)'"
check $(all '[ ! -e "$CLUSTER" ]') "the README's down removed the cluster"
exit $fail
