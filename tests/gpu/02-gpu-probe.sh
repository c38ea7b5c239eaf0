# tests/gpu/02-gpu-probe.sh - gpu-check step 2:
#   2   test_cuda_kernels on the GPU (every CUDA kernel against its CPU
#       reference). It is also the GPU probe: when it finds no usable GPU
#       (it says "# no GPU ... (why)" and runs no checks) gpu-check stops
#       here, FAILED, with "no usable GPU: why".
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 2: test_cuda_kernels, the GPU probe ----
step_gpu_test() {
    local t0 rc bin=$BIN/tests/$GPU_TEST log=$RES/$GPU_TEST.log
    t0=$(now)
    run_test 2 "$GPU_TEST on $DEV" "$bin" "$log" 180 || return
    local p f k why
    p=$(count '^ok - ' "$log") f=$(count '^not ok - ' "$log") k=$(count '^skip - ' "$log")
    GPU_NAME=$(sed -n 's/^# GPU: //p' "$log" | head -n 1)
    if [ "$f" -eq 0 ] && cut_by_deadline "$rc"; then
        record_cut 2 "$GPU_TEST on $DEV" "$(since "$t0")" "$p passed, $f failed"
        return
    fi
    if [ -z "$GPU_NAME" ]; then
        why=$(sed -n 's/^# no GPU[^(]*(\(.*\)); test_cuda_kernels_emu.*/\1/p' "$log" | head -n 1)
        [ -n "$why" ] || why="$GPU_TEST found no GPU and ran no checks (exit $rc; $log)"
        STOPPED="no usable GPU: $why"
        record 2 "$GPU_TEST on $DEV" FAIL "$(since "$t0")" \
            "$p passed: the GPU test ran no checks: $STOPPED. A GPU machine where the probe fails fails gpu-check."
        return
    fi
    local res=FAIL
    [ "$rc" -eq 0 ] && [ "$p" -gt 0 ] && [ "$f" -eq 0 ] && res=PASS
    record 2 "$GPU_TEST on $DEV" "$res" "$(since "$t0")" \
        "$p passed, $f failed, $k skipped (exit $rc$([ "$rc" -eq 124 ] && echo ': timed out')) on $GPU_NAME"
}
