#!/usr/bin/env bash
# e2e_gpu_check.sh - make gpu-check cannot come back empty
# (tests/gpu_check.sh): whatever the deadline, the summary in GPU_CHECK_OUT
# lists every step, finished or "skipped (deadline)", and the run ends
# non-zero when steps were skipped.
#   - GPU_CHECK_DEADLINE_S=0: nothing starts; all 15 steps are listed as
#     skipped (deadline).
#   - (optimised pass only) the dry run on this tree's binaries
#     (GPU_CHECK_SKIP_BUILD=1, GC_BIN=$BIN) with a 20 s deadline: the steps
#     that fit run (how many depends on the machine, so nothing here counts
#     them), the step running at the deadline is cut by its own time limit,
#     the rest are skipped; every step is accounted for and each step that
#     ran left its log in the folder. About 25 s.
#   - (optimised pass only) step 4d alone (GPU_CHECK_ONLY=4d) on a small
#     lab1 run, cpu against cuda-emu: it passes, printing iteration 0's
#     difference and each iteration's; and with GPU_CHECK_FIRST_TOL=-1 (no
#     difference is small enough) it fails, so the comparison can. About 20 s.
#   - (optimised pass only) the cuDNN steps alone (GPU_CHECK_ONLY=4e,5d) on
#     the emulated GPU, which cannot run cuDNN: 4e runs test_conv_cudnn's
#     checks that need no GPU and is skipped for cuDNN itself, 5d is
#     skipped, each saying why, and the run still ends 0. About 3 s.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin ""
STEPS="1 2 3a 3b 3c 3d 4a 4b 4c 4d 4e 5a 5b 5c 5d"

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
if [ "$rc" -ne 0 ] && [ -z "$bad" ] && [ "${skipped:-0}" -ge 15 ] &&
    head -n 1 "$tmp/d0/summary.txt" | grep -q 'INCOMPLETE: 15 step(s) skipped (deadline)'; then
  ok "gpu-check with a deadline of 0 s starts nothing, lists all 15 steps as skipped (deadline), exits $rc"
else
  bad "gpu-check with a deadline of 0 s lists every step as skipped (deadline) and fails (exit $rc; $bad;" \
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
# Step 2 starts at once (1 was skipped): it ran, to its end or cut partway, and left its log.
s2=$(grep -A 1 -E '^\[(PASS|FAIL|SKIP)\] +2 ' "$tmp/d20/summary.txt" 2>/dev/null | tr -s ' \n' ' ')
started=""
[[ "$s2" == "[PASS]"* || "$s2" == "[FAIL]"* || "$s2" == *"skipped (deadline) partway"* ]] &&
  [ -s "$tmp/d20/test_cuda_kernels_emu.log" ] && started=1
if [ -z "$bad" ] && [ -n "$started" ] && grep -q '^gpu-check: [0-9]* passed' "$tmp/d20/summary.txt"; then
  ok "gpu-check's dry run with a 20 s deadline accounts for all 15 steps, the one at the deadline cut with its log (exit $rc)"
else
  bad "gpu-check's dry run with a 20 s deadline accounts for every step (exit $rc; $bad; step 2: $s2):" \
    "$(tail -n 5 "$tmp/d20.log" | tr '\n' ' ')"
fi

small=(--model cnn3 --width 0.25 --dataset mnist --synthetic --iters 17 --limit 544 --test-limit 64 --batch 32 --lr 0.05 --seed 1)
for tol in 1e-5 -1; do
  GPU_CHECK_DEVICE=cuda-emu GPU_CHECK_ONLY=4d GPU_CHECK_FIRST_TOL=$tol GPU_CHECK_LAB1_ARGS="${small[*]}" \
    GPU_CHECK_OUT="$tmp/l1$tol" GC_BIN="$BIN" tests/gpu_check.sh run >"$tmp/l1$tol.log" 2>&1
  echo "$?" >"$tmp/l1$tol.rc"
done
sum=$tmp/l11e-5/summary.txt
if [ "$(cat "$tmp/l11e-5.rc")" = 0 ] && grep -q '^\[PASS\] 4d ' "$sum" && tr -s ' \n' ' ' <"$sum" |
    grep -q 'iteration 0 (same weights and data): loss differs by [0-9.e+-]* relative.*per iteration (iteration:difference): 0:[0-9.e+-]* 1:'; then
  ok "gpu-check 4d alone: lab1 cpu vs cuda-emu agree, iteration 0 and each iteration's difference printed"
else
  bad "gpu-check 4d alone passes and prints the per-iteration differences (exit $(cat "$tmp/l11e-5.rc")):" \
    "$(grep -A 4 '\] 4d ' "$sum" 2>/dev/null | tr '\n' ' ')"
fi
if [ "$(cat "$tmp/l1-1.rc")" != 0 ] && grep -q '^\[FAIL\] 4d ' "$tmp/l1-1/summary.txt" &&
    tr -s ' \n' ' ' <"$tmp/l1-1/summary.txt" | grep -q 'tol -1: TOO FAR'; then
  ok "gpu-check 4d fails when iteration 0 is held to an impossible tolerance (the comparison can fail)"
else
  bad "gpu-check 4d with GPU_CHECK_FIRST_TOL=-1 fails (exit $(cat "$tmp/l1-1.rc"))"
fi

# The cuDNN steps on the emulated GPU: skipped for cuDNN, saying why; not a failure.
GPU_CHECK_DEVICE=cuda-emu GPU_CHECK_ONLY=4e,5d GPU_CHECK_OUT="$tmp/cudnn" GC_BIN="$BIN" tests/gpu_check.sh run \
  >"$tmp/cudnn.log" 2>&1
rc=$?
sum=$(tr -s ' \n' ' ' <"$tmp/cudnn/summary.txt" 2>/dev/null)
if [ "$rc" = 0 ] && [[ "$sum" == *"[SKIP] 4e "*" passed, 0 failed (exit 0) without cuDNN; cuDNN itself not run: the emulated GPU"* ]] &&
    [[ "$sum" == *"[SKIP] 5d "*"not run: the emulated GPU runs ddlab's own kernels, not cuDNN's"* ]]; then
  ok "gpu-check 4e and 5d on the emulated GPU: test_conv_cudnn's checks without a GPU pass, cuDNN skipped saying why, exit 0"
else
  bad "gpu-check 4e and 5d on the emulated GPU skip cuDNN, saying why (exit $rc):" \
    "$(grep -A 2 -E '\] (4e|5d) ' "$tmp/cudnn/summary.txt" 2>/dev/null | tr '\n' ' ')"
fi
