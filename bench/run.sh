#!/usr/bin/env bash
# bench/run.sh - `make bench`: ddlab against reference implementations, as
# ratios measured side by side in one run. Never part of `make test`.
#
# Training step (forward + backward + SGD, median of 10 after 3 warm-up
# steps) of vgg11 and cnn3 at batch 64 on the CPU, ddlab vs PyTorch
# (Debian python3-torch) with the same model, batch and thread count.
# Prints: bench <model> b<batch>: ddlab X ms, pytorch Y ms, ratio X/Y
set -uo pipefail
cd "$(dirname "$0")/.."
PROFILE=quick source labs/common.sh
THREADS=${BENCH_THREADS:-$CORES}
export OPENBLAS_NUM_THREADS=$THREADS OMP_NUM_THREADS=$THREADS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# bench: $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $CORES cores,"
echo "#        $THREADS threads, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto}, commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)"
status=0
for spec in "vgg11 64" "cnn3 64"; do
  set -- $spec
  model=$1 batch=$2
  ours=$(bin/bench/train_step --model "$model" --batch "$batch" --reps 10 --warmup 3) || { echo "bench $model: ddlab failed"; status=1; continue; }
  echo "# $ours"
  ms=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$ours")
  gflops=$(sed -n 's/.*ms, \([0-9.]*\) GFLOP\/s.*/\1/p' <<<"$ours")
  if theirs=$(/usr/bin/python3 bench/torch_step.py --model "$model" --batch "$batch" --threads "$THREADS" 2>/dev/null); then
    echo "# $theirs"
    tms=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$theirs")
    ratio=$(awk -v a="$ms" -v b="$tms" 'BEGIN { printf "%.2f", a / b }')
    echo "bench $model b$batch: ddlab $ms ms, pytorch $tms ms, ratio $ratio ($gflops GFLOP/s achieved)"
  else
    echo "bench $model b$batch: ddlab $ms ms, pytorch n/a (install python3-torch), ($gflops GFLOP/s achieved)"
  fi
done
# BLAS peak on this machine, for the GFLOP/s above.
bin/bench/gemm_peak 2>/dev/null || true
for extra in bench/run_*.sh; do
  [ -x "$extra" ] && { "$extra" || status=1; }
done
exit $status
