# tests/gpu/run.sh - make gpu-check: its settings, the plan of steps, and
# the order they run in (a file per step beside this one).
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---------------------------------------------------------------------------
# make gpu-check
# ---------------------------------------------------------------------------
run_main() {
    DEV=${GPU_CHECK_DEVICE:-cuda}
    case $DEV in
        cuda | cuda-emu) ;;
        *) echo "gpu-check: GPU_CHECK_DEVICE=$DEV: use cuda (default) or cuda-emu (dry run)" >&2; exit 2 ;;
    esac
    BIN=${GC_BIN:-bin/gpucheck}
    KIT=${GPU_KIT:-build/gpu-kit}
    MAKE=${MAKE:-make}
    JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
    RES=${GPU_CHECK_OUT:-results/gpu-check}
    DEADLINE_S=${GPU_CHECK_DEADLINE_S:-420}
    case $DEADLINE_S in '' | *[!0-9]*) echo "gpu-check: GPU_CHECK_DEADLINE_S=$DEADLINE_S: whole seconds" >&2; exit 2 ;; esac
    ACC_TOL=${GPU_CHECK_ACC_TOL:-0.05}
    LOSS_TOL=${GPU_CHECK_LOSS_TOL:-0.1}
    FIRST_TOL=${GPU_CHECK_FIRST_TOL:-1e-5}
    EARLY_ITERS=${GPU_CHECK_EARLY_ITERS:-16}
    EARLY_TOL=${GPU_CHECK_EARLY_TOL:-0.05}
    if [ "$DEV" = cuda ]; then
        BENCH=${GPU_CHECK_BENCH:-cnn3:1:64 vgg11:1:256 resnet18:1:256}
        CUDNN_BENCH=${GPU_CHECK_CUDNN_BENCH:-vgg11:1:256 resnet18:1:256}
        REPS=20 WARMUP=5
        GPU_TEST=test_cuda_kernels
    else
        BENCH=${GPU_CHECK_BENCH:-cnn3:1:32}
        CUDNN_BENCH=${GPU_CHECK_CUDNN_BENCH:-cnn3:1:32}
        REPS=5 WARMUP=2
        GPU_TEST=test_cuda_kernels_emu
    fi
    T_START=$(now)
    DATE_START=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    # Not removed: GPU_CHECK_OUT may be where the caller collects results.
    # This run's files replace a previous run's, the summary first.
    mkdir -p "$RES" || exit 1
    rm -f "$RES/summary.txt"
    S_ID=() S_NAME=() S_RES=() S_WALL=() S_DETAIL=()
    GPU_NAME="" STOPPED="" FINISHED=""
    PLAN=("1|build (gcc, nvcc, MPI stub)" "2|$GPU_TEST on $DEV (the GPU probe)"
        "3a|memcheck" "3b|initcheck" "3c|racecheck" "3d|synccheck"
        "4a|test_backend_kernels" "4b|test_backend_models" "4c|mpi_comm_device" "4d|lab1 cnn3: cpu vs $DEV"
        "4e|test_conv_cudnn: cuDNN vs the CPU reference"
        "5a|SGEMM peak on $DEV" "5b|ddlab training step on $DEV" "5c|PyTorch eager training step"
        "5d|training step: --conv cudnn vs auto")
    if command -v timeout >/dev/null; then HAVE_TIMEOUT=1; else HAVE_TIMEOUT=0; fi

    echo "gpu-check: device $DEV, binaries $BIN, results $RES (deadline ${DEADLINE_S}s)"
    write_summary
    run_step 1 step_build
    run_step 2 step_gpu_test
    if [ -z "$STOPPED" ]; then
        run_step 3a step_sanitizer memcheck
        run_step 3b step_sanitizer initcheck
        run_step 3c step_sanitizer racecheck
        run_step 3d step_sanitizer synccheck
        run_step 4a step_backend 4a test_backend_kernels
        run_step 4b step_backend 4b test_backend_models
        run_step 4c step_backend 4c mpi_comm_device
        run_step 4d step_lab1
        run_step 4e step_conv_cudnn
        run_step 5a step_gemm_peak
        run_step 5b step_bench_ddlab
        run_step 5c step_bench_torch
        run_step 5d step_bench_cudnn
    fi
    finish
}
