# tests/gpu/05c-step-torch.sh - gpu-check step 5c:
#   5c  the same steps in PyTorch eager on the GPU (bench/torch_step_gpu.py;
#       skipped when torch is not importable or torch.cuda.is_available() is
#       False; its probe has a time limit too); same parameter counts required
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 5c: PyTorch eager, the same steps ----
step_bench_torch() {
    local t0 py="" c tdev=cuda log=$RES/bench-torch.log tried=""
    t0=$(now)
    for c in ${GPU_CHECK_PYTHON:-} python3 /usr/bin/python3; do
        command -v "$c" >/dev/null || continue
        tried="$tried $c"
        if "$c" -c 'import torch' >/dev/null 2>&1; then py=$c; break; fi
    done
    local name="PyTorch eager training step"
    if [ -z "$py" ]; then
        record 5c "$name" SKIP "$(since "$t0")" "torch is not importable (tried:${tried:- no python3}); set GPU_CHECK_PYTHON"
        return
    fi
    local stand_in=""
    if [ "$DEV" = cuda-emu ]; then
        tdev=cpu
        stand_in="DRY RUN: PyTorch on the CPU stands in for the GPU, so the ratios mean nothing; "
    fi
    local probe rc
    probe=$(limited "$(limit 60)" "$py" bench/torch_step_gpu.py --device "$tdev" --probe 2>&1)
    rc=$?
    echo "$ $py bench/torch_step_gpu.py --device $tdev --probe"$'\n'"$probe" >"$log"
    if cut_by_deadline "$rc"; then
        record_cut 5c "$name" "$(since "$t0")" "$py's torch probe was running"
        return
    fi
    if [ "$rc" -eq 4 ]; then
        record 5c "$name" SKIP "$(since "$t0")" "$py: $(tail -n 1 <<<"$probe" | sed 's/^torch_step_gpu: //')"
        return
    elif [ "$rc" -ne 0 ]; then
        record 5c "$name" FAIL "$(since "$t0")" "$py bench/torch_step_gpu.py --probe: exit $rc: $(tail -n 1 <<<"$probe" | cut -c1-200)"
        return
    fi
    local specs=() spec m w b
    for spec in $BENCH; do
        IFS=: read -r m w b <<<"$spec"
        specs+=("$m:$(norm_width "$w"):$b")
    done
    local out
    out=$(limited "$(limit 240)" "$py" bench/torch_step_gpu.py --device "$tdev" --reps "$REPS" --warmup "$WARMUP" \
        "${specs[@]}" 2>&1)
    rc=$?
    echo "$ $py bench/torch_step_gpu.py --device $tdev --reps $REPS --warmup $WARMUP ${specs[*]}"$'\n'"$out" >>"$log"
    local res=PASS detail="$stand_in${probe#torch_step_gpu: }; " key line tms tp tl
    if cut_by_deadline "$rc"; then
        record_cut 5c "$name" "$(since "$t0")" "${detail}PyTorch's steps were running"
        return
    fi
    [ "$rc" -eq 0 ] || { res=FAIL; detail="${detail}exit $rc$([ "$rc" -eq 124 ] && echo ' (timed out)'); "; }
    for spec in "${specs[@]}"; do
        IFS=: read -r m w b <<<"$spec"
        key="$m w$w b$b"
        line=$(grep -F "torch_step_gpu $key:" <<<"$out" | head -n 1)
        if [ -z "$line" ]; then
            res=FAIL
            detail="$detail$key: no result ($(tail -n 1 <<<"$out" | cut -c1-200)); "
            continue
        fi
        if grep -q ': error: ' <<<"$line"; then
            res=FAIL
            detail="$detail$key: torch ${line#*: }; "
            continue
        fi
        tms=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' <<<"$line")
        tp=$(sed -n 's/.*params \([0-9]*\).*/\1/p' <<<"$line")
        tl=$(sed -n 's/.*layout \([0-9a-f]*\).*/\1/p' <<<"$line")
        local arch="params $tp"
        if [ -n "${BENCH_PARAMS[$key]:-}" ] && [ "${BENCH_PARAMS[$key]}" != "$tp" ]; then
            res=FAIL
            arch="params DIFFER: ddlab ${BENCH_PARAMS[$key]}, torch $tp"
        elif [ -n "${BENCH_LAYOUT[$key]:-}" ] && [ "${BENCH_LAYOUT[$key]}" != "$tl" ]; then
            res=FAIL
            arch="layout DIFFERS: ddlab ${BENCH_LAYOUT[$key]}, torch $tl"
        elif [ -n "${BENCH_PARAMS[$key]:-}" ]; then
            arch="$arch on both sides"
        fi
        if [ -n "${BENCH_MS[$key]:-}" ]; then
            detail="$detail$key: ddlab ${BENCH_MS[$key]} ms, torch $tms ms, ddlab/torch $(awk -v a="${BENCH_MS[$key]}" -v t="$tms" 'BEGIN { printf "%.2f", a / t }') ($arch); "
        else
            detail="$detail$key: torch $tms ms, no ddlab time ($arch); "
        fi
    done
    record 5c "$name" "$res" "$(since "$t0")" "$detail"
}
