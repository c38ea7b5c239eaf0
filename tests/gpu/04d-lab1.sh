# tests/gpu/04d-lab1.sh - gpu-check step 4d:
#   4d  lab1's cnn3, same small settings, on the CPU and on the GPU. Both
#       start from the same weights and data, so iteration 0's loss must
#       agree tightly (GPU_CHECK_FIRST_TOL, 1e-5 relative: only the
#       summation order differs); after that the two sides' rounding
#       differences grow as training amplifies them (on the emulated GPU,
#       6.7e-5 by iteration 15; bit-identical runs only where every path
#       matches), so the first GPU_CHECK_EARLY_ITERS (16) losses are held
#       to a loose GPU_CHECK_EARLY_TOL (0.05) and the final test accuracy
#       and loss to GPU_CHECK_ACC_TOL and GPU_CHECK_LOSS_TOL; the summary
#       prints each early iteration's difference either way. (The final
#       accuracies of such runs spread over 0.90-0.93: CPU 0.9250 and
#       0.9275, emulated GPU 0.9010 and 0.9050; an H200 gave 0.9215 against
#       the CPU's 0.9065.)
# Sourced by tests/gpu_check.sh (functions and their globals only).

# The training losses of two lab1 runs (their *-iters.csv), iteration by
# iteration over the first n: "i:rel ..." (rel = |a - b| / |a|), or nothing
# when either file is missing.
loss_diffs() {
    local a b
    a=$(ls "$1"/*-iters.csv 2>/dev/null | head -n 1) b=$(ls "$2"/*-iters.csv 2>/dev/null | head -n 1)
    [ -n "$a" ] && [ -n "$b" ] || return 0
    awk -F, -v n="$3" '
        /^#/ { next }
        !(FILENAME in hdr) { for (i = 1; i <= NF; i++) if ($i == "loss") col[FILENAME] = i; hdr[FILENAME] = 1; next }
        { k = ++row[FILENAME]; if (k <= n) v[FILENAME, k] = $(col[FILENAME]) }
        END {
            m = row[ARGV[1]] < row[ARGV[2]] ? row[ARGV[1]] : row[ARGV[2]]; if (m > n) m = n
            for (k = 1; k <= m; k++) {
                x = v[ARGV[1], k]; y = v[ARGV[2], k]; d = x - y; if (d < 0) d = -d
                s = x < 0 ? -x : x; if (s < 1e-30) s = 1e-30
                printf "%s%d:%.2g", (k > 1 ? " " : ""), k - 1, d / s
            }
            printf "\n" }' "$a" "$b"
}

# The verdict of 4d from the two runs' numbers: "PASS ..." or "FAIL ...".
lab1_verdict() { # acc_cpu acc_dev loss_cpu loss_dev diffs
    awk -v a1="$1" -v a2="$2" -v l1="$3" -v l2="$4" -v diffs="$5" -v at="$ACC_TOL" -v lt="$LOSS_TOL" \
        -v ft="$FIRST_TOL" -v en="$EARLY_ITERS" -v et="$EARLY_TOL" 'BEGIN {
            da = a1 - a2; if (da < 0) da = -da; dl = l1 - l2; if (dl < 0) dl = -dl
            num = "^[0-9]+([.][0-9]+)?$"   # no nan, inf or empty value passes
            m = split(diffs, d, " "); worst = 0; first = -1; bad = 0
            for (k = 1; k <= m; k++) {
                split(d[k], kv, ":"); r = kv[2]
                if (r !~ /^[0-9.e+-]+$/) bad = 1
                if (k == 1) first = r + 0; else if (r + 0 > worst) worst = r + 0
            }
            fok = m >= 1 && !bad && first <= ft + 0
            eok = m == en && !bad && worst <= et + 0
            ok = (a1 ~ num && a2 ~ num && l1 ~ num && l2 ~ num && da <= at && dl <= lt && fok && eok)
            printf "%s iteration 0 (same weights and data): loss differs by %s relative (tol %s: %s); ",
                   (ok ? "PASS" : "FAIL"), (m ? first : "n/a (no iters.csv)"), ft, (fok ? "ok" : "TOO FAR")
            printf "iterations 1..%d: at most %s (tol %s: %s); ", en - 1, (m > 1 ? worst : "n/a"), et,
                   (eok ? "ok" : "TOO FAR")
            printf "|acc diff| %.4f (tol %s), |loss diff| %.4f (tol %s): %s", da, at, dl, lt,
                   (ok ? "they agree" : "they DISAGREE") }'
}

# ---- 4d: lab1 cnn3 on the CPU and on the GPU ----
step_lab1() {
    local t0 d rc args name="lab1 cnn3: cpu vs $DEV"
    t0=$(now)
    # shellcheck disable=SC2206
    args=(${GPU_CHECK_LAB1_ARGS:---model cnn3 --dataset mnist --synthetic --epochs 2 --limit 4096 --test-limit 2000 --batch 64 --lr 0.05 --seed 1})
    if [ ! -x "$BIN/lab1" ]; then
        record 4d "$name" FAIL "$(since "$t0")" "$BIN/lab1 was not built (build.log)"
        return
    fi
    local -A acc=() loss=() ms=() wall=() ok=()
    for d in cpu "$DEV"; do
        local t1 csv
        t1=$(now)
        limited "$(limit 150)" "$BIN/lab1" "${args[@]}" --profile smoke --device "$d" --out "$RES/lab1-$d" \
            --figures "$RES/lab1-figures" >"$RES/lab1-$d.log" 2>&1
        rc=$?
        wall[$d]=$(since "$t1")
        csv=$(ls "$RES/lab1-$d"/*-summary.csv 2>/dev/null | head -n 1)
        if [ "$rc" -eq 0 ] && [ -n "$csv" ]; then
            acc[$d]=$(csv_field "$csv" test_accuracy) loss[$d]=$(csv_field "$csv" test_loss) ms[$d]=$(csv_field "$csv" ms_mean)
            ok[$d]=1
        else
            ok[$d]=""
            acc[$d]="exit $rc$([ "$rc" -eq 124 ] && echo ' (timed out)'): $(tail -n 1 "$RES/lab1-$d.log" | cut -c1-200)"
        fi
    done
    local detail="${args[*]}: " res=FAIL diffs="" cut=""
    cut_by_deadline "${rc:-0}" && cut=1
    for d in cpu "$DEV"; do
        if [ -n "${ok[$d]}" ]; then
            detail="$detail$d: test acc ${acc[$d]}, loss ${loss[$d]}, ${ms[$d]} ms/iter (${wall[$d]} s); "
        else
            detail="$detail$d: FAILED ${acc[$d]}; "
        fi
    done
    diffs=$(loss_diffs "$RES/lab1-cpu" "$RES/lab1-$DEV" "$EARLY_ITERS")
    if [ -n "${ok[cpu]}" ] && [ -n "${ok[$DEV]}" ]; then
        local verdict
        verdict=$(lab1_verdict "${acc[cpu]}" "${acc[$DEV]}" "${loss[cpu]}" "${loss[$DEV]}" "$diffs")
        res=${verdict%% *}
        detail="$detail${verdict#* }"
    fi
    detail="$detail; relative loss difference per iteration (iteration:difference): ${diffs:-none (no iters.csv)}"
    printf 'relative training-loss difference, cpu vs %s, per iteration:\n%s\n' "$DEV" "${diffs:-none}" \
        >"$RES/lab1-diff.log"
    local dd
    dd=$(sed -n 's/^# device_detail: //p' "$RES/lab1-$DEV"/*-summary.csv 2>/dev/null | head -n 1)
    [ -n "$dd" ] && detail="$detail; the $DEV run's device: $dd"
    if [ -n "$cut" ] && [ -z "${ok[$DEV]}" ]; then
        record_cut 4d "$name" "$(since "$t0")" "$detail"
        return
    fi
    record 4d "$name" "$res" "$(since "$t0")" "$detail"
}
