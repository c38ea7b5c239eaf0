# tests/gpu/01-build.sh - gpu-check step 1:
#   1   build the gpu-check tree (make gpu-check-build; build.log). If only
#       -Werror stops it (a newer compiler there warns), the step fails and
#       the tree is rebuilt with GPUCHECK_WERROR=0 so the other steps run;
#       if it still fails with cuDNN in it, once more with CUDNN=0 (the
#       cuDNN steps then say the build has none).
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 1: build ----
step_build() {
    local t0 rc detail res=PASS
    t0=$(now)
    find_library NCCL NCCL nccl.h nccl "4c cannot run --alg nccl"
    find_library cuDNN CUDNN cudnn.h cudnn
    if [ "${GPU_CHECK_SKIP_BUILD:-0}" = 1 ]; then
        rc=0 detail="skipped by GPU_CHECK_SKIP_BUILD=1: the tree as it is"
        res=SKIP
    else
        echo "gpu-check: building (make -j$JOBS gpu-check-build, log $RES/build.log)"
        limited "$(limit 420)" "$MAKE" --no-print-directory -k -j"$JOBS" gpu-check-build >"$RES/build.log" 2>&1
        rc=$?
        detail="make -j$JOBS gpu-check-build"
        local last=$rc again=()
        if [ "$rc" -ne 0 ]; then
            res=FAIL
            local werr
            werr=$(count '\[-Werror|all warnings being treated as errors' "$RES/build.log")
            if [ "$werr" -gt 0 ] && [ "$rc" -ne 124 ]; then
                echo "gpu-check: -Werror stopped the build; rebuilding with GPUCHECK_WERROR=0 so the other steps run"
                echo "==== gpu-check: again with GPUCHECK_WERROR=0 ====" >>"$RES/build.log"
                again=(GPUCHECK_WERROR=0)
                limited "$(limit 420)" "$MAKE" --no-print-directory -k -j"$JOBS" gpu-check-build "${again[@]}" \
                    >>"$RES/build.log" 2>&1
                last=$?
                detail="$detail: warnings are errors here ($werr diagnostics, build.log); rebuilt with GPUCHECK_WERROR=0: exit $last"
            elif [ "$rc" -eq 124 ]; then
                detail="$detail: timed out"
            else
                detail="$detail: exit $rc; $(grep -m 3 -E 'error|Error' "$RES/build.log" | tr '\n' ' ' | cut -c1-300)"
            fi
        fi
        # A cuDNN that does not build (a wheel's headers that this nvcc
        # refuses) must not cost the other steps: once more without it.
        if [ "$last" -ne 0 ] && [ "$last" -ne 124 ] && [[ "$CUDNN_FROM" != "no cuDNN"* ]]; then
            echo "gpu-check: the build failed with cuDNN; rebuilding with CUDNN=0 so the other steps run"
            echo "==== gpu-check: again with CUDNN=0 ====" >>"$RES/build.log"
            limited "$(limit 420)" "$MAKE" --no-print-directory -k -j"$JOBS" gpu-check-build "${again[@]}" CUDNN=0 \
                >>"$RES/build.log" 2>&1
            last=$?
            detail="$detail; rebuilt without cuDNN (CUDNN=0): exit $last"
            CUDNN_FROM="$CUDNN_FROM, but the build failed with it and was made again without (CUDNN=0)"
        fi
    fi
    local p missing=""
    for p in lab1 bench/train_step tests/test_cuda_kernels tests/test_cuda_kernels_emu tests/test_backend_kernels \
        tests/test_backend_models tests/mpi_comm_device tests/test_conv_cudnn bench/gemm_peak \
        $(for f in tests/test_path_*.c; do echo "${f%.c}"; done); do
        [ -x "$BIN/$p" ] || missing="$missing $p"
    done
    [ -z "$missing" ] || { res=FAIL; detail="$detail; not built:$missing"; }
    # Where the libraries resolve (the kit, the system, or nowhere).
    if [ -x "$BIN/lab1" ]; then
        local libs
        # "dir: lib lib; dir: lib" for the libraries that matter here
        libs=$(ldd "$BIN/lab1" 2>&1 | awk '$2 == "=>" && $1 ~ /^lib(openblas|png16|z|gfortran|quadmath|cudart|cublas|cudnn|gomp)\./ {
                d = $3; sub(/\/[^\/]*$/, "", d); if (!(d in seen)) { seen[d] = 1; dirs[++n] = d }; l[d] = l[d] " " $1 }
            END { for (i = 1; i <= n; i++) printf "%s%s:%s", (i > 1 ? "; " : ""), dirs[i], l[dirs[i]] }')
        echo "==== ldd $BIN/lab1 ====" >>"$RES/build.log"
        ldd "$BIN/lab1" >>"$RES/build.log" 2>&1
        LIBS_FROM="$libs"
        if ldd "$BIN/lab1" 2>&1 | grep -q 'not found'; then
            res=FAIL
            detail="$detail; libraries not found: $(ldd "$BIN/lab1" 2>&1 | awk '/not found/ { print $1 }' | tr '\n' ' ')"
        fi
        detail="$detail; OpenBLAS/libpng/zlib from $([ -f "$KIT/lib/libopenblas.so.0" ] && echo "the kit $KIT" || echo "the system (no $KIT)")"
        detail="$detail; $NCCL_FROM; $CUDNN_FROM"
    fi
    TOOLS="gcc $(gcc -dumpfullversion 2>/dev/null || echo '?'), nvcc $("${NVCC:-nvcc}" --version 2>/dev/null |
        sed -n 's/.*release \([^,]*\),.*/\1/p' | head -n 1)"
    if command -v nvidia-smi >/dev/null; then
        TOOLS="$TOOLS, nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1)"
    fi
    record 1 "build (gcc, nvcc, MPI stub)" "$res" "$(since "$t0")" "$detail"
}
