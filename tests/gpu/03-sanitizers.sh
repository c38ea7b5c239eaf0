# tests/gpu/03-sanitizers.sh - gpu-check steps 3a-3d:
#   Sanitizers first, as the kernels that never ran on a GPU are where bugs
#   hide (compute-sanitizer, built with -lineinfo so reports name lines):
#   3a  memcheck, 3b initcheck, 3c racecheck, 3d synccheck: each on
#       test_cuda_kernels, on every convolution path's test_path_<name> (on
#       the GPU's backend alone, DDL_COMPARE_ONLY), and on one small
#       training step (bench/train_step,
#       resnet18 x0.0625, batch 2) with each forced convolution path:
#       --conv winofused, winograd4, direct, pointwise; memcheck also with
#       --conv cudnn (an access past a workspace or tensor of ours shows
#       there; the other tools would examine cuDNN's own kernels), skipped,
#       saying why, where cuDNN cannot run. On the emulated GPU, 3a runs the
#       same programs in its strict mode instead (core/cuda/README.md), and
#       3b-3d are skipped.
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 3a-3d: the sanitizers, one compute-sanitizer tool per step ----
# Each checks the kernel tests, then one small training step per forced
# convolution path (the kernels most likely to hide a bug: they never ran
# on a GPU before, or rarely).
SAN_PATHS="winofused winograd4 direct pointwise"
SAN_STEP=(--model resnet18 --width 0.0625 --batch 2 --reps 1 --warmup 0)

find_sanitizer() {
    local cs d
    cs=$(command -v compute-sanitizer 2>/dev/null)
    for d in /usr/local/cuda/bin ${CUDA_HOME:+$CUDA_HOME/bin}; do
        [ -z "$cs" ] && [ -x "$d/compute-sanitizer" ] && cs=$d/compute-sanitizer
    done
    echo "$cs"
}

# sanitize_one LOG LABEL CAP CMD...: CMD under the step's checker, appended
# to LOG; prints "LABEL: <what it found>" and returns 0 when clean. The
# checker is compute-sanitizer --tool $SAN_TOOL, or on the emulated GPU
# its strict mode ($SAN_TOOL empty).
sanitize_one() {
    local log=$1 label=$2 cap=$3 rc out errs p f
    shift 3
    if [ "$(left)" -lt 1 ]; then
        echo "$label: skipped (deadline)"
        return 3
    fi
    out=$(mktemp)
    if [ -n "$SAN_TOOL" ]; then
        limited "$(limit "$cap")" "$SAN_CS" --tool "$SAN_TOOL" --error-exitcode 99 "$@" >"$out" 2>&1
    else
        limited "$(limit "$cap")" env DDL_EMU_STRICT=1 "$@" >"$out" 2>&1
    fi
    rc=$?
    { echo "==== $label: $*"; cat "$out"; } >>"$log"
    p=$(count '^ok - ' "$out") f=$(count '^not ok - ' "$out")
    if [ -n "$SAN_TOOL" ]; then
        errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$out" | tail -n 1)
        [ -n "$errs" ] || errs=$(sed -n 's/.*RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$out" | tail -n 1)
    else
        errs=$(count 'strict mode: ' "$out")
    fi
    if grep -q 'Device not supported' "$out"; then
        echo "$label: the tool cannot check on this machine ($(grep -m 1 'Device not supported' "$out" | sed 's/^=* *//'))"
        rm -f "$out"
        return 2
    fi
    rm -f "$out"
    if [ "${errs:-0}" = 0 ] && [ "$f" -eq 0 ] && cut_by_deadline "$rc"; then
        echo "$label: cut at the deadline ($p checks passed so far)"
        return 3
    fi
    local what="${errs:-no} report(s)"
    [ "$p" -gt 0 ] && what="$what, $p checks passed, $f failed"
    [ "$rc" -eq 124 ] && what="$what, timed out"
    echo "$label: $what (exit $rc)"
    [ "$rc" -eq 0 ] && [ "${errs:-x}" = 0 ] && [ "$f" -eq 0 ]
}

step_sanitizer() {
    local tool=$1 id t0 log=$RES/sanitizer-$1.log
    case $tool in memcheck) id=3a ;; initcheck) id=3b ;; racecheck) id=3c ;; *) id=3d ;; esac
    t0=$(now)
    SAN_TOOL=$tool SAN_CS=""
    local name="$tool (compute-sanitizer)"
    if [ "$DEV" = cuda-emu ]; then
        if [ "$tool" != memcheck ]; then
            record "$id" "$name" SKIP 0 "dry run: 3a ran the emulator's strict mode, which stands in for every tool"
            return
        fi
        SAN_TOOL="" name="the emulator's strict mode (stands in for compute-sanitizer)"
    else
        SAN_CS=$(find_sanitizer)
        if [ -z "$SAN_CS" ]; then
            record "$id" "$name" SKIP 0 "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
            return
        fi
    fi
    : >"$log"
    local res=PASS detail="" line rc p prog cut=""
    line=$(sanitize_one "$log" "$GPU_TEST" 150 "$BIN/tests/$GPU_TEST")
    rc=$?
    [ "$rc" -eq 2 ] && { record "$id" "$name" SKIP "$(since "$t0")" "$line"; return; }
    [ "$rc" -eq 3 ] && cut=1
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || res=FAIL
    detail="$line"
    # each path's kernels (tests/test_path_<name>.c), on the device only;
    # the variable set around the call, not by env(1), so that the
    # sanitizer's target is the test itself
    for prog in "$BIN"/tests/test_path_*; do
        line=$(DDL_COMPARE_ONLY=$DEV sanitize_one "$log" "${prog##*/}" 90 "$prog")
        rc=$?
        [ "$rc" -eq 3 ] && cut=1
        [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || res=FAIL
        detail="$detail; $line"
    done
    # cuDNN under memcheck only (the header says why); where it cannot run, why
    local paths=$SAN_PATHS why
    [ "$tool" = memcheck ] && paths="$paths cudnn"
    for p in $paths; do
        if [ "$p" = cudnn ] && why=$(cudnn_absent) && [ -n "$why" ]; then
            detail="$detail; --conv cudnn train_step: not run ($why)"
            continue
        fi
        line=$(sanitize_one "$log" "--conv $p train_step" 60 "$BIN/bench/train_step" --device "$DEV" --conv "$p" \
            "${SAN_STEP[@]}" \
            --out "$RES/bench")
        rc=$?
        [ "$rc" -eq 3 ] && cut=1
        [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || res=FAIL
        detail="$detail; $line"
    done
    detail="$detail (the steps: train_step ${SAN_STEP[*]}; $(basename "$log"))"
    if [ "$res" = PASS ] && [ -n "$cut" ]; then
        record_cut "$id" "$name" "$(since "$t0")" "$detail"
        return
    fi
    record "$id" "$name" "$res" "$(since "$t0")" "$detail"
}
