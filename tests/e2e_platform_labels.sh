#!/usr/bin/env bash
# e2e_platform_labels.sh - a run's platform label comes from where it ran,
# never from the caller's shell (core/driver/environment.c, labs/common.sh):
#   1. a program started on this machine's own network with a stray
#      DDL_NET writes no "emulated_network" line, and says why on stderr;
#   2. make lab2 (labs/lab2/run.sh) with DDL_NET and DDL_SIM_PLATFORM in
#      the environment writes results labelled as what they are: mpirun on
#      shared memory, with no emulated network or platform line;
#   3. a run that labs/launch.sh relaunched inside its job (DDL_RESTARTS,
#      --max-restarts) says how often in its provenance; one never
#      relaunched has no such line.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "platform labels"
e2e_need "$BIN/lab1" "$BIN/lab2"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset NET HOSTS PLATFORM LAUNCH NODES NP SLURM_JOB_ID DRY_RUN
stray=(DDL_NET="2 hosts, 1 Gbit/s, 0 us" DDL_NET_SETUP="made up" DDL_SIM_PLATFORM=cluster4)

env "${stray[@]}" "$BIN/lab1" --model mlp --dataset mnist --synthetic --epochs 1 --limit 256 --test-limit 64 \
  --batch 64 --out "$tmp/one" > "$tmp/one.log" 2>&1
st=$?
check $(all '[ "$st" = 0 ] && ! grep -q "emulated_network" "$tmp"/one/*.csv && grep -q "warning: DDL_NET is set but" "$tmp/one.log"') \
  "a stray DDL_NET does not label a one-machine run as emulated, and is named" "status $st: $(tail -n 2 "$tmp/one.log")"

env "${stray[@]}" RESULTS="$tmp/lab2" FIGURES="$tmp/fig" TABLES="$tmp/tab" LAB2_SMOKE=1 NP=2 labs/lab2/run.sh \
  > "$tmp/lab2.log" 2>&1
st=$?
csv=$tmp/lab2/bench-np2.csv
check $(all '[ "$st" = 0 ] && grep -q "^# launcher: mpirun$" "$csv" && ! grep -q "emulated_network\|sim_platform" "$csv"') \
  "make lab2 with DDL_NET and DDL_SIM_PLATFORM set: labelled mpirun on shared memory" \
  "status $st: $(grep -h 'launcher\|emulated\|sim_' "$csv" 2>/dev/null | head -3) $(tail -n 2 "$tmp/lab2.log")"

for n in 2 0; do
  env DDL_RESTARTS=$n "$BIN/lab1" --model mlp --dataset mnist --synthetic --epochs 1 --limit 128 --test-limit 64 \
    --batch 64 --out "$tmp/re$n" > "$tmp/re$n.log" 2>&1
  got=$(grep -h "^# restarts:" "$tmp/re$n"/*-summary.csv 2>/dev/null)
  want=$([ "$n" = 0 ] || echo "# restarts: $n")
  check $(is "$got" "$want") "DDL_RESTARTS=$n: the provenance says '${want:-nothing}'" "'$got' $(tail -n 1 "$tmp/re$n.log")"
done
exit $fail
