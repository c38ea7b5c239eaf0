#!/usr/bin/env bash
# e2e_gpu_check.sh - make gpu-check cannot come back empty
# (tests/gpu_check.sh): whatever the deadline, the summary in GPU_CHECK_OUT
# lists every step, finished or "skipped (deadline)", and the run ends
# non-zero when steps were skipped.
#   - GPU_CHECK_DEADLINE_S=0: nothing starts; all 13 steps are listed as
#     skipped (deadline).
#   - (optimised pass only) the dry run on this tree's binaries
#     (GPU_CHECK_SKIP_BUILD=1, GC_BIN=$BIN) with a 20 s deadline: the steps
#     that fit run (how many depends on the machine, so nothing here counts
#     them), the step running at the deadline is cut by its own time limit,
#     the rest are skipped; every step is accounted for and each step that
#     ran left its log in the folder. About 25 s.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STEPS="1 2 3a 3b 3c 3d 4a 4b 4c 4d 5a 5b 5c"

# every_step DIR: "" when every step has a result or says skipped
# (deadline), else what is wrong.
every_step() {
  local sum=$1/summary.txt id line
  [ -f "$sum" ] || { echo "no $sum"; return; }
  for id in $STEPS; do
    line=$(grep -E "^\[(PASS|FAIL|SKIP)\] +$id " "$sum")
    [ -n "$line" ] || { echo "step $id is not listed with a result"; return; }
  done
  grep -q '^\[PENDING\]' "$sum" && echo "a step is still pending"
}

GPU_CHECK_DEVICE=cuda-emu GPU_CHECK_DEADLINE_S=0 GPU_CHECK_OUT="$tmp/d0" GC_BIN="$BIN" tests/gpu_check.sh run \
  >"$tmp/d0.log" 2>&1
rc=$?
bad=$(every_step "$tmp/d0")
skipped=$(grep -c 'skipped (deadline)' "$tmp/d0/summary.txt" 2>/dev/null)
if [ "$rc" -ne 0 ] && [ -z "$bad" ] && [ "${skipped:-0}" -ge 13 ] &&
    head -n 1 "$tmp/d0/summary.txt" | grep -q 'INCOMPLETE: 13 step(s) skipped (deadline)'; then
  echo "ok - gpu-check with a deadline of 0 s starts nothing, lists all 13 steps as skipped (deadline), exits $rc"
else
  echo "not ok - gpu-check with a deadline of 0 s lists every step as skipped (deadline) and fails (exit $rc; $bad;" \
    "$skipped skipped): $(head -n 3 "$tmp/d0/summary.txt" 2>/dev/null | tr '\n' ' ')"
fi

if [ "${SANITIZE:-0}" = 1 ]; then
  echo "# sanitizer pass: the 20 s dry run runs in the optimised pass only"
  exit 0
fi
GPU_CHECK_DEVICE=cuda-emu GPU_CHECK_DEADLINE_S=20 GPU_CHECK_SKIP_BUILD=1 GPU_CHECK_OUT="$tmp/d20" GC_BIN="$BIN" \
  tests/gpu_check.sh run >"$tmp/d20.log" 2>&1
rc=$?
bad=$(every_step "$tmp/d20")
ran=$(grep -E -c '^\[(PASS|FAIL)\]' "$tmp/d20/summary.txt" 2>/dev/null)
nolog=""
grep -q '^\[\(PASS\|FAIL\)\] 2 ' "$tmp/d20/summary.txt" && [ ! -s "$tmp/d20/test_cuda_kernels_emu.log" ] && nolog="step 2 left no log"
if [ -z "$bad" ] && [ -z "$nolog" ] && [ "${ran:-0}" -ge 1 ] && grep -q '^gpu-check: [0-9]* passed' "$tmp/d20/summary.txt"; then
  echo "ok - gpu-check's dry run with a 20 s deadline accounts for all 13 steps ($ran ran, the rest skipped: exit $rc)"
else
  echo "not ok - gpu-check's dry run with a 20 s deadline accounts for every step (exit $rc; $bad $nolog; $ran ran):" \
    "$(tail -n 5 "$tmp/d20.log" | tr '\n' ' ')"
fi
