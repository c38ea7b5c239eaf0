#!/usr/bin/env bash
# make lab3 - data-parallel SGD on VGG-11/CIFAR-10 (seed 001): the seed's
# Table 1, time per iteration vs ranks for every strategy, the DDP bucket
# cap sweep, timelines; then figures and the table.
#
#   1. Tasks (the seed's Table 1): Task 1 = one process, batch 256;
#      Tasks 2a (gather/scatter), 2b (allreduce per parameter) and 3 (DDP)
#      at NP ranks (default 4), total batch 256; trained, then evaluated
#      on every rank.
#   2. Scaling: every strategy that synchronises ranks (bin/lab3
#      --list-syncs: the tasks' and the allreduce_flat control) at
#      2 .. NP ranks, total batch 256; the one-rank point is Task 1.
#   3. Buckets: DDP with caps 0 (one bucket per layer), 1, 5, 10, 25, 50,
#      100 MiB (quick: 0, 1, 5, 25, the caps that cut its gradient
#      differently) and the flat control, at min(NP, cores) ranks so that the
#      overlap is measured without oversubscription where possible.
#   4. labs/lab3/figures.sh: figures/lab3-*.png, report/tables/lab3.tex.
# PLATFORM=X (labs/platforms/): every run under SimGrid SMPI on that
# simulated cluster (bin/sim, make SIM=1), results in results/lab3/sim-X,
# figures in figures/sim-X, every output labelled simulated.
# NET=RATE[,LATENCY] (labs/net/): every multi-rank run on HOSTS (default NP)
# emulated hosts over real TCP links, results in results/lab3/net-RATE...,
# figures in figures/net-..., every output labelled "emulated network".
# PEER=pytorch (bench/peer/lab3.sh): PyTorch DDP (gloo) at 2 .. NP ranks on
# the same platform, a reference curve and table rows beside DDP.
# Timing follows the seed: the first 40 iterations, the first discarded,
# mean per rank then across ranks.
# LAB3_ONLY=table1 runs the Table 1 tasks alone (no scaling, no bucket
# sweep) and LAB3_STEPS=N trains each task N steps of 256 (N x 256 training
# images, all N timed; 500 test images): what `make figures` runs on an emulated network or
# a simulated cluster beside the native lab (figures/platforms.sh).
# Profiles: quick (default) trains VGG-11 at half width on the first
# 10240 training images (40 steps of 256) and tests on 2000, a few
# minutes on 2 cores; paper: full VGG-11, one epoch of all 50000 (196
# steps), the 10000 test images (timing runs stop after 40 steps).
set -euo pipefail
cd "$(dirname "$0")/../.."
LAB_SIMULATES=1   # make lab3 PLATFORM=cluster4: the same runs under SimGrid SMPI
LAB_NETWORKS=1    # make lab3 NET=1gbit NP=2: the same runs on an emulated cluster
source bench/peer/lab3.sh # PEER=pytorch: PyTorch DDP (gloo) as the reference curve
peer_lab3_check           # first: under PLATFORM= it is refused before SimGrid is looked for
source labs/common.sh
BIN=${BIN:-$LAB_BIN}
lab_setup 3 "$BIN" "lab3 compares multi-rank strategies"
# The strategies swept below (and plotted by figures.sh): every one lab3
# offers that synchronises ranks, in core/sync's table order, as the
# native program lists them (a bin/sim one runs only under smpirun).
LIST_BIN=$BIN; [ -n "${SIM_TAG:-}" ] && LIST_BIN=bin
SYNCS=$("$LIST_BIN/lab3" --list-syncs) && [ -n "$SYNCS" ] ||
  { echo "error: $LIST_BIN/lab3 --list-syncs listed no strategies: run make" >&2; exit 1; }
if [ "$PROFILE" = paper ]; then
  data=(--width 1)
else
  data=(--width 0.5 --limit 10240 --test-limit 2000)
fi
# The scaling and bucket runs train and time 12 steps in the quick
# profile (the seed's 40 in paper): they measure time only, on shared
# memory where the report judges no order from them (the emulated or
# simulated Table 1 does), and 11 timed steps after the first keep
# `make figures` within its budget (20 steps: 912 s at 30c9ed4 on the idle
# 2-core VM). The Table 1 tasks keep their 40 (one quick epoch): their
# accuracies are compared.
timing=(--iters 12 --no-eval)
[ "$PROFILE" = paper ] && timing=(--iters 40 --no-eval)
# DDP's bucket cap follows the model's size, so that its buckets are the
# seed's: its 25 MB cap cut full VGG-11's 36.9 MB gradient into 3 buckets
# (1 MB first, 25, the rest); the quick profile's half width has a quarter
# of that gradient (9.2 MB), and a quarter of the cap (6.25 MiB) gives the
# same 3 buckets where 25 MiB would give 2, the second ready only when
# backward ends. On 2 emulated hosts at 1 Gbit/s (make lab3 NET=1gbit NP=2
# LAB3_ONLY=table1 LAB3_STEPS=20, 2 rounds each, interleaved, 2026-11-29):
# Task 3 took 349-357 ms at 6.25 MiB (96% of its communication hidden)
# against 390-395 ms at 25 MiB (50%), with Task 2b at 413-420 ms.
ddp_cap=(--bucket-cap-mb 6.25)
[ "$PROFILE" = paper ] && ddp_cap=(--bucket-cap-mb 25)
task=()
if [ "${LAB3_SMOKE:-0}" = 1 ]; then # tests/e2e_lab3.sh: the same flow in seconds
  data=(--width 0.125 --limit 1024 --test-limit 128 --synthetic)
  timing=(--iters 3 --timed 3 --no-eval)
  task=(--iters "${LAB3_SMOKE_ITERS:-3}" --timed 3) # tests/e2e_slurm_jobs.sh: long enough to stop half-way
fi
case "${LAB3_ONLY:-}" in
  ''|table1) ;;
  *) echo "error: LAB3_ONLY='$LAB3_ONLY': table1 (the Table 1 tasks alone) or unset" >&2; exit 2 ;;
esac
if [ -n "${LAB3_STEPS:-}" ]; then
  case "$LAB3_STEPS" in
    [2-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;;
    *) echo "error: LAB3_STEPS='$LAB3_STEPS': steps per task, 2 .. 999" >&2; exit 2 ;;
  esac
  data+=(--limit $(( LAB3_STEPS * 256 )) --test-limit 500)
  task=(--iters "$LAB3_STEPS" --timed "$LAB3_STEPS")
fi
# Task 1 repeated with other seeds (below): 2 seeds in all by default, the
# least that measures a spread (a repeat is a whole Task 1: seeds 2 and 3
# took 76 s each on 2 cores at load average 4; LAB3_SEEDS=3 for both)
repeats=${LAB3_SEEDS:-$([ "$PROFILE" = quick ] && [ -z "$VARIANT" ] && [ "${LAB3_SMOKE:-0}" != 1 ] && echo 2 || echo 1)}
case "$repeats" in [1-9]) ;; *) echo "error: LAB3_SEEDS=$repeats: 1 to 9 seeds" >&2; exit 2 ;; esac
common=(--seed "$SEED" --device "$DEVICE" --profile "$PROFILE" --out "$OUT.tmp" --quiet "${data[@]}")
run() { # ranks args...
  local np=$1; shift
  local extra=()
  # SimGrid 3.32's MPI_Iallreduce segfaults on large buffers (VGG-11 at
  # half width, 4 ranks, both collective selectors): simulated DDP buckets
  # go over ddlab's own ring instead, and the outputs say alg ring.
  if [ -n "${SIM_TAG:-}" ] && [[ " $* " == *" --sync ddp "* ]]; then extra=(--alg ring); fi
  lab_mpi "$np" "$BIN/lab3" run "${common[@]}" "$@" "${extra[@]}"
}
CAP_NP=$(( NP < CORES ? NP : CORES )); [ "$CAP_NP" -ge 2 ] || CAP_NP=2
lab_begin "$NP"

# Task 1 is one machine of the cluster. On an emulated network the hosts
# share this machine's cores and each rank of a multi-host job gets
# CORES / ranks threads; one process would get them all, and "DDP faster
# than one process" would compare 2 machines with one. Task 1 gets one
# host's share there (CORES / HOSTS threads), as the seed's single node
# was one of its 4 identical nodes.
# (LAUNCH_THREADS, labs/launch.sh; one the user set is kept.)
task1_threads=${LAUNCH_THREADS:-}
if [ -n "${NET_TAG:-}" ] && [ -z "$task1_threads" ]; then
  task1_threads=$(( CORES / NET_HOSTS )); [ "$task1_threads" -ge 1 ] || task1_threads=1
fi

note "Table 1 (seed 001): Task 1 at 1 rank, Tasks 2a, 2b, 3 at $NP ranks, total batch 256"
task_syncs=" gather_scatter allreduce ddp " # Tasks 2a, 2b, 3 below: the scaling runs at $NP ranks
LAUNCH_THREADS=$task1_threads run 1 --sync none --batch 256 --task 1 --series task --tag task1 "${task[@]}"
run "$NP" --sync gather_scatter --global-batch 256 --task 2a --series task --tag task2a "${task[@]}"
run "$NP" --sync allreduce --global-batch 256 --task 2b --series task --tag task2b "${task[@]}"
run "$NP" --sync ddp "${ddp_cap[@]}" --global-batch 256 --task 3 --series task --tag task3 "${task[@]}"
# Task 1 again with other seeds (folders seed-N, LAB3_SEEDS in all): the
# report judges "accuracies alike" against how far one task's accuracy
# moves with the seed alone. Native quick runs only: the emulated and
# simulated variants measure time, and the report reads the native run's
# accuracies beside them.
for (( k = 1; k < repeats; k++ )); do
  s=$(( SEED + k ))
  mkdir -p "$OUT.tmp/seed-$s"
  # its own tag (-seedN): a grader reading every summary sees two runs
  run 1 --sync none --batch 256 --task 1 --series task --seed "$s" --out "$OUT.tmp/seed-$s" --tag "task1-seed$s" \
    "${task[@]}"
done
[ "${LAB3_ONLY:-}" = table1 ] && lab_stop_early 3 "LAB3_ONLY=table1: no scaling or bucket runs"

note "time per iteration vs ranks, 2 .. $NP ranks, total batch 256"
for np in $(seq 2 "$NP"); do
  for sync in $SYNCS; do
    [ "$np" = "$NP" ] && [[ "$task_syncs" == *" $sync "* ]] && continue # the task runs
    series=scale
    [ "$np" = "$CAP_NP" ] && case $sync in allreduce_flat|ddp) series=scale,buckets ;; esac
    cap=(); [ "$sync" = ddp ] && cap=("${ddp_cap[@]}")
    run "$np" --sync "$sync" "${cap[@]}" --global-batch 256 --series "$series" --tag "scale-$sync-np$np" "${timing[@]}"
  done
done
[ "$NP" = "$CAP_NP" ] && run "$NP" --sync ddp "${ddp_cap[@]}" --global-batch 256 --series buckets \
  --tag "cap${ddp_cap[1]}-np$NP" "${timing[@]}"

note "DDP bucket caps at $CAP_NP ranks (${ddp_cap[1]} MiB and the flat control are the scaling runs; quick: the caps under the gradient, and 25)"
# quick: the caps under the half-width gradient (9.2 MB) and the seed's 25
# MiB; 10, 50 and 100 MiB would give the same two buckets as 25 MiB (1 MiB
# first, then the rest)
caps="0 1 5 10 50 100"
[ "$PROFILE" = quick ] && caps="0 1 5 25"
for cap in $caps; do
  run "$CAP_NP" --sync ddp --bucket-cap-mb "$cap" --global-batch 256 --series buckets --tag "cap$cap-np$CAP_NP" "${timing[@]}"
done

# the reference DDP with ddlab's DDP's bucket cap
PEER_CAP_MB=${ddp_cap[1]} peer_lab3_run vgg11 "${data[1]}" $(seq 2 "$NP")
lab_commit
RESULTS=$OUT labs/lab3/figures.sh
