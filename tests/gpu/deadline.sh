# tests/gpu/deadline.sh - gpu-check's clock and deadline: every step runs
# under a time limit, and none starts after GPU_CHECK_DEADLINE_S.
# Sourced by tests/gpu_check.sh (functions and their globals only).

now() { if [ -n "${EPOCHREALTIME:-}" ]; then printf '%s' "$EPOCHREALTIME"; else date +%s.%N; fi; }
# Seconds since $1 (a now()), one decimal; in bash itself where it can
# (the summary is rewritten after every step: forks add up on a busy machine).
since() {
    local a=$1 b=${EPOCHREALTIME:-}
    [ -n "$b" ] || b=$(date +%s.%N)
    if [[ $a =~ ^[0-9]+\.[0-9]{6}$ && $b =~ ^[0-9]+\.[0-9]{6}$ ]]; then
        local d=$((10#${b/./} - 10#${a/./}))
        printf '%d.%d' $((d / 1000000)) $((d / 100000 % 10))
    else
        awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", b - a }'
    fi
}

# ELAPSED: whole seconds since the start (set without a fork where bash
# has EPOCHREALTIME).
elapsed() {
    if [[ ${EPOCHREALTIME:-} =~ ^[0-9]+\.[0-9]{6}$ && $T_START =~ ^[0-9]+\.[0-9]{6}$ ]]; then
        ELAPSED=$(((10#${EPOCHREALTIME/./} - 10#${T_START/./}) / 1000000))
    else
        ELAPSED=$(awk -v a="$T_START" -v b="$(date +%s.%N)" 'BEGIN { printf "%d", b - a }')
    fi
}

# Seconds left before the deadline (may be negative).
left() {
    elapsed
    echo $((DEADLINE_S - ELAPSED))
}

# run_step ID FUNC ARGS...: the step, unless the deadline has passed (or
# GPU_CHECK_ONLY names other steps).
run_step() {
    local id=$1
    shift
    if [ -n "${GPU_CHECK_ONLY:-}" ] && [[ ",$GPU_CHECK_ONLY," != *",$id,"* ]]; then
        record "$id" "$(plan_name "$id")" SKIP 0 "not selected (GPU_CHECK_ONLY=$GPU_CHECK_ONLY)"
        return
    fi
    elapsed
    if [ $((DEADLINE_S - ELAPSED)) -lt 1 ]; then
        record "$id" "$(plan_name "$id")" SKIP 0 "skipped (deadline): ${DEADLINE_S}s had passed, nothing new starts"
        return
    fi
    "$@"
}

plan_name() {
    local p
    for p in "${PLAN[@]}"; do [ "${p%%|*}" = "$1" ] && { echo "${p#*|}"; return; }; done
    echo "$1"
}

# min(cap, seconds left before the deadline), at least 1.
limit() {
    local l
    l=$(left)
    [ "$l" -lt "$1" ] || l=$1
    [ "$l" -ge 1 ] || l=1
    echo "$l"
}

# limited SECONDS CMD...: CMD with a time limit (exit 124 when it ran out;
# killed 2 s after if it ignores SIGTERM).
limited() {
    local s=$1
    shift
    elapsed
    if [ $((DEADLINE_S - ELAPSED)) -lt 1 ]; then
        echo "gpu-check: not started, the deadline (${DEADLINE_S}s) has passed: $*" >&2
        return 124
    fi
    if [ "$HAVE_TIMEOUT" = 1 ]; then timeout -k 2 "$s" "$@"; else "$@"; fi
}

# cut_by_deadline RC: whether a command's exit status RC is the deadline's
# doing (its time limit was what was left, and it ran out), not the step's.
cut_by_deadline() {
    [ "$1" -eq 124 ] || return 1
    elapsed
    [ $((DEADLINE_S - ELAPSED)) -le 1 ]
}
