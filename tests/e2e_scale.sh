#!/usr/bin/env bash
# e2e_scale.sh - make scale's pieces at 4 simulated ranks, in seconds
# (labs/scale/README.md, core/compute/README.md):
#   - bin/lab3 --calibrate-compute writes a stage model: every layer
#     forward and backward, the loss and the optimizer, with a spread;
#   - a simulated DDP run (cluster4, 4 ranks) with --compute-model and every
#     rank private trains exactly as the native 4-rank run: the same loss
#     on every rank at every step, text for text (the modelled clock
#     changes the time, never the numbers);
#   - with --private-ranks 2, ranks 0 and 1 start from the native run's
#     loss and ranks 2 and 3 have none (they share their state and run no
#     kernel); the outputs say "compute: modelled" and which ranks are
#     private;
#   - a model of another batch, --compute-model natively and
#     --private-ranks without a model are refused.
# Needs SimGrid (skip otherwise); optimised pass only.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_sim_guard "scale e2e"
e2e_begin "scale e2e"
e2e_need bin/lab3
e2e_sim_make bin/sim/lab3 bin/sim/lab3
[ -x bin/sim/lab3 ] || exit 1
e2e_mpi
small=(--width 0.125 --global-batch 32 --iters 3 --timed 3 --no-eval --synthetic --limit 256 --test-limit 64
       --bucket-cap-mb 0.05 --sync ddp --alg ring --quiet)

# The model, at the simulated ranks' batch (8 per rank).
bin/lab3 run --sync none --width 0.125 --batch 8 --iters 4 --timed 4 --no-eval --synthetic --limit 64 \
  --test-limit 16 --out "$tmp/cal" --calibrate-compute model --quiet > "$tmp/cal.log" 2>&1
m=$tmp/cal/model.csv
stages=$(col "$m" name | wc -l)
spread=$(col "$m" sd_us | awk '$1 > 0' | wc -l)
check $([ "$stages" -ge 20 ] && grep -q '^-2,forward,optimizer' "$m" && grep -q '^-1,forward,loss' "$m" &&
        [ "$spread" -gt 0 ] && echo 0 || echo 1) \
  "--calibrate-compute times every stage (layers both ways, loss, optimizer) with a spread" \
  "$stages stages, $spread with sd > 0; $(tail -2 "$tmp/cal.log")"

sim() { # out args...: 4 ranks on cluster4, the network alone, compute modelled
  local out=$1; shift
  ( PLATFORM=cluster4 SIM_HOST_SPEED=1e11 LAB_SIMULATES=1; source labs/common.sh >/dev/null
    LAUNCH_SIM_COMPUTE=0 LAUNCH_SIM_NETWORK=theory launch_prefix_smpirun 4
    "${LAUNCH_CMD[@]}" bin/sim/lab3 run "${small[@]}" --out "$out" "$@" )
}
"${MPIRUN[@]}" -np 4 bin/lab3 run "${small[@]}" --out "$tmp/native" > "$tmp/native.log" 2>&1
check $? "the native 4-rank run" "$(tail -3 "$tmp/native.log")"
sim "$tmp/all" --compute-model "$m" > "$tmp/all.log" 2>&1
check $? "the simulated 4-rank run with the compute modelled" "$(grep -v '^\[' "$tmp/all.log" | tail -3)"
losses() { col "$1/ddp-np4-iters.csv" loss | tr '\n' ' '; }
check "$(is "$(losses "$tmp/all")" "$(losses "$tmp/native")")" \
  "every rank private: the modelled run's losses equal the native run's at every step and rank" \
  "simulated: $(losses "$tmp/all"); native: $(losses "$tmp/native")"

sim "$tmp/shared" --compute-model "$m" --private-ranks 2 > "$tmp/shared.log" 2>&1
check $? "the simulated run with ranks 2 and 3 shared" "$(grep -v '^\[' "$tmp/shared.log" | tail -3)"
first() { awk -F, '/^#/ || /^iter/ {next} $1 == 0 {printf "%s ", $NF}' "$1/ddp-np4-iters.csv"; }
want=$(first "$tmp/native" | awk '{print $1, $2, "nan", "nan"}')
check "$(is "$(first "$tmp/shared" | sed 's/ $//')" "$want")" \
  "ranks 0 and 1 private: their first loss is the native run's; shared ranks 2 and 3 have none" \
  "simulated: $(first "$tmp/shared"); want: $want"
s=$tmp/shared/ddp-np4-summary.csv
grep -q '^# compute: modelled: .*model.csv' "$s" && grep -q '^# private_ranks: ranks 0..1 run their kernels' "$s"
check $? "the outputs say the compute was modelled, from which file, and which ranks are private" \
  "$(grep -E '^# (compute|private_ranks):' "$s")"

sed 's/^\(-\{0,1\}[0-9]*,[a-z]*,[^,]*,[^,]*\),8,/\1,16,/' "$m" > "$tmp/b16.csv"
out=$(sim "$tmp/b16" --compute-model "$tmp/b16.csv" 2>&1); rc=$?
[ "$rc" != 0 ] && grep -q "calibrated at batch 16 per rank, and this run has 8" <<<"$out"
check $? "a model of another batch is refused" "exit $rc; $(grep -v '^\[' <<<"$out" | head -2)"
out=$(bin/lab3 run "${small[@]}" --out "$tmp/n2" --compute-model "$m" 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q "compute-model charges a simulated clock" <<<"$out"
check $? "--compute-model in a native build is refused" "exit $rc; $(head -2 <<<"$out")"
out=$(bin/lab3 run "${small[@]}" --out "$tmp/n3" --private-ranks 1 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q "private-ranks 1: ranks that run no kernels need --compute-model" <<<"$out"
check $? "--private-ranks without a model is refused" "exit $rc; $(head -2 <<<"$out")"
out=$(SCALE_NP="8 3000" labs/scale/run.sh 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q "SCALE_NP='8 3000': rank counts, each 2 .. 1024" <<<"$out"
check $? "make scale refuses a rank count past 1024 before running anything" "exit $rc; $(head -2 <<<"$out")"
timeout 2 labs/scale/pss.sh "$tmp/bound.pss" bash -c 'while :; do :; done' > /dev/null 2>&1; rc=$?
[ "$rc" = 124 ] && grep -q '^rc=124$' "$tmp/bound.pss" && grep -q '^wall_s=2\.' "$tmp/bound.pss" &&
  awk -F= '$1 == "cpu_s" && $2 + 0 > 0 { ok = 1 } END { exit !ok }' "$tmp/bound.pss"
check $? "a configuration stopped at its time bound is still recorded (rc 124, its wall and CPU time so far)" \
  "exit $rc; $(tr '\n' ' ' < "$tmp/bound.pss" 2>/dev/null)"
exit $fail
