#!/usr/bin/env bash
# emu_check.sh - proves the emulated GPU's strict mode (DDL_EMU_STRICT=1,
# core/cuda/README.md "Strict mode") catches what it claims, then holds the
# CUDA tests to it.
#
#   tests/emu_check.sh planted        every planted bug of bin/tests/emu_planted,
#                                     each in its own process:
#                                     "emu-check <case>: caught (<detector>)" or
#                                     "emu-check <case>: missed ..."; the clean
#                                     case must run without a report
#   tests/emu_check.sh suite SEED...  the CUDA tests in strict mode, once per
#                                     thread-order seed (DDL_EMU_SEED):
#                                     "emu-check suite: clean" or each report
#   tests/emu_check.sh all            planted, then suite with EMU_CHECK_SEEDS
#                                     (default "1 2 3"): make emu-check
#
# Exit status 0 only when nothing was missed and the suite was clean.
# BIN (default bin) names the build; EMU_CHECK_JOBS (default: the cores)
# how many suite programs run at once.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 2
BIN=${BIN:-bin}
PLANTED=$BIN/tests/emu_planted
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

planted() {
    local bad=0 c det out rc
    if [ ! -x "$PLANTED" ]; then
        echo "emu-check: $PLANTED is not built (make $PLANTED)" >&2
        return 1
    fi
    out=$(DDL_EMU_STRICT=1 "$PLANTED" clean 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "emu-check clean: no report (the same kinds of work without a bug run through)"
    else
        echo "emu-check clean: FAILED (exit $rc): $(tail -n 2 <<<"$out" | tr '\n' ' ')"
        bad=1
    fi
    # Strict mode sees only ddl_shared arrays (emu.h): a plain __shared__
    # array would race unwatched.
    local plain
    plain=$(grep -n '__shared__' core/cuda/*.cu core/cuda/*.h | grep -v '__shared__ ddl_shared<' | grep -v '^[^:]*:[0-9]*: *//')
    if [ -z "$plain" ]; then
        echo "emu-check declarations: every __shared__ array in core/cuda is a ddl_shared (strict mode watches it)"
    else
        echo "emu-check declarations: FAILED, plain __shared__ arrays strict mode cannot watch: $(tr '\n' ' ' <<<"$plain")"
        bad=1
    fi
    while read -r c det; do
        out=$(DDL_EMU_STRICT=1 "$PLANTED" "$c" 2>&1)
        rc=$?
        if [ "$rc" -ne 0 ] && grep -q "strict mode: $det:" <<<"$out"; then
            echo "emu-check $c: caught ($det)"
        else
            echo "emu-check $c: missed (exit $rc, expected a '$det' report): $(tail -n 2 <<<"$out" | tr '\n' ' ')"
            bad=1
        fi
    done < <("$PLANTED" --list)
    return $bad
}

# The CUDA tests: every program that runs kernels on the emulated GPU.
SUITE=(tests/test_cuda_kernels_emu tests/test_cuda_emu tests/test_backend_kernels tests/test_backend_models
    tests/test_conv_paths)
# and each convolution path's kernel table (tests/test_path_<name>.c)
for f in tests/test_path_*.c; do SUITE+=("${f%.c}"); done

suite_one() { # seed program -> its log; status: 0 clean
    local seed=$1 prog=$2 log=$3
    if [ "$prog" = mpi_comm_device ]; then
        DDL_EMU_STRICT=1 DDL_EMU_SEED=$seed timeout 900 mpirun --oversubscribe --bind-to none --mca pml ob1 \
            --mca btl self,vader -np 2 "$BIN/tests/mpi_comm_device" >"$log" 2>&1
    else
        DDL_EMU_STRICT=1 DDL_EMU_SEED=$seed timeout 900 "$BIN/$prog" >"$log" 2>&1
    fi
    local rc=$?
    [ "$rc" -eq 0 ] && ! grep -q -e '^not ok - ' -e 'strict mode: ' "$log"
}

suite() {
    local seed prog tmp bad=0 jobs=${EMU_CHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    for seed in "$@"; do
        local pids=() names=()
        for prog in "${SUITE[@]}" mpi_comm_device; do
            while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
            suite_one "$seed" "$prog" "$tmp/$seed-$(basename "$prog").log" &
            pids+=($!) names+=("$prog")
        done
        local i
        for i in "${!pids[@]}"; do
            if ! wait "${pids[$i]}"; then
                bad=1
                local log="$tmp/$seed-$(basename "${names[$i]}").log"
                echo "emu-check suite: seed $seed, ${names[$i]}: $(grep -m 1 -e 'strict mode: ' -e '^not ok - ' "$log" ||
                    tail -n 1 "$log")"
                grep -A 1 'strict mode: ' "$log" | sed -n '2p' | sed 's/^/    /'
            fi
        done
        echo "emu-check suite: seed $seed done ($(printf '%s ' "${SUITE[@]##*/}")mpi_comm_device np2)"
    done
    if [ "$bad" -eq 0 ]; then echo "emu-check suite: clean (seeds $*)"; fi
    return $bad
}

case ${1:-all} in
    planted) planted ;;
    suite) shift; [ $# -gt 0 ] || set -- 1; suite "$@" ;;
    all)
        planted
        p=$?
        # shellcheck disable=SC2086
        suite ${EMU_CHECK_SEEDS:-1 2 3}
        s=$?
        [ "$p" -eq 0 ] && [ "$s" -eq 0 ]
        ;;
    *) echo "usage: $0 planted | suite SEED... | all" >&2; exit 2 ;;
esac
