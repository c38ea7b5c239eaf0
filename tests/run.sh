#!/usr/bin/env bash
# tests/run.sh - run every test program and print "N passed, M failed".
#
# bin/tests/test_*  run once, serially.
# bin/tests/mpi_*   run under mpirun for each rank count listed in the
#                   source's "ddl-test-np:" line (default 1 2 3 4),
#                   oversubscribed where ranks exceed cores.
# bin/fuzz/replay_* each fuzz harness over tests/fuzz/corpus/ and crashes/.
# Each program prints "ok - ..." / "not ok - ..." / "skip - ..." lines; a
# program that dies without reporting counts as one failure, so a crash or
# a hang (TEST_TIMEOUT seconds, default 900) can never pass silently.
# TEST_PHASES="bin:0 bin/san:1" runs the suite on the optimised and the
# sanitizer builds (SANITIZE=1 in a phase turns on ASan/LSan/UBSan options).
# At the end, the slowest programs and their wall times (`make test` has
# a budget of about 15 minutes on 2 cores: they are where to trim).
set -u
cd "$(dirname "$0")/.."
TEST_PHASES=${TEST_PHASES:-"${BIN:-bin}:${SANITIZE:-0}"}
TEST_TIMEOUT=${TEST_TIMEOUT:-900}
export DDL_TEST_ROOT=$PWD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Tests are about correctness: one BLAS thread per process keeps
# oversubscribed MPI runs from thrashing.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
MPIRUN=(mpirun --mca pml ob1 --mca btl self,vader --bind-to none)

pass=0 fail=0 skip=0
times=$(mktemp)
trap 'rm -f "$times"' EXIT
run_one() { # label, command...
  local label=$1; shift
  local out rc t0
  t0=$(date +%s.%N)
  out=$(timeout "$TEST_TIMEOUT" "$@" 2>&1); rc=$?
  echo "$(date +%s.%N) $t0 $label" >> "$times"
  printf '%s\n' "$out" | grep -E '^(ok|not ok|skip) - ' | sed "s|^|[$label] |" || true
  local p f s
  p=$(printf '%s\n' "$out" | grep -c '^ok - ')
  f=$(printf '%s\n' "$out" | grep -c '^not ok - ')
  s=$(printf '%s\n' "$out" | grep -c '^skip - ')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    if [ "$rc" -eq 124 ]; then echo "[$label] not ok - timed out after ${TEST_TIMEOUT}s"
    else echo "[$label] not ok - exited with status $rc without reporting a failure"; fi
    printf '%s\n' "$out" | tail -20 | sed "s|^|[$label]   |"
  elif [ "$f" -gt 0 ]; then
    printf '%s\n' "$out" | grep -v -E '^(ok|not ok|skip) - ' | tail -20 | sed "s|^|[$label]   |"
  fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

run_phase() { # bin-dir, sanitize(0|1)
  local BIN=$1 SANITIZE=$2 tag=""
  [ "$SANITIZE" = 1 ] && tag="san "
  export BIN SANITIZE
  if [ "$SANITIZE" = 1 ]; then
    # Open MPI keeps allocations alive until exit (suppressed); ddlab's own
    # leaks are still reported.
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0
    export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  else
    unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
  fi
  if ! ls "$BIN"/tests/* >/dev/null 2>&1; then
    echo "[${tag}suite] not ok - no test programs in $BIN/tests (build first)"; fail=$((fail + 1)); return
  fi
  for t in "$BIN"/tests/test_*; do
    [ -x "$t" ] || continue
    run_one "$tag$(basename "$t")" "$t"
  done
  for t in "$BIN"/tests/mpi_*; do
    [ -x "$t" ] || continue
    local name nps
    name=$(basename "$t")
    nps=$(grep -ho 'ddl-test-np:[ 0-9]*' "tests/$name.c" 2>/dev/null | head -1 | cut -d: -f2)
    for np in ${nps:-1 2 3 4}; do
      run_one "$tag$name np$np" "${MPIRUN[@]}" -np "$np" "$t"
    done
  done
  # Every fuzz harness (tests/fuzz/<target>.c), built without libFuzzer,
  # replayed over its committed corpus and crash inputs: one check each.
  for src in tests/fuzz/*.c; do
    local target
    target=$(basename "$src" .c)
    [ "$target" = replay_main ] && continue
    run_one "${tag}fuzz_replay $target" tests/fuzz/replay.sh "$BIN" "$target"
  done
  # The labs' e2e tests leave their tables and figures here for
  # e2e_report.sh, which sorts after them (tests/share_outputs.sh).
  DDL_E2E_SHARE=$(mktemp -d)
  export DDL_E2E_SHARE
  for t in tests/e2e_*.sh; do
    [ -x "$t" ] || continue
    run_one "$tag$(basename "$t" .sh)" "$t"
  done
  rm -rf "$DDL_E2E_SHARE"
  unset DDL_E2E_SHARE
}

for phase in $TEST_PHASES; do
  run_phase "${phase%%:*}" "${phase##*:}"
done

echo
echo "# slowest test programs (wall seconds):"
awk '{ printf "%8.1f  %s\n", $1 - $2, substr($0, index($0, $3)) }' "$times" | sort -rn | head -12 | sed 's/^/#   /'
awk '{ s += $1 - $2 } END { printf "# all test programs: %.0f s\n", s }' "$times"
if [ "$skip" -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"
else echo "$pass passed, $fail failed"; fi
[ "$fail" -eq 0 ]
