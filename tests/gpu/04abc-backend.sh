# tests/gpu/04abc-backend.sh - gpu-check steps 4a-4c:
#   4a  test_backend_kernels and each path's test_path_<name>,
#       4b test_backend_models (every usable backend;
#       each must have run checks on the GPU backend)
#   4c  mpi_comm_device, one rank: NCCL's allreduce on device buffers (FP32,
#       FP16, sum, average, in flight, split) and the host algorithms on
#       device buffers, on the GPU backend (a build without NCCL fails it)
# Sourced by tests/gpu_check.sh (functions and their globals only).

# ---- 4a, 4b, 4c: the backend tests ----
step_backend() {
    local id=$1 name=$2 t0 rc log=$RES/$2.log prog progs
    t0=$(now)
    # test_backend_kernels: the shared kernels; each convolution path's
    # kernel table is its own program (tests/test_path_<name>.c), run
    # here too, into the same log, each with its own time limit
    progs=("$BIN/tests/$name")
    [ "$name" = test_backend_kernels ] && progs+=("$BIN"/tests/test_path_*)
    local first=0 # the first program's exit status that is not 0
    : >"$log"
    for prog in "${progs[@]}"; do
        run_test "$id" "$name" "$prog" "$log.one" 240 || return
        cat "$log.one" >>"$log"
        rm -f "$log.one"
        [ "$first" -ne 0 ] || first=$rc
        [ "$rc" -ne 124 ] || break # the deadline: the rest would not start
    done
    rc=$first
    local p f k dp df res=FAIL
    p=$(count '^ok - ' "$log") f=$(count '^not ok - ' "$log") k=$(count '^skip - ' "$log")
    dp=$(count "^ok - $DEV[ :]" "$log") df=$(count "^not ok - $DEV[ :]" "$log")
    [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] && [ "$dp" -gt 0 ] && res=PASS
    local detail
    detail="$p passed, $f failed, $k skipped (exit $rc$([ "$rc" -eq 124 ] && echo ': timed out')); on $DEV: $dp passed, $df failed"
    [ "$dp" -gt 0 ] || detail="$detail: NO checks ran on $DEV (backend_usable() did not list it)"
    if [ "$res" = FAIL ] && [ "$f" -eq 0 ] && cut_by_deadline "$rc"; then
        record_cut "$id" "$name" "$(since "$t0")" "$detail"
        return
    fi
    record "$id" "$name" "$res" "$(since "$t0")" "$detail"
}
