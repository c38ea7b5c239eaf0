#!/usr/bin/env bash
# e2e_lab3.sh - `make lab3`'s whole flow (labs/lab3/run.sh) on tiny
# settings (LAB3_SMOKE=1: VGG-11 at width 1/8, 1024 synthetic images, 3
# steps per run) at 3 ranks, then checks what the lab promises: every
# output written, Table 1 with its four tasks and speedup 1 for Task 1,
# scaling curves from 1 to 3 ranks, the bucket sweep with the flat control
# and buckets that shrink in number as the cap grows, gather/scatter's
# bytes equal to the closed form, valid Chrome traces, figures rendered,
# and the oversubscription label. Prints ok / not ok lines.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "lab3 e2e"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
e2e_need "$BIN/lab3"
if ! command -v gnuplot >/dev/null 2>&1; then echo "skip - lab3 e2e: gnuplot not installed (make deps)"; exit 0; fi

R=$tmp/r
NP=3 LAB3_SMOKE=1 LAB3_SEEDS=2 BIN=$BIN RESULTS=$R FIGURES=$tmp/fig TABLES=$tmp/tab labs/lab3/run.sh > "$tmp/run.log" 2>&1
check $? "labs/lab3/run.sh runs every configuration at NP=3" "$(tail -3 "$tmp/run.log")"

t1=$R/table1.csv
# Task 1 again with seed 2 (LAB3_SEEDS=2), beside Table 1, not in it
rep=$R/seed-2/task1-seed2-summary.csv
check $( { [ -s "$rep" ] && grep -q '^# seed: 2$' "$rep" && [ -n "$(col "$rep" test_accuracy)" ]; } && echo 0 || echo 1) \
  "Task 1 repeated with seed 2 in seed-2/, with its accuracy" "$(ls "$R/seed-2" 2>&1 | head -3 | tr '\n' ' ')"
# The repeat varies initialisation and batch order, not the data: its
# metadata name the same data as Task 1's (--data-seed, core/driver/options.c).
one=$(ls "$R"/task1*-summary.csv 2>/dev/null | head -1)
check $(all '[ -n "$one" ] && grep -q "^# data_seed: 1$" "$rep" && [ "$(grep "^# data_source:" "$rep")" = "$(grep "^# data_source:" "$one")" ]') \
  "the seed-2 repeat trains on Task 1's data (data_seed 1, the same data_source)" \
  "$(grep -h "^# data_s" "$rep" "$one" 2>/dev/null | tr '\n' ' ')"
check $(yes_no [ "$(col "$t1" task | tr '\n' ' ')" = "1 2a 2b 3 " ]) "Table 1 has Tasks 1, 2a, 2b, 3" "$(col "$t1" task | tr '\n' ' ')"
check $(yes_no [ "$(col "$t1" speedup | head -1)" = 1.00 ]) "Task 1's speedup is 1.00"
bad=$(col "$t1" s_per_iter | awk '!($1 > 0)' | wc -l)
check $(yes_no [ "$bad" = 0 ]) "every task has a positive time per iteration" "$bad rows"
acc=$(col "$t1" test_accuracy_pct | awk '$1 >= 0 && $1 <= 100' | wc -l)
check $(yes_no [ "$acc" = 4 ]) "every task has a test accuracy" "$acc rows"
grep -q 'tab:lab3}' "$tmp/tab/lab3.tex" && grep -q 'tab:lab3-buckets' "$tmp/tab/lab3.tex"
check $? "report table lab3.tex has Table 1 and the bucket sweep"

for s in gather_scatter allreduce allreduce_flat ddp; do
  check $(yes_no [ "$(col "$R/scaling-$s.csv" np | tr '\n' ' ')" = "1 2 3 " ]) "scaling-$s.csv covers 1, 2, 3 ranks"
done

b=$R/buckets.csv
# the quick profile's caps: 0, 1, 5, 25 and the scaling run's 6.25 MiB
check $( { [ "$(col "$b" label | head -1)" = flat ] && [ "$(col "$b" label | wc -l)" = 6 ]; } && echo 0 || echo 1) \
  "bucket sweep: the flat control and 5 caps" "$(col "$b" label | tr '\n' '|')"
nb=$(col "$b" buckets | tail -n +2 | tr '\n' ' ')
check $(yes_no awk -v s="$nb" 'BEGIN { n = split(s, a, " "); for (i = 2; i <= n; i++) if (a[i] > a[i-1]) exit 1; exit !(a[1] > a[n]) }') \
  "buckets per step fall as the cap grows (per layer first)" "$nb"
hf=$(col "$b" hidden_frac | tail -n +2 | awk '$1 < 0 || $1 > 1 || $1 == ""' | wc -l)
check $(yes_no [ "$hf" = 0 ]) "every DDP run has a hidden fraction in [0, 1]" "$hf bad"

# gather/scatter: every non-root rank sends its gradient, the root sends
# the mean back to each: 2 (P-1)/P gradients per rank per step on average
g=$R/task2a-summary.csv
want=$(awk -v G="$(col "$g" grad_bytes)" 'BEGIN { printf "%.0f", 2 * 2 * G / 3 }')
got=$(col "$g" bytes_sent_per_step)
check $(yes_no [ "$got" = "$want" ]) "gather/scatter sends 2(P-1)/P gradients per rank per step" "got $got, want $want"

if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); ev = [e for e in d["traceEvents"] if e["ph"] == "X"]; assert len({e["pid"] for e in ev}) == 3 and any(e["tid"] == 1 for e in ev)' "$R/task3-trace.json" 2> "$tmp/json.err"
  check $? "task3-trace.json is a Chrome trace with 3 ranks and communication events" "$(tail -1 "$tmp/json.err")"
fi
cores=$(getconf _NPROCESSORS_ONLN)
want=no; [ 3 -gt "$cores" ] && want=yes
grep -q "^# oversubscribed: $want" "$R/task3-summary.csv"
check $? "3-rank runs say oversubscribed: $want ($cores cores)"
grep -q '^# data: synthetic' "$R/task1-summary.csv"
check $? "outputs say the data was synthetic"
n=$(ls "$tmp"/fig/lab3-*.png 2>/dev/null | wc -l)
check $( { [ "$n" -ge 8 ] && [ -s "$tmp/fig/lab3-timeline-task3.png" ] && [ -s "$tmp/fig/lab3-buckets.png" ]; } && echo 0 || echo 1) \
  "figures rendered (scaling, buckets, overlap, timelines)" "$n PNG files"

# On an emulated network Task 1 is one host: it gets the threads each
# rank of the 2-host tasks gets (4 cores stood for by LAB_CORES: the one
# process would otherwise get 4, each of 2 ranks 2). The commands only
# (DRY_RUN=1); the network check needs root.
if labs/net/cluster.sh check > /dev/null 2>&1; then
  DRY_RUN=1 LAB_CORES=4 NET=1gbit NP=2 LAB3_ONLY=table1 LAB3_STEPS=2 BIN=$BIN RESULTS=$tmp/dry labs/lab3/run.sh \
    > "$tmp/dry.log" 2>&1
  th=$(grep -o 'mpirun -np [0-9].* -x OMP_NUM_THREADS=[0-9]*' "$tmp/dry.log" | sed 's/^mpirun -np \([0-9]*\).*OMP_NUM_THREADS=/\1:/' | tr '\n' ' ')
  check $(yes_no [ "$th" = "1:2 2:2 2:2 2:2 " ]) "NET=: Task 1 gets one host's threads, as each rank does (np:threads)" "$th"
else
  echo "skip - lab3 e2e: Task 1's threads on an emulated network (needs root and network namespaces)"
fi

"$BIN/lab3" run --sync nonsense --out "$tmp/x" > /dev/null 2> "$tmp/bad.err"
st=$?
check $( { [ "$st" = 2 ] && grep -q "unknown --sync 'nonsense'" "$tmp/bad.err"; } && echo 0 || echo 1) "an unknown strategy is refused clearly" "status $st"
mpirun -np 2 --oversubscribe --mca pml ob1 --mca btl self,vader "$BIN/lab3" run --sync none --out "$tmp/x" > /dev/null 2> "$tmp/bad2.err"
st=$?
check $( { [ "$st" != 0 ] && grep -q "one process" "$tmp/bad2.err"; } && echo 0 || echo 1) "sync none at 2 ranks is refused clearly" "status $st"

# make bench's paired DDP bar (bin/bench/ddp_bar), tiny: it must run the
# three strategies in one pair of processes and print the line the bench
# parses (no timing is asserted: performance belongs to make bench).
if [ -x "$BIN/bench/ddp_bar" ]; then
  DDL_DATA=/nonexistent mpirun -np 2 --oversubscribe --mca pml ob1 --mca btl self,vader "$BIN/bench/ddp_bar" \
    --width 0.125 --rounds 2 --block 2 --limit 512 --out "$tmp/bench" > "$tmp/bar.out" 2> "$tmp/bar.err"
  st=$?
  check $( { [ "$st" = 0 ] && grep -Eq '^ddp_bar: ddp [0-9.]+ ms, flat [0-9.]+ ms, per-param [0-9.]+ ms, hidden [0-9.]+, rounds ddp<=flat [0-9]+/2, flat<=per-param [0-9]+/2$' "$tmp/bar.out" && grep -q 'synthetic cifar10 data' "$tmp/bar.out"; } && echo 0 || echo 1) \
    "ddp_bar runs ddp, flat and per-param in turns and reports them (synthetic data labelled)" "status $st: $(tail -2 "$tmp/bar.err")"
  mpirun -np 1 --mca pml ob1 --mca btl self,vader "$BIN/bench/ddp_bar" > /dev/null 2> "$tmp/bar1.err"
  st=$?
  check $( { [ "$st" != 0 ] && grep -q "2 or more ranks" "$tmp/bar1.err"; } && echo 0 || echo 1) "ddp_bar on one rank is refused clearly" "status $st"
fi
source tests/share_outputs.sh
share_outputs lab3 "$tmp/tab" "$tmp/fig" "$R"
exit $fail
