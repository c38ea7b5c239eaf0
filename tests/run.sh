#!/usr/bin/env bash
# tests/run.sh - run every test program and print "N passed, M failed".
#
# bin/tests/test_*  run once each, TEST_JOBS at a time (default: the
#                   cores): each is one single-threaded process in its own
#                   temporary directories, and serially they left all but
#                   one core idle.
# bin/tests/mpi_*   run under mpirun for each rank count listed in the
#                   source's "ddl-test-np:" line (default 1 2 3 4),
#                   oversubscribed where ranks exceed cores; TEST_MPI_JOBS
#                   runs at a time (default 2: most last a few seconds,
#                   much of it mpirun's start-up, and the suites have
#                   passed at load 5-10); the sanitizer pass at fewer
#                   counts (san_np below).
# bin/fuzz/replay_* each fuzz harness over tests/fuzz/corpus/ and crashes/,
#                   TEST_JOBS at a time.
# tests/e2e_*.sh    TEST_E2E_JOBS at a time (default 2): they launch
#                   mpirun, labs, clusters and network namespaces of their
#                   own, each in its own temporary directories and names,
#                   and none depends on how busy the machine is (two whole
#                   suites have passed side by side at load 5-10). Many
#                   wait on links, daemons, timeouts and compilers, so two
#                   at once keep both cores busy. A script marked
#                   "# ddl-test-order: last: <why>" runs after all the
#                   others have finished (the report, built from the labs'
#                   e2e outputs).
# Reports come in the same order whatever TEST_JOBS is.
# Each program prints "ok - ..." / "not ok - ..." / "skip - ..." lines; a
# program that dies without reporting counts as one failure, so a crash or
# a hang (TEST_TIMEOUT seconds, default 900) can never pass silently.
# TEST_PHASES="bin:0 bin/san:1" runs the suite on the optimised and the
# sanitizer builds (SANITIZE=1 in a phase turns on ASan/LSan/UBSan options).
# An e2e script whose subject is not ddlab's C code (the grader's and the
# report's Python, the launch and clean-up shell) carries a line
# "# ddl-test-pass: optimised: <why>" and runs in the optimised pass only;
# the sanitizer pass prints the reason instead. The C code it drives runs
# under the sanitizers in the labs' own e2e tests.
# TEST_TIER=quick (make test; the default) or full (make test-full):
# every program and script runs in both tiers, but in the quick one the
# long matrices are sampled, so that the suite fits its budget of about 15
# minutes on 2 cores. It is exported as DDL_TEST_TIER: a program or script
# with a quick form (harness.h t_quick(); a script tests
# "${DDL_TEST_TIER:-full}" = quick) prints one "# quick tier: ..." line
# saying what it leaves to make test-full; run by hand, without the
# variable, each runs in full. Here the quick tier
#   - runs the sanitizer pass's MPI tests at 2 and 3 ranks where listed,
#     else at their smallest count above 1 (the full tier: up to
#     TEST_SAN_NP_MAX=4);
#   - runs, in the sanitizer pass, only the e2e scripts marked
#     "# ddl-test-san-quick: <the C code only it reaches>": the rest drive
#     C code that the sanitizer pass's unit and MPI tests, or those
#     scripts, already run;
#   - runs no e2e script marked "# ddl-test-tier: full: <why>".
# At the end, the slowest programs and their wall times (they are where to
# trim).
set -u
cd "$(dirname "$0")/.."
TEST_PHASES=${TEST_PHASES:-"${BIN:-bin}:${SANITIZE:-0}"}
TEST_TIMEOUT=${TEST_TIMEOUT:-900}
TEST_JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
TEST_E2E_JOBS=${TEST_E2E_JOBS:-2}
TEST_MPI_JOBS=${TEST_MPI_JOBS:-2}
TEST_TIER=${TEST_TIER:-quick}
case "$TEST_TIER" in quick|full) ;; *) echo "error: TEST_TIER must be quick or full (got '$TEST_TIER')" >&2; exit 2 ;; esac
export DDL_TEST_TIER=$TEST_TIER
for v in TEST_JOBS TEST_E2E_JOBS TEST_MPI_JOBS; do
  case "${!v}" in ''|*[!0-9]*|0*) echo "error: $v must be a positive integer (got '${!v}')" >&2; exit 2 ;; esac
done
export DDL_TEST_ROOT=$PWD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Test programs started without mpirun are MPI singletons: no spawn
# daemon for them (the labs set the same, core/platform/threads.c).
export OMPI_MCA_ess_singleton_isolated=1
# Tests are about correctness: one BLAS thread per process keeps
# oversubscribed MPI runs from thrashing.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
MPIRUN=(mpirun --mca pml ob1 --mca btl self,vader --bind-to none)
# The emulated GPU runs as a sanitizer in every test (strict mode,
# core/cuda/README.md); the thread- and stream-order seed is drawn per run
# and printed, so that a report can be replayed (DDL_EMU_SEED=N make test).
export DDL_EMU_STRICT=${DDL_EMU_STRICT:-1}
export DDL_EMU_SEED=${DDL_EMU_SEED:-$(( (RANDOM << 15) | RANDOM ))}
echo "# test tier: $TEST_TIER$([ "$TEST_TIER" = quick ] && echo " (make test-full runs every matrix whole)")"
echo "# emulated GPU: DDL_EMU_STRICT=$DDL_EMU_STRICT, thread and stream order seed DDL_EMU_SEED=$DDL_EMU_SEED"

pass=0 fail=0 skip=0
# The temporary folder's entries now, to name at the end what the suite
# left there (tmp_left below).
tmp_root=${TMPDIR:-/tmp}
tmp_before=$(mktemp)
ls -A "$tmp_root" > "$tmp_before" 2>/dev/null
times=$(mktemp)
outs=$(mktemp -d)
skips=$(mktemp) # every skip line, listed with its reason before the last line
# Each test program runs with a TMPDIR of its own inside this folder of the
# suite's, removed when the program ends: Open MPI keeps its session
# folder (ompi.<host>.<uid>, and the pid.N folders a killed mpirun leaves
# in it) in TMPDIR, as do the programs' own temporary files, and the
# machine's /tmp belongs to whoever else runs there. TMPDIR and not
# OMPI_MCA_orte_tmpdir_base: an MCA variable in mpirun's environment is
# passed on to the daemons of emulated hosts and overrides the per-host
# session folders labs/net/rsh.sh gives them (their daemons then raced
# for one folder: e2e_net, e2e_slurm_nodes and e2e_lab6 failed).
# Both levels are open to all with the sticky bit, as /tmp is: a test
# that drops to another user (test_results' write as nobody) must reach
# its own files there as it did in /tmp.
suite_tmp=$(mktemp -d "$tmp_root/ddlab-test.XXXXXX")
chmod 1777 "$suite_tmp"
trap 'rm -rf "$times" "$outs" "$tmp_before" "$skips" "$suite_tmp"' EXIT
started=() # labels of the programs started by start_one, in order

# Run one program (label, command...) into $outs/<k>.out and .rc, and log
# its wall time.
exec_one() {
  local k=$1 label=$2; shift 2
  local t0 own left
  t0=$(date +%s.%N)
  own=$(mktemp -d "$suite_tmp/XXXXXX")
  chmod 1777 "$own"
  # Made before any mpirun of the program runs: two mpiruns started at
  # once in an empty TMPDIR raced to make it ("unable to create the
  # desired directory ... File exists").
  mkdir -m 700 "$own/ompi.$(hostname -s 2>/dev/null || hostname).$(id -u)"
  TMPDIR=$own timeout "$TEST_TIMEOUT" "$@" > "$outs/$k.out" 2>&1
  echo $? > "$outs/$k.rc"
  # What the program left in its TMPDIR other than Open MPI's session
  # folder is named (a test must remove what it made), then removed.
  left=$(ls -A "$own" | grep -v '^ompi\.' | head -10 | tr '\n' ' ')
  [ -n "$left" ] && echo "# left in TMPDIR by $label: $left" >> "$outs/$k.out"
  rm -rf "$own"
  echo "$(date +%s.%N) $t0 $label" >> "$times"
}

# Count and print one finished program's checks (label, output file, exit status).
report_one() {
  local label=$1 file=$2 rc=$3
  grep -E '^(ok|not ok|skip) - |^# quick tier: |^# left in TMPDIR ' "$file" | sed "s|^|[$label] |" || true
  local p f s
  p=$(grep -c '^ok - ' "$file")
  f=$(grep -c '^not ok - ' "$file")
  s=$(grep -c '^skip - ' "$file")
  grep '^skip - ' "$file" | sed "s|^skip - |[$label] |" >> "$skips"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    if [ "$rc" -eq 124 ]; then echo "[$label] not ok - timed out after ${TEST_TIMEOUT}s"
    else echo "[$label] not ok - exited with status $rc without reporting a failure"; fi
    tail -20 "$file" | sed "s|^|[$label]   |"
  elif [ "$f" -gt 0 ]; then
    grep -v -E '^(ok|not ok|skip) - ' "$file" | tail -20 | sed "s|^|[$label]   |"
  fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

# A program run alone, reported at once.
run_one() { # label, command...
  exec_one serial "$@"
  report_one "$1" "$outs/serial.out" "$(cat "$outs/serial.rc")"
}

# A program started in the background once fewer than TEST_JOBS run;
# finish_started waits for them all and reports them in the order started.
start_one() { # label, command...
  while [ "$(jobs -rp | wc -l)" -ge "${JOBS_NOW:-$TEST_JOBS}" ]; do wait -n; done
  local k=${#started[@]}
  started+=("$1")
  exec_one "$k" "$@" &
}

finish_started() {
  wait
  local k
  for k in "${!started[@]}"; do report_one "${started[$k]}" "$outs/$k.out" "$(cat "$outs/$k.rc")"; done
  started=()
  rm -f "$outs"/*
}

# Which rank counts the sanitizer pass runs (np, then the test's list).
# Full tier: up to TEST_SAN_NP_MAX=4 ranks, which already take every
# branch the algorithms have (one rank, powers of two, the
# non-power-of-two fold at 3); 5-8 ASan processes on 2 cores cost
# minutes. Quick tier: 2 and 3 ranks (a multi-rank exchange and the fold),
# or the smallest count above 1 when the list has neither. The optimised
# pass runs every count.
san_np() {
  local np=$1; shift
  if [ "$TEST_TIER" = full ]; then [ "$np" -le "${TEST_SAN_NP_MAX:-4}" ]; return; fi
  case " $* " in *" 2 "*|*" 3 "*) [ "$np" = 2 ] || [ "$np" = 3 ]; return ;; esac
  local n
  for n in "$@"; do [ "$n" -gt 1 ] && { [ "$np" = "$n" ]; return; }; done
  return 1
}
san_np_rule() {
  if [ "$TEST_TIER" = full ]; then echo "up to TEST_SAN_NP_MAX=${TEST_SAN_NP_MAX:-4} ranks"
  else echo "2 and 3 ranks, or the smallest count above 1; make test-full runs up to 4"; fi
}

run_phase() { # bin-dir, sanitize(0|1)
  local BIN=$1 SANITIZE=$2 tag=""
  [ "$SANITIZE" = 1 ] && tag="san "
  export BIN SANITIZE
  if [ "$SANITIZE" = 1 ]; then
    # Open MPI keeps allocations alive until exit (suppressed); ddlab's own
    # leaks are still reported.
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0
    export LSAN_OPTIONS="suppressions='$PWD/tests/lsan.supp':print_suppressions=0" # quoted: a checkout path may hold a blank
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  else
    unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
  fi
  if ! ls "$BIN"/tests/* >/dev/null 2>&1; then
    echo "[${tag}suite] not ok - no test programs in $BIN/tests (build first)"; fail=$((fail + 1)); return
  fi
  for t in "$BIN"/tests/test_*; do
    [ -x "$t" ] || continue
    start_one "$tag$(basename "$t")" "$t"
  done
  finish_started
  JOBS_NOW=$TEST_MPI_JOBS
  for t in "$BIN"/tests/mpi_*; do
    [ -x "$t" ] || continue
    local name nps
    name=$(basename "$t")
    nps=$(grep -ho 'ddl-test-np:[ 0-9]*' "tests/$name.c" 2>/dev/null | head -1 | cut -d: -f2)
    local later="" np
    for np in ${nps:-1 2 3 4}; do
      if [ "$SANITIZE" = 1 ] && ! san_np "$np" ${nps:-1 2 3 4}; then later+=" np$np"; continue; fi
      start_one "$tag$name np$np" "${MPIRUN[@]}" -np "$np" "$t"
    done
    [ -n "$later" ] && echo "[$tag$name] # runs$later in the optimised pass only (sanitizer pass, $TEST_TIER tier: $(san_np_rule))"
  done
  finish_started
  unset JOBS_NOW
  # Every fuzz harness (tests/fuzz/<target>.c), built without libFuzzer,
  # replayed over its committed corpus and crash inputs: one check each.
  for src in tests/fuzz/*.c; do
    local target
    target=$(basename "$src" .c)
    [ "$target" = replay_main ] && continue
    start_one "${tag}fuzz_replay $target" tests/fuzz/replay.sh "$BIN" "$target"
  done
  finish_started
  # The labs' e2e tests leave their tables and figures here for
  # e2e_report.sh, which sorts after them (tests/share_outputs.sh).
  DDL_E2E_SHARE=$(mktemp -d)
  export DDL_E2E_SHARE
  local last=()
  JOBS_NOW=$TEST_E2E_JOBS
  for t in tests/e2e_*.sh; do
    [ -x "$t" ] || continue
    if [ "$SANITIZE" = 1 ] && grep -q '^# ddl-test-pass: optimised' "$t"; then
      echo "[$tag$(basename "$t" .sh)] # runs in the optimised pass only ($(grep -m1 '^# ddl-test-pass: optimised' "$t" | sed 's/^# ddl-test-pass: optimised[ :-]*//'))"
      continue
    fi
    if [ "$TEST_TIER" = quick ] && grep -q '^# ddl-test-tier: full' "$t"; then
      echo "[$tag$(basename "$t" .sh)] # runs in make test-full only ($(grep -m1 '^# ddl-test-tier: full' "$t" | sed 's/^# ddl-test-tier: full[ :-]*//'))"
      continue
    fi
    if [ "$TEST_TIER" = quick ] && [ "$SANITIZE" = 1 ] && ! grep -q '^# ddl-test-san-quick' "$t"; then
      echo "[$tag$(basename "$t" .sh)] # runs in the optimised pass here; under the sanitizers in make test-full"
      continue
    fi
    if grep -q '^# ddl-test-order: last' "$t"; then last+=("$t"); continue; fi
    start_one "$tag$(basename "$t" .sh)" "$t"
  done
  finish_started
  unset JOBS_NOW
  for t in ${last[@]+"${last[@]}"}; do run_one "$tag$(basename "$t" .sh)" "$t"; done
  rm -rf "$DDL_E2E_SHARE"
  unset DDL_E2E_SHARE
}

for phase in $TEST_PHASES; do
  run_phase "${phase%%:*}" "${phase##*:}"
done

# TEST_TIMES_OUT=FILE keeps every program's wall time ("seconds label").
[ -n "${TEST_TIMES_OUT:-}" ] && awk '{ printf "%.1f %s\n", $1 - $2, substr($0, index($0, $3)) }' "$times" | sort -rn > "$TEST_TIMES_OUT"
echo
echo "# slowest test programs (wall seconds):"
awk '{ printf "%8.1f  %s\n", $1 - $2, substr($0, index($0, $3)) }' "$times" | sort -rn | head -12 | sed 's/^/#   /'
awk -v wall=$SECONDS '{ s += $1 - $2 } END { printf "# all test programs: %.0f s of their own, %d s of wall time (TEST_JOBS=%s)\n", s, wall, jobs }' jobs="$TEST_JOBS" "$times"
# What is in the temporary folder now and was not at the start, but the
# suite's own files: left by a test (or made by another program running
# meanwhile on this machine, which this cannot tell apart: so it is named,
# not counted as a failure).
tmp_left=$(ls -A "$tmp_root" 2>/dev/null | grep -v -x -F -e "$(basename "$times")" -e "$(basename "$outs")" -e "$(basename "$skips")" \
  -e "$(basename "$tmp_before")" -e "$(basename "$suite_tmp")" | grep -v -x -F -f "$tmp_before" | head -50 | tr '\n' ' ')
[ -n "$tmp_left" ] && echo "# left in $tmp_root since the suite started (by a test, or by another program meanwhile): $tmp_left"
# Each skip with its reason (missing hardware, a missing upstream feature),
# so that a skip nobody expected is seen where the count is.
if [ -s "$skips" ]; then
  echo "# skipped ($skip), each with its reason:"
  sed 's/^/#   /' "$skips"
fi
if [ "$skip" -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"
else echo "$pass passed, $fail failed"; fi
[ "$fail" -eq 0 ]
