#!/usr/bin/env bash
# e2e_slurm.sh - ddlab under Slurm (labs/slurm/README.md), on Slurm clusters
# of this machine started by labs/slurm/cluster.sh (munged, slurmctld,
# slurmd from a script, no systemd):
#   1. bad input without a cluster: LAUNCH=foo, LAUNCH=slurm with no
#      controller, NODES without LAUNCH=slurm;
#   2. a one-node cluster comes up, every node idle;
#   3. direct launches, srun --mpi=pmix: lab2's bench (no wrong element);
#      a small lab3 DDP run gives the same losses as under mpirun with the
#      same options, and says launcher srun, its job and nodes; under
#      srun -n 1 -c 1 a rank takes 1 thread (-c 2: 2), its outputs say
#      cpus_allowed and threads; srun -n 4 on fewer CPUs says oversubscribed;
#   4. sbatch: a batch job runs srun and mpirun (Open MPI's variables win
#      over the batch step's), polled with squeue until it ends;
#   5. make's way, LAUNCH=slurm: labs/lab2/run.sh (LAB2_SMOKE) asks salloc
#      for an allocation, runs every job with srun, releases it; inside an
#      allocation of 1 task, NP=2 is refused with both numbers; a job
#      cancelled by Slurm stops the lab with a message, and the finished
#      run's checkpoint is kept for RESUME=1;
#   6. the cluster goes down: no daemon left;
#   7. an emulated 2-host cluster with one slurmd per host (NET=1gbit
#      HOSTS=2 LAUNCH=slurm): lab2 runs across the hosts with srun, its
#      outputs say srun, the emulated network and each rank's node, and no
#      namespace, state or daemon is left.
# The sanitizer pass (SANITIZE=1) runs 1-3 and 6 (the C code under srun);
# the scripts' paths are the same in both builds.
# Quick tier (DDL_TEST_TIER=quick, make test): every step but srun -c 2
# (the cpus_allowed and thread count path srun -c 1 takes, with another
# count) and the shipped labs/slurm/lab2.sbatch (its series is the one
# LAUNCH=slurm runs in step 5, and a batch job's srun and mpirun are
# step 4's first job; about a quarter of the script's time); the
# sanitizer pass's quick form also leaves out lab3's DDP run under srun
# against mpirun (lab2's bench reads the same Slurm placement and
# provenance).
# ddl-test-san-quick: the Slurm placement and provenance (core/platform/placement.c, core/results/meta.c reading srun's SLURM_ variables) run only under srun
# Prints "skip - ..." only where Slurm cannot run here (not root, or the
# packages missing: make deps installs slurmctld slurmd slurm-client munge).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "slurm e2e"
e2e_lab_env NET HOSTS PLATFORM LAUNCH NODES SLURM_JOB_ID SLURM_CONF NP
CLUSTER=$tmp/cluster
trap 'labs/slurm/cluster.sh down "$CLUSTER" --quiet 2>/dev/null; rm -rf "$tmp"' EXIT
wrong() { col "$1" wrong 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
if [ "${DDL_TEST_TIER:-full}" = quick ]; then
  echo "# quick tier: srun -n 1 -c 2, sbatch labs/slurm/lab2.sbatch$([ "${SANITIZE:-0}" = 1 ] && echo " and lab3 under srun against mpirun") left to make test-full (make test-full runs it)"
fi

# --- 1. bad input ----------------------------------------------------------------
LAUNCH=foo labs/lab2/run.sh > /dev/null 2> "$tmp/foo.err"
st=$?
check $(all '[ "$st" = 2 ] && grep -q "launchers are mpirun .* and slurm" "$tmp/foo.err"') "LAUNCH=foo is refused, listing the launchers" \
  "status $st: $(head -1 "$tmp/foo.err")"
SLURM_CONF=$tmp/none.conf LAUNCH=slurm NP=2 labs/lab3/run.sh > /dev/null 2> "$tmp/noctl.err"
st=$?
check $(all '[ "$st" = 2 ] && grep -q "no Slurm controller answers" "$tmp/noctl.err" && grep -q "LAUNCH=mpirun" "$tmp/noctl.err"') \
  "LAUNCH=slurm without a controller says so and what to run" "status $st: $(head -2 "$tmp/noctl.err")"
NODES=2 labs/lab2/run.sh > /dev/null 2> "$tmp/nodes.err"
st=$?
check $(all '[ "$st" = 2 ] && grep -q "NODES=2 is for LAUNCH=slurm" "$tmp/nodes.err"') "NODES without LAUNCH=slurm is refused" "status $st"

if ! why=$(labs/slurm/cluster.sh check); then
  echo "skip - slurm e2e: $why"
  exit $fail
fi

# --- 2. a one-node cluster -------------------------------------------------------
# The node declares this machine's CPUs, no more: srun binds each task to
# CPUs of its own (task/affinity), as on a real cluster.
t0=$(date +%s.%N)
DDL_SLURM_CPUS=$(env -u OMP_NUM_THREADS nproc) labs/slurm/cluster.sh up "$CLUSTER" > "$tmp/up.out" 2> "$tmp/up.err"
st=$?
up_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check $(all '[ "$st" = 0 ] && grep -q "export SLURM_CONF=" "$tmp/up.out"') "a one-node cluster comes up, its node idle (${up_s} s)" \
  "status $st: $(tail -2 "$tmp/up.err")"
[ "$st" = 0 ] || exit 1
export SLURM_CONF=$CLUSTER/slurm.conf
SRUN=(timeout 120 srun --mpi=pmix --export=ALL)
cpus=$(env -u OMP_NUM_THREADS nproc)

# --- 3. direct launches ----------------------------------------------------------
"${SRUN[@]}" -n 2 "$BIN/lab2" bench --sizes 4096,1048576 --algs ring,mpi --reps 2 --no-calibrate --quiet \
  --out "$tmp/bench" > /dev/null 2> "$tmp/bench.err"
st=$?
csv=$tmp/bench/bench-np2.csv
check $(all '[ "$st" = 0 ] && [ "$(col "$csv" alg | wc -l)" = 4 ] && [ "$(wrong "$csv")" = 0 ]') \
  "srun --mpi=pmix -n 2 lab2 bench: ring and MPI_Allreduce right" "status $st: $(tail -2 "$tmp/bench.err")"
check $(all '[ "$(meta "$csv" launcher)" = srun ] && [ -n "$(meta "$csv" slurm_job)" ] && [ "$(meta "$csv" slurm_nodes)" = ddl0 ]') \
  "its outputs say launcher srun, the Slurm job and its nodes" \
  "launcher '$(meta "$csv" launcher)', job '$(meta "$csv" slurm_job)', nodes '$(meta "$csv" slurm_nodes)'"
grep -q "^# mpi_transport: pml ob1, btl .*vader" "$csv"
check $? "the transport is Open MPI's own choice, read from Open MPI" "$(meta "$csv" mpi_transport)"

ddp=(--model cnn3 --dataset mnist --synthetic --width 0.25 --limit 256 --test-limit 64 --global-batch 32 --iters 4
     --timed 3 --sync ddp --bucket-cap-mb 0 --seed 3 --tag ddp --quiet)
if [ "${SANITIZE:-0}/${DDL_TEST_TIER:-full}" != 1/quick ]; then
  "${SRUN[@]}" -n 2 "$BIN/lab3" run "${ddp[@]}" --out "$tmp/srun" > /dev/null 2> "$tmp/srun.err"
  st1=$?
  timeout 120 mpirun -np 2 --mca pml ob1 --mca btl self,vader --bind-to none "$BIN/lab3" run "${ddp[@]}" --out "$tmp/mpirun" \
    > /dev/null 2> "$tmp/mpirun.err"
  st2=$?
  a=$(col "$tmp/srun/ddp-iters.csv" loss 2>/dev/null | tr '\n' ' ')
  b=$(col "$tmp/mpirun/ddp-iters.csv" loss 2>/dev/null | tr '\n' ' ')
  check $(all '[ "$st1" = 0 ] && [ "$st2" = 0 ] && [ -n "$a" ] && [ "$a" = "$b" ]') \
    "a lab3 DDP run gives the same losses under srun as under mpirun" "status $st1/$st2; srun: $a; mpirun: $b"
  check $(all '[ "$(meta "$tmp/srun/ddp-summary.csv" launcher)" = srun ] && [ "$(meta "$tmp/mpirun/ddp-summary.csv" launcher)" = mpirun ]') \
    "the summaries say launcher srun and launcher mpirun" "$(meta "$tmp/srun/ddp-summary.csv" launcher) / $(meta "$tmp/mpirun/ddp-summary.csv" launcher)"
fi

one=(--model cnn3 --dataset mnist --synthetic --width 0.25 --limit 64 --test-limit 16 --batch 16 --iters 1 --quiet)
env -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS "${SRUN[@]}" -n 1 -c 1 "$BIN/lab1" "${one[@]}" --out "$tmp/c1" \
  > /dev/null 2> "$tmp/c1.err"
st=$?
s1=$(ls "$tmp"/c1/*.csv 2>/dev/null | head -1)
check $(all '[ "$st" = 0 ] && [ -n "$s1" ] && [ "$(meta "$s1" threads)" = 1 ] && [ "$(meta "$s1" cpus_allowed)" = 1 ]') \
  "srun -n 1 -c 1: one thread on the one CPU allowed (node of $cpus)" \
  "status $st, threads '$(meta "${s1:-/dev/null}" threads)', cpus_allowed '$(meta "${s1:-/dev/null}" cpus_allowed)': $(tail -1 "$tmp/c1.err")"
if [ "${DDL_TEST_TIER:-full}" = full ] && [ "$cpus" -ge 2 ]; then
  env -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS "${SRUN[@]}" -n 1 -c 2 "$BIN/lab1" "${one[@]}" --out "$tmp/c2" \
    > /dev/null 2>&1
  s2=$(ls "$tmp"/c2/*.csv 2>/dev/null | head -1)
  check $(all '[ -n "$s2" ] && [ "$(meta "$s2" threads)" = 2 ] && [ "$(meta "$s2" cpus_allowed)" = 2 ]') \
    "srun -n 1 -c 2: two threads" "threads '$(meta "${s2:-/dev/null}" threads)'"
fi
over=$(( cpus + 2 ))
"${SRUN[@]}" -n "$over" --overcommit "$BIN/lab2" bench --sizes 4096 --algs ring --reps 2 --no-calibrate --quiet \
  --out "$tmp/over" > /dev/null 2> "$tmp/over.err"
st=$?
csv=$tmp/over/bench-np$over.csv
check $(all '[ "$st" = 0 ] && [ "$(meta "$csv" oversubscribed)" = yes ] && [ "$(wrong "$csv")" = 0 ]') \
  "srun -n $over on $cpus CPUs runs, right, and says oversubscribed" "status $st: $(tail -1 "$tmp/over.err")"

down_check() { # dir name: stop the cluster, fail if a daemon is left
  local dir=$1 left
  local pids; pids=$(labs/slurm/cluster.sh pids "$dir" 2>/dev/null | awk '{print $1}' | tr '\n' ' ')
  labs/slurm/cluster.sh down "$dir" > /dev/null 2> "$tmp/down.err"
  local st=$?
  left=""; for p in $pids; do kill -0 "$p" 2>/dev/null && left+="$p "; done
  left+=$(pgrep -f "$dir" | tr '\n' ' ')
  check $(all '[ "$st" = 0 ] && [ -n "$pids" ] && [ -z "$left" ] && [ ! -e "$dir" ]') "$2" \
    "status $st, daemons $pids, left: $left $(tail -1 "$tmp/down.err")"
}
if [ "${SANITIZE:-0}" = 1 ]; then
  down_check "$CLUSTER" "the cluster goes down, every daemon stopped by its PID"
  exit $fail
fi

# --- 4. sbatch -------------------------------------------------------------------
cat > "$tmp/job.sh" <<EOF
#!/bin/bash
set -e
cd $(printf %q "$PWD")
srun --mpi=pmix -n 2 $BIN/lab2 bench --sizes 4096 --algs ring --reps 2 --no-calibrate --quiet --out $tmp/job-srun
mpirun -np 2 --mca pml ob1 --mca btl self,vader $BIN/lab2 bench --sizes 4096 --algs ring --reps 2 --no-calibrate --quiet --out $tmp/job-mpirun
echo done
EOF
wait_job() { # id: poll squeue until the job has left the queue (at most 2 minutes)
  for _ in $(seq 240); do
    [ -n "$1" ] && [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  return 1
}
job=$(sbatch --parsable -n 2 -o "$tmp/job.out" "$tmp/job.sh" 2> "$tmp/sbatch.err")
st=$?
wait_job "$job"
check $(all '[ "$st" = 0 ] && [ -n "$job" ] && [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && grep -qx done "$tmp/job.out"') \
  "an sbatch job runs to its end (polled with squeue)" "job '$job' status $st: $(tail -2 "$tmp/job.out" "$tmp/sbatch.err" 2>/dev/null)"
a=$tmp/job-srun/bench-np2.csv b=$tmp/job-mpirun/bench-np2.csv
check $(all '[ "$(meta "$a" launcher)" = srun ] && [ "$(meta "$b" launcher)" = mpirun ] && [ "$(meta "$a" slurm_job)" = "$job" ] && [ "$(meta "$b" slurm_job)" = "$job" ] && [ "$(wrong "$a")$(wrong "$b")" = 00 ]') \
  "in the batch job, srun and mpirun both run right and name the job" \
  "'$(meta "$a" launcher)' '$(meta "$b" launcher)' jobs '$(meta "$a" slurm_job)' '$(meta "$b" slurm_job)'"

# The shipped batch script (on 2 tasks, the lab's smoke settings).
if [ "${DDL_TEST_TIER:-full}" = full ]; then
  sb=$(sbatch --parsable --ntasks-per-node=2 -o "$tmp/sb.out" \
         --export=ALL,LAB2_SMOKE=1,RESULTS="$tmp/sb",FIGURES="$tmp/sbf",TABLES="$tmp/sbt" labs/slurm/lab2.sbatch 2>&1)
  wait_job "$sb"
  check $(all '[ -s "$tmp/sb/train-np2.csv" ] && [ -s "$tmp/sbt/lab2.tex" ] && [ "$(meta "$tmp/sb/train-np2.csv" launcher)" = srun ] && [ "$(meta "$tmp/sb/train-np2.csv" slurm_job)" = "$sb" ]') \
    "sbatch labs/slurm/lab2.sbatch runs the lab's series with srun in its job, then its table" \
    "job '$sb': $(tail -3 "$tmp/sb.out" 2>/dev/null)"
fi

# --- 5. make's way: LAUNCH=slurm -------------------------------------------------------
R=$tmp/lab2
LAUNCH=slurm NP=2 LAB2_SMOKE=1 BIN=$BIN RESULTS=$R FIGURES=$tmp/fig TABLES=$tmp/tab SLURM_WAIT=60 labs/lab2/run.sh \
  > "$tmp/lab2.log" 2>&1
st=$?
check $(all '[ "$st" = 0 ] && [ -s "$R/bench-np2.csv" ] && [ -s "$R/train-np2.csv" ] && [ -s "$tmp/tab/lab2.tex" ]') \
  "LAUNCH=slurm: labs/lab2/run.sh runs every job in an allocation it asked for" "status $st: $(tail -3 "$tmp/lab2.log")"
check $(all '[ "$(meta "$R/train-np2.csv" launcher)" = srun ] && [ -n "$(meta "$R/train-np2.csv" slurm_job)" ] && [ "$(wrong "$R/bench-np2.csv")" = 0 ]') \
  "its results say launcher srun and the job" "'$(meta "$R/train-np2.csv" launcher)'"
check $(all 'grep -q "srun .* -J lab2-bench-ranks-np1 .*--cpu-bind=cores bin/lab2 bench" "$tmp/lab2.log" && grep -q "srun .* -J lab2-train-np2 .*bin/lab2 train" "$tmp/lab2.log"') \
  "every srun names its step after the lab and run (-J lab2-bench-ranks-np1) and binds each task to its cores" \
  "$(grep -m1 "srun --mpi" "$tmp/lab2.log")"
check $(all '[ -z "$(squeue -h 2>/dev/null)" ]') "the allocation is released at the end" "$(squeue -h 2>&1)"

salloc -n 1 --immediate=60 env LAUNCH=slurm NP=2 RESULTS="$tmp/small" labs/lab3/run.sh > "$tmp/small.log" 2>&1
st=$?
check $(all '[ "$st" != 0 ] && grep -q "has 1 task(s), and lab3.s largest job has 2 ranks" "$tmp/small.log"') \
  "an allocation smaller than NP is refused with both numbers" "status $st: $(grep error "$tmp/small.log" | head -2)"

R=$tmp/killed
LAUNCH=slurm NP=2 LAB3_SMOKE=1 BIN=$BIN RESULTS=$R FIGURES=$tmp/fig3 TABLES=$tmp/tab3 labs/lab3/run.sh \
  > "$tmp/killed.log" 2>&1 &
lab=$!
# Up to 5 minutes for the first checkpoint (it takes seconds idle; a whole
# make test beside a simulation once took more than the 2 minutes this
# wait had, and the cancel then came before any checkpoint to promise).
for _ in $(seq 1500); do
  ls "$R"/checkpoints/*/checkpoint.txt >/dev/null 2>&1 && break
  kill -0 "$lab" 2>/dev/null || break
  sleep 0.2
done
kept=$(ls -d "$R"/checkpoints/* 2>/dev/null | head -1)
jobid=$(squeue -h -o %i 2>/dev/null | head -1)
[ -n "$jobid" ] && scancel "$jobid"
wait "$lab"
st=$?
check $(all '[ -n "$jobid" ] && [ "$st" != 0 ] && grep -q "CANCELLED" "$tmp/killed.log" && grep -q "RESUME=1 continues them" "$tmp/killed.log"') \
  "a job cancelled by Slurm stops the lab with a message and says how to continue" "status $st: $(tail -2 "$tmp/killed.log")"
check $(all '[ -n "$kept" ] && [ -f "$kept/checkpoint.txt" ] && [ ! -e "$R.tmp" ]') \
  "the finished run's checkpoint is kept, and no half results folder" "checkpoint '${kept:-none}'"

# --- 6. down ------------------------------------------------------------------------------
down_check "$CLUSTER" "the cluster goes down, every daemon stopped by its PID"
unset SLURM_CONF

# --- 7. an emulated multi-host Slurm cluster ---------------------------------------------
if ! why=$(labs/net/cluster.sh check); then
  echo "skip - slurm e2e: emulated hosts: $why"
  exit $fail
fi
R=$tmp/net
NET=1gbit HOSTS=2 NP=2 LAUNCH=slurm LAB2_SMOKE=1 BIN=$BIN NET_DELAY_BIN=$BIN RESULTS=$R FIGURES=$tmp/fign TABLES=$tmp/tabn \
  labs/lab2/run.sh > "$tmp/net.log" 2>&1 &
lab=$!
wait "$lab"
st=$?
csv=$R/bench-np2.csv
check $(all '[ "$st" = 0 ] && [ -s "$csv" ] && [ "$(wrong "$csv")" = 0 ] && [ -s "$R/train-np2.csv" ]') \
  "NET=1gbit HOSTS=2 LAUNCH=slurm: lab2 runs across 2 emulated hosts with srun" "status $st: $(tail -3 "$tmp/net.log")"
check $(all '[ "$(meta "$csv" launcher)" = srun ] && meta "$csv" emulated_network | grep -q "^2 hosts, 1 Gbit/s" && [ "$(meta "$csv" hosts)" = 2 ] && meta "$csv" emulated_network_setup | grep -q "srun --mpi=pmix with one slurmd per host"') \
  "its outputs say launcher srun, the emulated network and 2 hosts" \
  "launcher '$(meta "$csv" launcher)', network '$(meta "$csv" emulated_network)', hosts '$(meta "$csv" hosts)'"
places=$(meta "$R/train-np2.csv" rank_places)
check $(all '[ "$places" = "0 h0, 1 h1" ]') "the outputs record each rank's node (rank_places)" "'$places'"
tag=ddl-$lab
left=$( { ip netns list 2>/dev/null | grep "^$tag-"; [ -e "/run/ddlab-net/$tag" ] && echo "/run/ddlab-net/$tag"; pgrep -f "/run/ddlab-net/$tag"; } | tr '\n' ' ')
check $(all '[ -z "$left" ]') "nothing is left: namespaces, state, slurmd, slurmctld, munged" "$left"
exit $fail
