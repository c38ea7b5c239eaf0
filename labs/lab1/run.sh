#!/usr/bin/env bash
# make lab1 - single-node training runs, then figures and the table.
#
# quick profile (default; a few minutes on 2 cores):
#   cnn3 on MNIST, 1 epoch, batch 64           (seed 000's network; 98.6%
#                                              on real MNIST after it)
#   mlp  on MNIST, 1 epoch, batch 64           (seed 002's network)
#   vgg11 at width 0.25 on a 10000-image CIFAR-10 subset, 2 epochs, batch 256
#   resnet18 at width 0.25 on the same subset, 1 epoch, batch 128
# paper profile: seed 001's Task 1 (full VGG-11, CIFAR-10, batch 256,
#   1 epoch, lr 0.1) and the MNIST nets for 2 epochs; hours on a laptop CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
LAB_NP_FIXED="lab1 trains one process on all the CPUs it is given (seed 001's Task 1)"
source labs/common.sh
[ -x "$LAB_BIN/lab1" ] || { echo "error: $LAB_BIN/lab1 missing: run make" >&2; exit 1; }
OUT=${RESULTS:-results/lab1} # RESULTS: a test's folder, or an array task's (labs/slurm/sweep.sh)
lab_begin 1
# This machine's SGEMM rate at the threads the runs get (bin/bench/gemm_peak,
# best of 5, about 2 s): the report scales the seed's time per iteration by
# it (report/ddreport/lab1.py). Not one of the lab's jobs (array tasks count
# those), so it runs here, on the host of the batch script.
if [ "${DRY_RUN:-0}" != 1 ] && [ -z "${LAB_ARRAY_TASK:-}${LAB_ARRAY_MERGE:-}" ] && [ -x "${BIN:-bin}/bench/gemm_peak" ]; then
  env OPENBLAS_NUM_THREADS="$(launch_threads 1 "$CORES")" "${BIN:-bin}/bench/gemm_peak" --device "$DEVICE" --out "$OUT.tmp" \
    > "$OUT.tmp/gemm_peak.txt" 2>&1 || note "gemm_peak failed: the report will not scale the seed's time ($OUT/gemm_peak.txt)"
fi
common=(--seed "$SEED" --device "$DEVICE" --profile "$PROFILE" --out "$OUT.tmp")
run() { lab_single "$LAB_BIN/lab1" "${common[@]}" "$@"; }
if [ "$PROFILE" = paper ]; then
  run --model cnn3 --dataset mnist --epochs 2 --batch 64 --lr 0.05
  run --model mlp --dataset mnist --epochs 2 --batch 64 --lr 0.05
  run --model vgg11 --dataset cifar10 --epochs 1 --batch 256 --lr 0.1 --wd 1e-4
  run --model resnet18 --dataset cifar10 --epochs 1 --batch 128 --lr 0.1 --wd 5e-4
else
  run --model cnn3 --dataset mnist --epochs 1 --batch 64 --lr 0.05
  run --model mlp --dataset mnist --epochs 1 --batch 64 --lr 0.05
  run --model vgg11 --dataset cifar10 --width 0.25 --limit 10000 --epochs 2 --batch 256 --lr 0.1 --wd 1e-4
  run --model resnet18 --dataset cifar10 --width 0.25 --limit 10000 --epochs 1 --batch 128 --lr 0.1
fi
lab_commit
labs/lab1/figures.sh
