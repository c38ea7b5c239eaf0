#!/usr/bin/env bash
# gpu_check.sh - the driver of `make gpu-check` and `make gpu-kit`
# (mk/gpu-check.mk says what they are for and how to call them on the
# GPU machine; core/cuda/README.md has the one-paragraph recipe).
#
#   tests/gpu_check.sh run                  (make gpu-check)
#   tests/gpu_check.sh kit DIR [OPENBLAS]   (make gpu-kit)
#
# run: the steps below, in this order, each with its own time limit, none
# started after the deadline (GPU_CHECK_DEADLINE_S, default 420: a device
# command ends at 600 s, and the machine's start and the copies back take
# some of it). The summary lists every step from the start ("pending"),
# and is written anew, with the step's log, as each step ends, into
# GPU_CHECK_OUT (default results/gpu-check): a run cut short still leaves
# every result so far, and the steps it did not reach say "skipped
# (deadline)". Every step runs even when an earlier one failed.
#
# The steps, each in its own file under tests/gpu/ (its header says what
# it checks and why), in this order:
#   1   build the gpu-check tree                   01-build.sh
#   2   test_cuda_kernels, the GPU probe           02-gpu-probe.sh
#   3a-3d  compute-sanitizer's four tools          03-sanitizers.sh
#   4a-4c  the backend tests and mpi_comm_device   04abc-backend.sh
#   4d  lab1's cnn3 on the CPU and on the GPU      04d-lab1.sh
#   4e  test_conv_cudnn                            04e-conv-cudnn.sh
#   5a  the SGEMM peak                             05a-gemm-peak.sh
#   5b  ddlab's training step on the GPU           05b-step-ddlab.sh
#   5c  PyTorch eager, the same steps              05c-step-torch.sh
#   5d  --conv cudnn against --conv auto           05d-step-cudnn.sh
# and beside them: run.sh (the settings and the plan), deadline.sh,
# summary.sh, tools.sh, and kit.sh (make gpu-kit).
# Exit status 0 only when nothing failed and nothing was skipped for the
# deadline.
#
# Environment: GPU_CHECK_DEVICE cuda (default) | cuda-emu (dry run on the
# emulated GPU: the same binaries and steps, no GPU needed; PyTorch then
# runs on the CPU as a stand-in). GPU_CHECK_OUT (results/gpu-check),
# GPU_CHECK_DEADLINE_S (420), GC_BIN (bin/gpucheck), GPU_KIT
# (build/gpu-kit), MAKE, JOBS, NVCC, GPU_CHECK_PYTHON (a python with
# torch; default: python3, /usr/bin/python3), GPU_CHECK_BENCH
# ("model:width:batch ..."), GPU_CHECK_LAB1_ARGS, GPU_CHECK_ACC_TOL (0.05),
# GPU_CHECK_LOSS_TOL (0.1), GPU_CHECK_FIRST_TOL (1e-5),
# GPU_CHECK_EARLY_ITERS (16), GPU_CHECK_EARLY_TOL (0.05),
# GPU_CHECK_CUDNN_BENCH ("vgg11:1:256 resnet18:1:256"), CUDNN_HOME,
# GPU_CHECK_SKIP_BUILD=1 (use the tree as it is), GPU_CHECK_ONLY (steps to
# run, e.g. "1,2,4d"; the others are listed as not selected).
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1

# Functions, and the globals the steps share: at the top level, so that
# their declare -A stay global.
for gpu_check_part in tests/gpu/*.sh; do
    # shellcheck source=/dev/null
    source "$gpu_check_part" || exit 1
done

case ${1:-run} in
    run) run_main ;;
    kit) shift; kit_main "$@" ;;
    *) echo "usage: $0 run | kit DIR [OPENBLAS_SO]" >&2; exit 2 ;;
esac
