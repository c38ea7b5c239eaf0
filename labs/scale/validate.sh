#!/usr/bin/env bash
# labs/scale/validate.sh - make scale's predictions against measurements on
# 2, 4 and 8 emulated hosts (labs/net, one rank each, 1 Gbit/s), the same
# day, each host count measured then predicted back to back; root only
# (network namespaces). Writes results/scale/validate/validation-hN.csv,
# which labs/scale/summary.py gathers into results/scale/validation.csv.
#
# Per host count N (VALIDATE_HOSTS, default "2 4 8"):
#   measured   lab2's sweep up to 16 MiB, 5 timed calls a size (median,
#              band min .. mean); lab3's Table 1 tasks, 6 steps of 256 (5
#              timed: DDP's step, exposed sync and hidden fraction, mean
#              and sd over the timed steps of every rank);
#   predicted  the same under SMPI on labs/platforms/emu1g.xml grown to N
#              hosts (its link calibrated on the emulated network; its
#              speed this machine's, divided by N/2 past 2 hosts as the
#              emulated hosts share 2 cores): the allreduce on the network
#              alone, one call; DDP with its compute modelled from a
#              native calibration at 256/N examples a rank.
# Every emulated run is the lab's own (make lab2/lab3 NET=1gbit): their
# namespaces are made and removed by labs/net/cluster.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=results/scale # make scale's folder: scale_rm removes only inside it
V=$OUT/validate
VALIDATE_HOSTS=${VALIDATE_HOSTS:-2 4 8}
[ "$(id -u)" = 0 ] || { echo "error: the emulated hosts need root (network namespaces)" >&2; exit 2; }
mkdir -p "$V" results/scale/logs results/scale/platforms
source labs/scale/platform.sh
source labs/coretype.sh # the GEMM kernels the labs use: the validation compares with them
SCALE_LIMIT_S=${SCALE_LIMIT_S:-900}
cores=$(nproc)

# What else ran: once a second during a host count's measurement, how many
# threads were runnable (/proc/loadavg's 4th field), into $V/runnable-hN.txt.
# The emulated ranks' steps are wall time on shared cores while the
# predictions charge CPU time, so a measurement beside other jobs is not
# one of this machine: the report judges no prediction against it
# (report/ddreport/scale.py; a run beside niced builds at load 9-16 measured
# DDP's 2-host step at 1205 ms against 234 predicted).
SAMPLER=
sampler_stop() { [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null || true; SAMPLER=; return 0; } # (a killed wait is 143: set -e)
trap sampler_stop EXIT
sampler_start() { # n
  local out=$V/runnable-h$1.txt
  : > "$out"
  ( for (( i = 0; i < 3600; i++ )); do
      awk '{ split($4, a, "/"); print a[1] - 1 }' /proc/loadavg >> "$out"; sleep 1
    done ) &
  SAMPLER=$!
}

measure() { # n
  local n=$1
  sampler_start "$n"
  LAB2_ONLY=bench LAB2_MAX_BYTES=16777216 LAB2_REPS=5 make --no-print-directory lab2 NET=1gbit NP="$n" HOSTS="$n" \
    RESULTS="$V/net-lab2-h$n" > "results/scale/logs/validate-net-lab2-h$n.log" 2>&1
  LAB3_ONLY=table1 LAB3_STEPS=6 LAB3_SEEDS=1 make --no-print-directory lab3 NET=1gbit NP="$n" \
    RESULTS="$V/net-lab3-h$n" > "results/scale/logs/validate-net-lab3-h$n.log" 2>&1
  sampler_stop
}

# emu1g grown to n hosts, its speed this machine's SGEMM rate as sim.sh
# has it now (smpi/host-speed: a modelled second is then a second here),
# shared as the emulated hosts share the cores
emu_platform() { # n
  local n=$1 grown=results/scale/platforms/emu1g-h$1.xml share
  scale_platform emu1g "$n"
  share=$(awk -v n="$n" -v c="$cores" -v s="$SIM_HOST_SPEED" 'BEGIN { printf "%.4g", (n > c ? c / n : 1) * s / 1e9 }')
  sed -e "s/radical=\"0-1\"/radical=\"0-$(( n - 1 ))\"/" -e "s/ddlab: hosts=2/ddlab: hosts=$n/" \
      -e "s/speed=\"124.7Gf\"/speed=\"${share}Gf\"/" labs/platforms/emu1g.xml > "$grown"
  PLATFORM_XML=$grown PLATFORM_HOSTS=$n PLATFORM_RANKS=$n SIM_PLATFORM=emu1g-h$n
  export DDL_SIM_PLATFORM="emu1g grown to $n hosts (labs/scale/validate.sh)"
}

predict() { # n
  local n=$1 batch=$(( 256 / $1 ))
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 bin/lab3 run --sync none --width 0.5 --batch "$batch" --iters 6 --timed 6 \
    --no-eval --synthetic --limit $(( batch * 6 )) --test-limit 64 --out "$V/cal-h$n" --calibrate-compute compute \
    --quiet > "results/scale/logs/validate-cal-h$n.log" 2>&1
  emu_platform "$n"
  ARGS=(bin/sim/lab2 bench --algs ring,mpi --sizes 1M,4M,16M --reps 1 --warmups 0 --no-calibrate --quiet)
  scale_run "$n" "$V/sim-lab2-h$n" "results/scale/logs/validate-sim-lab2-h$n"
  ARGS=(bin/sim/lab3 run --sync ddp --alg ring --width 0.5 --global-batch 256 --iters 6 --timed 6 --no-eval --synthetic
        --limit $(( 256 * 6 )) --test-limit 64 --bucket-cap-mb 6.25 --compute-model "$V/cal-h$n/compute.csv" --quiet)
  scale_run "$n" "$V/sim-lab3-h$n" "results/scale/logs/validate-sim-lab3-h$n"
}

for n in $VALIDATE_HOSTS; do
  echo "[validate] $n emulated hosts: measuring, then predicting ($(date -u +%T))" >&2
  measure "$n"
  predict "$n"
  python3 labs/scale/validate_pair.py "$V" "$n" "$cores"
done
python3 labs/scale/summary.py results/scale
