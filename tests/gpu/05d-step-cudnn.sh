# tests/gpu/05d-step-cudnn.sh - gpu-check step 5d:
#   5d  cuDNN against auto: train_step --conv auto, then --conv cudnn, for
#       vgg11 and resnet18 at batch 256 (GPU_CHECK_CUDNN_BENCH), each with
#       --profile-layers: the step medians, their ratio, the convolutions'
#       share, and every layer's time (bench-cudnn.log): what a cuDNN line
#       of the device rule needs (core/conv/pick.c). The cuDNN run's conv
#       line must say every convolution ran by cuDNN. Skipped, saying why,
#       where cuDNN cannot run.
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 5d: the training step with --conv cudnn against --conv auto ----
# Each model: auto, then cudnn, each with --profile-layers (the step's
# median first, then every layer's; the conv2d sum of the per-layer
# medians is the convolutions' time). The cuDNN run's CSV must say every
# convolution ran by cuDNN.
step_bench_cudnn() {
    local t0 log=$RES/bench-cudnn.log name="training step: --conv cudnn vs auto" why
    t0=$(now)
    why=$(cudnn_absent)
    if [ -n "$why" ]; then
        record 5d "$name" SKIP "$(since "$t0")" "not run: $why"
        return
    fi
    : >"$log"
    local spec m w b conv out rc csv res=PASS detail="" cut=""
    local -A ms=() convms=()
    for spec in $CUDNN_BENCH; do
        IFS=: read -r m w b <<<"$spec"
        w=$(norm_width "$w")
        ms=() convms=()
        for conv in auto cudnn; do
            out=$(limited "$(limit 150)" "$BIN/bench/train_step" --device "$DEV" --conv "$conv" --model "$m" --width "$w" \
                --batch "$b" --reps "$REPS" --warmup "$WARMUP" --profile-layers --out "$RES/bench-cudnn" \
                --tag "$m-w$w-b$b-$conv" 2>&1)
            rc=$?
            printf '$ train_step --device %s --conv %s --model %s --width %s --batch %s --reps %s --warmup %s --profile-layers\n%s\n' \
                "$DEV" "$conv" "$m" "$w" "$b" "$REPS" "$WARMUP" "$out" >>"$log"
            csv=$RES/bench-cudnn/train_step-$m-w$w-b$b-$conv.csv
            if [ "$rc" -eq 0 ] && grep -q 'median [0-9.]* ms' <<<"$out"; then
                ms[$conv]=$(sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -n 1)
                convms[$conv]=$(awk '$1 == "conv2d" && NF == 4 { printf "%.2f", $2 + $3 }' <<<"$out")
                grep -qE '^# conv: [0-9]+ convolutions: all [0-9]+ cuDNN' "$csv" 2>/dev/null || [ "$conv" = auto ] || {
                    res=FAIL
                    detail="$detail$m w$w b$b: the cudnn run's conv line does not say all cuDNN ($(grep -m 1 '^# conv:' "$csv" 2>/dev/null)); "
                }
            elif cut_by_deadline "$rc"; then
                cut=1
                detail="$detail$m w$w b$b --conv $conv: cut at the deadline; "
            else
                res=FAIL
                detail="$detail$m w$w b$b --conv $conv: FAILED (exit $rc: $(tail -n 1 <<<"$out" | cut -c1-200)); "
            fi
        done
        [ -n "${ms[auto]:-}" ] && [ -n "${ms[cudnn]:-}" ] && detail="$detail$(awk -v k="$m w$w b$b" -v a="${ms[auto]}" \
            -v c="${ms[cudnn]}" -v ca="${convms[auto]:-?}" -v cc="${convms[cudnn]:-?}" 'BEGIN {
                printf "%s: auto %s ms, cudnn %s ms, cudnn/auto %.2f (convolutions, sums of per-layer medians: auto %s ms, cudnn %s ms); ",
                       k, a, c, c / a, ca, cc }')"
    done
    detail="$detail(each layer's times: $(basename "$log"))"
    if [ "$res" = PASS ] && [ -n "$cut" ]; then
        record_cut 5d "$name" "$(since "$t0")" "$detail"
        return
    fi
    record 5d "$name" "$res" "$(since "$t0")" "$detail"
}
