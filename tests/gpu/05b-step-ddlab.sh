# tests/gpu/05b-step-ddlab.sh - gpu-check step 5b:
#   5b  ddlab's training step on the GPU: bin/gpucheck/bench/train_step
#       --device (should it refuse the device, lab1 --iters timed per
#       iteration instead, median after warm-up, and the summary says so);
#       its GFLOP/s as a share of 5a's peak; for vgg11 and resnet18
#       (GPU_CHECK_FP16) the mixed-precision step too, against FP32
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 5b: ddlab's training step on the GPU ----
# Per spec "model:width:batch": BENCH_MS[key], BENCH_PARAMS[key], BENCH_LAYOUT[key]
# with key "model w<width> b<batch>".
declare -A BENCH_MS=() BENCH_PARAMS=() BENCH_LAYOUT=() BENCH_HOW=() BENCH_GF=()
PEAK_S="" PEAK_H=""
step_bench_ddlab() {
    local t0 spec m w b key log=$RES/bench-ddlab.log res=PASS detail="" note="" cut=""
    t0=$(now)
    : >"$log"
    for spec in $BENCH; do
        IFS=: read -r m w b <<<"$spec"
        w=$(norm_width "$w")
        key="$m w$w b$b"
        local out rc
        if [ -x "$BIN/bench/train_step" ]; then
            out=$(limited "$(limit 180)" "$BIN/bench/train_step" --device "$DEV" --model "$m" --width "$w" --batch "$b" \
                --reps "$REPS" --warmup "$WARMUP" --out "$RES/bench" 2>&1)
            rc=$?
            printf '$ train_step --device %s --model %s --width %s --batch %s --reps %s --warmup %s\n%s\n' \
                "$DEV" "$m" "$w" "$b" "$REPS" "$WARMUP" "$out" >>"$log"
        else
            out="not built" rc=127
        fi
        if [ "$rc" -eq 0 ] && grep -q 'median [0-9.]* ms' <<<"$out"; then
            BENCH_MS[$key]=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -n 1)
            BENCH_GF[$key]=$(sed -n 's/.*ms, \([0-9.]*\) GFLOP\/s.*/\1/p' <<<"$out" | head -n 1)
            BENCH_PARAMS[$key]=$(sed -n 's/.*params \([0-9]*\).*/\1/p' <<<"$out" | head -n 1)
            BENCH_LAYOUT[$key]=$(sed -n 's/.*layout \([0-9a-f]*\).*/\1/p' <<<"$out" | head -n 1)
            BENCH_HOW[$key]="train_step"
        elif grep -q 'does not train on the GPU yet' <<<"$out" && [ -x "$BIN/lab1" ]; then
            # train_step refuses a GPU: time lab1's iterations instead (same
            # model, home input, batch; synthetic data, no augmentation).
            note="bin/bench/train_step refuses --device $DEV (\"does not train on the GPU yet\"), so ddlab's step is lab1's iteration time (--iters, median after $WARMUP warm-up)"
            local ds=mnist dir=$RES/bench-lab1/$m-w$w-b$b
            case $m in vgg11 | resnet18) ds=cifar10 ;; esac
            out=$(limited "$(limit 180)" "$BIN/lab1" --model "$m" --width "$w" --batch "$b" --dataset "$ds" --synthetic \
                --augment off --iters $((WARMUP + REPS)) --limit $((b * 4)) --test-limit 256 --seed 1 --device "$DEV" \
                --profile smoke --out "$dir" --figures "$RES/lab1-figures" 2>&1)
            rc=$?
            printf '$ lab1 --device %s --model %s --width %s --batch %s --dataset %s --iters %s\n%s\n' \
                "$DEV" "$m" "$w" "$b" "$ds" $((WARMUP + REPS)) "$out" >>"$log"
            local iters summary
            iters=$(ls "$dir"/*-iters.csv 2>/dev/null | head -n 1)
            summary=$(ls "$dir"/*-summary.csv 2>/dev/null | head -n 1)
            if [ "$rc" -eq 0 ] && [ -n "$iters" ]; then
                BENCH_MS[$key]=$(awk -F, -v w="$WARMUP" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
                    $(c["iter"]) >= w { print $(c["ms"]) }' "$iters" | sort -g |
                    awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
                BENCH_PARAMS[$key]=$(csv_field "$summary" params)
                BENCH_HOW[$key]="lab1 --iters"
            fi
        fi
        if [ -n "${BENCH_MS[$key]:-}" ]; then
            detail="$detail$key: median ${BENCH_MS[$key]} ms/step (${BENCH_HOW[$key]}, params ${BENCH_PARAMS[$key]:-?}$(of_peak "${BENCH_GF[$key]:-}")); "
            [[ " ${GPU_CHECK_FP16:-vgg11 resnet18} " == *" $m "* ]] && detail="$detail$(fp16_step "$m" "$w" "$b" "$log")"
        elif cut_by_deadline "$rc"; then
            cut=1
            detail="$detail$key: cut at the deadline; "
        else
            res=FAIL
            detail="$detail$key: FAILED (exit $rc$([ "$rc" -eq 124 ] && echo ', timed out'): $(tail -n 1 <<<"$out" | cut -c1-200)); "
        fi
    done
    [ -n "$note" ] && detail="$detail$note"
    if [ "$res" = PASS ] && [ -n "$cut" ]; then
        record_cut 5b "ddlab training step on $DEV" "$(since "$t0")" "$detail"
        return
    fi
    record 5b "ddlab training step on $DEV" "$res" "$(since "$t0")" "$detail"
}

# " = G GFLOP/s, P% of the SGEMM peak" (5a), when both are known.
of_peak() {
    [ -n "$1" ] || return 0
    if [ -n "$PEAK_S" ]; then
        awk -v g="$1" -v p="$PEAK_S" 'BEGIN { printf ", %.1f GFLOP/s = %.0f%% of the SGEMM peak", g, 100 * g / p }'
    else
        printf ', %s GFLOP/s' "$1"
    fi
}

# fp16_step MODEL WIDTH BATCH LOG: the same step in mixed precision
# (train_step --fp16), and how it compares with FP32 (FP16 should be
# faster than ddlab's own FP32).
fp16_step() {
    local key="$1 w$2 b$3" out rc ms how
    out=$(limited "$(limit 180)" "$BIN/bench/train_step" --device "$DEV" --model "$1" --width "$2" --batch "$3" \
        --reps "$REPS" --warmup "$WARMUP" --fp16 --out "$RES/bench" 2>&1)
    rc=$?
    printf '$ train_step --device %s --model %s --width %s --batch %s --fp16\n%s\n' "$DEV" "$1" "$2" "$3" "$out" >>"$4"
    ms=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -n 1)
    how=$(sed -n 's/.*precision \(.*\))$/\1/p' <<<"$out" | head -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$ms" ]; then
        printf '%s fp16: FAILED (exit %s: %s); ' "$key" "$rc" "$(tail -n 1 <<<"$out" | cut -c1-160)"
        return
    fi
    awk -v k="$key" -v h="$ms" -v f="${BENCH_MS[$key]}" -v how="$how" \
        'BEGIN { r = f / h; printf "%s fp16: median %s ms, fp32/fp16 %.2f (%s, %s); ", k, h, r, (r > 1 ? "faster" : "NOT faster"), how }'
}
