# tests/gpu/summary.sh - gpu-check's results: each step's record, and the
# summary, written anew in GPU_CHECK_OUT as each step ends.
# Sourced by tests/gpu_check.sh (functions and their globals only).

# record_cut ID NAME WALL DETAIL: a step the deadline stopped partway; what
# it did so far is in DETAIL.
record_cut() { record "$1" "$2" SKIP "$3" "skipped (deadline) partway, after: $4"; }

# record ID NAME PASS|FAIL|SKIP WALL_S DETAIL: one step's result; the
# summary is written anew each time.
record() {
    S_ID+=("$1") S_NAME+=("$2") S_RES+=("$3") S_WALL+=("$4") S_DETAIL+=("$5")
    printf 'gpu-check: [%s] %s %s (%s s): %s\n' "$3" "$1" "$2" "$4" "$5"
    write_summary
}

# run_test ID NAME BIN LOG SECONDS (in a step, after t0=$(now)): BIN run
# under the step's limit of SECONDS, its output in LOG, its status in the
# caller's rc; returns 1, ID recorded as FAIL, when BIN was not built.
run_test() {
    if [ ! -x "$3" ]; then
        record "$1" "$2" FAIL "$(since "$t0")" "$3 was not built (build.log)"
        return 1
    fi
    limited "$(limit "$5")" "$3" >"$4" 2>&1
    rc=$?
    return 0
}

commit_line() {
    local rev
    if rev=$(git rev-parse --short=12 HEAD 2>/dev/null); then
        git diff --quiet HEAD 2>/dev/null || rev="$rev-dirty"
        echo "$rev"
    else
        echo "unknown here (no git checkout in this copy of the tree)$([ -f "$KIT/MANIFEST.txt" ] &&
            sed -n 's/^commit: */; the kit was made at /p' "$KIT/MANIFEST.txt")"
    fi
}

# RESULT_I: the index in S_* of step ID's result, or "" (no fork: the
# summary asks for every step each time it is written).
result_of() {
    local i
    RESULT_I=""
    for ((i = 0; i < ${#S_ID[@]}; i++)); do [ "${S_ID[$i]}" = "$1" ] && { RESULT_I=$i; return; }; done
}

# What the summary's head says that does not change during a run.
summary_head() {
    local mode="real GPU"
    [ "$DEV" = cuda-emu ] && mode="DRY RUN on the emulated GPU (cuda-emu): no real GPU was used"
    HEAD_STATIC="device:   $DEV ($mode)
deadline: ${DEADLINE_S}s (GPU_CHECK_DEADLINE_S): no step starts after it
host:     $(uname -n), $(nproc) cores, $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
commit:   $(commit_line)"
}

write_summary() {
    local i n=${#S_ID[@]} pass=0 fail=0 skip=0 deadline=0 state p id
    for ((i = 0; i < n; i++)); do
        case ${S_RES[$i]} in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
        [[ "${S_DETAIL[$i]}" == "skipped (deadline)"* ]] && deadline=$((deadline + 1)) # partway too
    done
    if [ -z "$FINISHED" ]; then state="INCOMPLETE (still running, or cut short)"
    elif [ -n "$STOPPED" ]; then state="FAIL: $STOPPED"
    elif [ "$fail" -gt 0 ]; then state="FAIL"
    elif [ "$deadline" -gt 0 ]; then state="INCOMPLETE: $deadline step(s) skipped (deadline)"
    else state="PASS"; fi
    [ -n "${HEAD_STATIC:-}" ] || summary_head
    {
        echo "ddlab gpu-check: $state"
        echo "$HEAD_STATIC"
        if [ -n "$FINISHED" ]; then echo "date:     $DATE_START (start, UTC), $(date -u +%Y-%m-%dT%H:%M:%SZ) (end)"
        else echo "date:     $DATE_START (start, UTC)"; fi
        echo "GPU:      ${GPU_NAME:-none found}"
        echo "binaries: $BIN (gcc + the single-rank MPI stub core/mpistub)"
        echo "libs:     ${LIBS_FROM:-not resolved yet}"
        echo "tools:    ${TOOLS:-}"
        echo
        # Steps in plan order; a detail line (tab-led) is wrapped at 100
        # columns and indented by the awk below.
        local pending=PENDING
        [ -n "$FINISHED" ] && pending=SKIP
        for p in "${PLAN[@]}"; do
            id=${p%%|*}
            result_of "$id"
            i=$RESULT_I
            if [ -z "$i" ]; then
                printf '[%s] %-4s %s\n' "$pending" "$id" "${p#*|}"
                continue
            fi
            printf '[%s] %-4s %-44s %8s s\n\t%s\n' "${S_RES[$i]}" "$id" "${S_NAME[$i]}" "${S_WALL[$i]}" "${S_DETAIL[$i]}"
        done
        echo
        echo "skipped:"
        local any=""
        for ((i = 0; i < n; i++)); do
            [ "${S_RES[$i]}" = SKIP ] && { echo "  ${S_ID[$i]} ${S_NAME[$i]}: ${S_DETAIL[$i]}"; any=1; }
        done
        [ -n "$any" ] || echo "  nothing"
        echo "failed:"
        any=""
        for ((i = 0; i < n; i++)); do
            [ "${S_RES[$i]}" = FAIL ] && { echo "  ${S_ID[$i]} ${S_NAME[$i]}"; any=1; }
        done
        [ -n "$any" ] || echo "  nothing"
        echo "total wall: $(since "$T_START") s"
        echo "logs: $RES/*.log"
        echo "gpu-check: $pass passed, $fail failed, $skip skipped"
    } | awk '!/^\t/ { print; next }
        { t = substr($0, 2); while (length(t) > 88) { c = 88; while (c > 40 && substr(t, c, 1) != " ") c--
              print "            " substr(t, 1, c); t = substr(t, c + 1) }
          print "            " t }' >"$RES/summary.txt.tmp" && mv "$RES/summary.txt.tmp" "$RES/summary.txt"
}

finish() {
    FINISHED=1
    local p id
    for p in "${PLAN[@]}"; do # steps never reached (no GPU): listed as such
        id=${p%%|*}
        result_of "$id"
        [ -n "$RESULT_I" ] || record "$id" "${p#*|}" SKIP 0 "not run: ${STOPPED:-an earlier step stopped the run}"
    done
    write_summary
    echo
    cat "$RES/summary.txt"
    if [ -n "$STOPPED" ]; then
        echo "gpu-check: $STOPPED" >&2
        exit 1
    fi
    grep -q '^\[FAIL\]' <(printf '[%s]\n' "${S_RES[@]}") && exit 1
    grep -q '^skipped (deadline)' <(printf '%s\n' "${S_DETAIL[@]}") && exit 1
    exit 0
}
