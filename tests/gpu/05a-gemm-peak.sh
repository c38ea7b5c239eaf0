# tests/gpu/05a-gemm-peak.sh - gpu-check step 5a:
#   5a  the SGEMM peak on the GPU (bin/gpucheck/bench/gemm_peak: cublasSgemm
#       and FP16 cublasGemmEx, square 4096 and 8192): the reference for 5b
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 5a: the SGEMM (and FP16 GemmEx) peak, the reference for 5b's GFLOP/s ----
step_gemm_peak() {
    local t0 out rc log=$RES/gemm-peak.log name="SGEMM peak on $DEV"
    t0=$(now)
    out=$(limited "$(limit 120)" "$BIN/bench/gemm_peak" --device "$DEV" 2>&1)
    rc=$?
    echo "$ gemm_peak --device $DEV"$'\n'"$out" >"$log"
    PEAK_S=$(sed -n 's/^bench sgemm [0-9]*^3: \([0-9.]*\) GFLOP.*/\1/p' <<<"$out" | sort -g | tail -n 1)
    PEAK_H=$(sed -n 's/^bench hgemm [0-9]*^3: \([0-9.]*\) GFLOP.*/\1/p' <<<"$out" | sort -g | tail -n 1)
    if [ "$rc" -eq 0 ] && [ -n "$PEAK_S" ]; then
        record 5a "$name" PASS "$(since "$t0")" "best of square GEMMs on $DEV: SGEMM $PEAK_S GFLOP/s, FP16 GemmEx ${PEAK_H:-n/a} GFLOP/s (gemm-peak.log)"
    else
        record 5a "$name" FAIL "$(since "$t0")" "exit $rc: $(tail -n 1 <<<"$out" | cut -c1-200)"
    fi
}
