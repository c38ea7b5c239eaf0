#!/usr/bin/env bash
# make scale - past the machine: lab2's allreduce and lab3's strategies
# predicted from 2 to SCALE_MAX_NP ranks under SimGrid SMPI, on the seeds'
# clusters grown to that many nodes and on a modern fat tree; then
# results/scale/*.csv, figures/scale-*.png and report/tables/scale.tex
# (labs/scale/README.md).
#
#   1. the compute model: lab3's step on this machine, natively, one
#      thread, each stage timed (bin/lab3 --calibrate-compute), at the
#      batch per rank the simulated runs use (SCALE_BATCH, default 32);
#   2. lab2's allreduce, every algorithm of SCALE_ALGS at SCALE_SIZES, at
#      2, 4, .. SCALE_MAX_NP ranks per platform: the network alone (CM02
#      without cross-traffic, the alpha-beta model's), one call a point and
#      no warm-up (a network-only simulation is deterministic), payloads
#      from 1 MiB in SMPI shared memory;
#   3. lab3's strategies (SCALE_SYNCS) at the same rank counts: the compute
#      charged from the model of step 1 (normal draws of each stage's
#      measured spread), ranks from 2 on sharing their training state and
#      running no kernels (ranks 0 and 1 run everything: their numbers are
#      checked), 2 steps (the first discarded);
#   4. labs/scale/summary.py: the tables, the alpha-beta line beside each
#      allreduce, the figures, and the predicted-vs-measured table when
#      emulated-host measurements are in results/scale/validate/.
# Every configuration's wall time, CPU time and peak memory (PSS) is in
# results/scale/runs.csv; progress lines say how long is left.
#
# Platforms (SCALE_PLATFORMS): cluster4 and wits80 are the seeds' node
# kinds and links, grown to as many nodes as the ranks need (cluster4: one
# rank a node; wits80: 8 a machine) and written to results/scale/platforms/;
# fattree400g is 128 x 8 GPUs as it stands (labs/platforms/).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=results/scale
SCALE_MAX_NP=${SCALE_MAX_NP:-64}
SCALE_PLATFORMS=${SCALE_PLATFORMS:-cluster4 wits80 fattree400g}
SCALE_ALGS=${SCALE_ALGS:-ring,ring_async,mpi,rabenseifner,tree}
SCALE_SIZES=${SCALE_SIZES:-1M,4M,16M,64M}
SCALE_SYNCS=${SCALE_SYNCS:-ddp allreduce gather_scatter}
SCALE_BATCH=${SCALE_BATCH:-32}
SCALE_LIMIT_S=${SCALE_LIMIT_S:-1800} # a configuration's wall-time bound
case "$SCALE_MAX_NP" in [2-9]|[1-9][0-9]|[1-9][0-9][0-9]|10[0-2][0-9]) ;; *)
  echo "error: SCALE_MAX_NP='$SCALE_MAX_NP': 2 .. 1024" >&2; exit 2 ;; esac
for np in ${SCALE_NP:-}; do
  case "$np" in [2-9]|[1-9][0-9]|[1-9][0-9][0-9]|10[0-2][0-9]) ;; *)
    echo "error: SCALE_NP='$SCALE_NP': rank counts, each 2 .. 1024" >&2; exit 2 ;; esac
done
case "$SCALE_BATCH" in [1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;; *)
  echo "error: SCALE_BATCH='$SCALE_BATCH': examples per rank, 1 .. 999" >&2; exit 2 ;; esac
for p in $SCALE_PLATFORMS; do
  [ -f "labs/platforms/$p.xml" ] || { echo "error: SCALE_PLATFORMS: no labs/platforms/$p.xml" >&2; exit 2; }
done
command -v smpirun >/dev/null 2>&1 || { echo "error: make scale needs SimGrid's smpirun (make deps)" >&2; exit 2; }
[ -x bin/sim/lab2 ] && [ -x bin/sim/lab3 ] && [ -x bin/lab3 ] || {
  echo "error: bin/lab3, bin/sim/lab2 and bin/sim/lab3 missing: make && make SIM=1 bin/sim/lab2 bin/sim/lab3" >&2; exit 2; }
mkdir -p "$OUT/logs" "$OUT/platforms"
source labs/scale/platform.sh
source labs/coretype.sh # the GEMM kernels the labs use
source labs/scale/progress.sh

# 1. The compute model, once per batch and build.
MODEL=$OUT/compute-vgg11-b$SCALE_BATCH.csv
scale_calibrate() {
  local tmp=$OUT/calibrate.tmp
  scale_rm "$tmp"
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 bin/lab3 run --sync none --width 0.5 --batch "$SCALE_BATCH" --iters 6 \
    --timed 6 --no-eval --synthetic --limit $(( SCALE_BATCH * 6 )) --test-limit 64 --out "$tmp" \
    --calibrate-compute compute --quiet > "$OUT/logs/calibrate.log" 2>&1 || {
    echo "error: the compute calibration failed: $OUT/logs/calibrate.log" >&2; exit 1; }
  mv -f "$tmp/compute.csv" "$MODEL"
  scale_rm "$tmp"
}
[ -f "$MODEL" ] && [ "${SCALE_RECALIBRATE:-0}" != 1 ] || scale_calibrate

# The rank counts: 2, 4, .. SCALE_MAX_NP (fattree400g: at most its 1024),
# or SCALE_NP's list (one point of a sweep, e.g. 1024 alone, without the
# hour its smaller counts cost).
RANKS=()
if [ -n "${SCALE_NP:-}" ]; then
  for np in $SCALE_NP; do RANKS+=("$np"); done
else
  for (( np = 2; np <= SCALE_MAX_NP; np *= 2 )); do RANKS+=("$np"); done
fi

# 2 and 3: one configuration each (kind platform np), in order of cost.
CONFIGS=()
for np in "${RANKS[@]}"; do
  for p in $SCALE_PLATFORMS; do
    CONFIGS+=("allreduce $p $np")
    for s in $SCALE_SYNCS; do CONFIGS+=("lab3-$s $p $np"); done
  done
done
progress_start "${CONFIGS[@]}"
RUNS=$OUT/runs.csv
[ -f "$RUNS" ] || echo "kind,platform,np,wall_s,cpu_s,pss_max_mb,rc,folder,date" > "$RUNS"

# the commands, one per kind (set ARGS for scale_run)
cmd_allreduce() { # np
  ARGS=(bin/sim/lab2 bench --algs "$SCALE_ALGS" --sizes "$SCALE_SIZES" --reps 1 --warmups 0 --no-calibrate
        --sim-shared-bytes 1M --quiet)
}
cmd_lab3() { # sync np
  local sync=$1 np=$2 alg=()
  # DDP's buckets and the per-parameter allreduce go over ddlab's
  # Rabenseifner: p log p messages an allreduce where the ring sends p^2,
  # the same bytes per rank (SimGrid's MPI_Iallreduce segfaults on large
  # buffers, labs/platforms/README.md).
  [ "$sync" != gather_scatter ] && alg=(--alg rabenseifner)
  ARGS=(bin/sim/lab3 run --sync "$sync" "${alg[@]}" --width 0.5 --batch "$SCALE_BATCH" --iters 2 --timed 2 --no-eval
        --synthetic --limit $(( SCALE_BATCH * np )) --test-limit 64 --bucket-cap-mb 6.25 --compute-model "$MODEL"
        --private-ranks 2 --quiet)
}

for cfg in "${CONFIGS[@]}"; do
  set -- $cfg
  kind=$1 platform=$2 np=$3
  scale_platform "$platform" "$np" || { progress_skip "$cfg" "$SCALE_WHY"; continue; }
  folder=$OUT/$kind/$platform/np$np
  case $kind in
    allreduce) cmd_allreduce "$np" ;;
    lab3-*) cmd_lab3 "${kind#lab3-}" "$np" ;;
  esac
  progress_begin "$cfg"
  rc=0
  scale_run "$np" "$folder" "$OUT/logs/$kind-$platform-np$np" || rc=$?
  m=$OUT/logs/$kind-$platform-np$np.pss
  echo "$kind,$platform,$np,$(sed -n 's/^wall_s=//p' "$m"),$(sed -n 's/^cpu_s=//p' "$m"),$(sed -n 's/^pss_max_mb=//p' "$m"),$rc,$folder,$(date -u +%FT%TZ)" >> "$RUNS"
  progress_end "$cfg" "$rc" "$m"
done

python3 labs/scale/summary.py "$OUT"
