# tests/gpu/04e-conv-cudnn.sh - gpu-check step 4e:
#   4e  test_conv_cudnn: cuDNN's convolutions against the CPU's im2col on
#       9 shapes, deterministic, descriptors kept (its checks without a GPU
#       run too); skipped, saying why, when the build has no cuDNN or the
#       device cannot run it (the emulated GPU)
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 4e: test_conv_cudnn, cuDNN against the CPU reference ----
step_conv_cudnn() {
    local t0 rc bin=$BIN/tests/test_conv_cudnn log=$RES/test_conv_cudnn.log name="test_conv_cudnn: cuDNN vs the CPU reference"
    t0=$(now)
    run_test 4e "$name" "$bin" "$log" 120 || return
    local p f dp why
    p=$(count '^ok - ' "$log") f=$(count '^not ok - ' "$log") dp=$(count '^ok - cuda cudnn' "$log")
    why=$(cudnn_absent)
    local detail="$p passed, $f failed (exit $rc$([ "$rc" -eq 124 ] && echo ': timed out'))"
    if [ "$f" -eq 0 ] && cut_by_deadline "$rc"; then
        record_cut 4e "$name" "$(since "$t0")" "$detail"
    elif [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then
        record 4e "$name" FAIL "$(since "$t0")" "$detail: $(grep -m 2 '^not ok' "$log" | cut -c1-300 | tr '\n' ' ')"
    elif [ -n "$why" ]; then
        record 4e "$name" SKIP "$(since "$t0")" "$detail without cuDNN; cuDNN itself not run: $why"
    elif [ "$dp" -eq 0 ]; then
        record 4e "$name" FAIL "$(since "$t0")" "$detail, but none by cuDNN on $DEV: $(grep -m 1 '^skip - ' "$log" | cut -c1-300)"
    else
        record 4e "$name" PASS "$(since "$t0")" "$detail; $dp of them by cuDNN on ${GPU_NAME:-$DEV} ($(sed -n 's/^# cuDNN/cuDNN/p' "$log" | head -n 1)); worst errors in $(basename "$log")"
    fi
}
