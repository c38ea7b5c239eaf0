#!/usr/bin/env bash
# e2e_sim.sh - simulated clusters (SimGrid SMPI), when SimGrid is
# installed (skip otherwise):
#   - the smpicc build (bin/sim; built here when missing);
#   - tests/sim_ring.c under smpirun with CM02 and cross-traffic off: the
#     ring allreduce's simulated time is the alpha-beta formula within 1%
#     (4 ranks on labs/platforms/cluster4.xml; 5 ranks, not a power of
#     two, one per machine of wits80.xml), and so is recursive doubling's;
#   - a lab2 smoke run under SMPI on cluster4 (bench, bench on shared
#     buffers, train, table, figures) writes its outputs, labelled
#     "simulated (SMPI, platform cluster4)";
#   - lab6's smoke grid (Horovod style) under SMPI on cluster4: 1 and 2
#     workers, labelled simulated, its table and figures made by the native
#     program;
#   - an unknown PLATFORM is refused with the list of platforms.
# Runs in the optimised pass only (the simulated tree has no sanitizer
# build). Prints ok / not ok / skip lines.
# Quick tier (DDL_TEST_TIER=quick, make test): the simulated build of the
# two programs it runs (lab2, sim_ring; the other labs and tests compile
# from the same library in make test-full, and unsimulated in every pass),
# and the alpha-beta check on cluster4 alone; make test-full adds wits80
# at 5 ranks, the same ring and recursive doubling code under the same
# network model on another platform file (the MPI tests run the
# non-power-of-two fold at 3 ranks).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_sim_guard "sim e2e"
e2e_begin "sim e2e"

# The simulated tree: make SIM=1 (quiet; its log on failure).
# The quick tier builds the two programs it runs (the library is most of
# the tree); make test-full builds the whole tree, every lab and test.
SIM_TARGETS=all SIM_BUILT="bin/sim with smpicc"
if [ "${DDL_TEST_TIER:-full}" = quick ]; then SIM_TARGETS="bin/sim/lab2 bin/sim/lab6 bin/sim/tests/sim_ring" SIM_BUILT="bin/sim/lab2, lab6 and sim_ring with smpicc"; fi
if [ ! -x bin/sim/lab2 ] || [ ! -x bin/sim/lab6 ] || [ ! -x bin/sim/tests/sim_ring ] || [ "${SIM_REBUILD:-1}" = 1 ]; then
  # shellcheck disable=SC2086
  e2e_sim_make "$SIM_BUILT" $SIM_TARGETS
fi
[ -x bin/sim/lab2 ] && [ -x bin/sim/lab6 ] && [ -x bin/sim/tests/sim_ring ] || exit 1

# A fixed host speed: no calibration run, same numbers every time.
export SIM_HOST_SPEED=1e11 PROFILE=quick SEED=1 LAB_SIMULATES=1
out=$( (PLATFORM=nope; source labs/common.sh) 2>&1 >/dev/null); rc=$?
[ "$rc" != 0 ] && grep -q "available: .*cluster4.*wits80" <<<"$out"
check $? "an unknown PLATFORM is refused with the list of platforms" "$out"

# smpi/host-speed is timed by the thread's CPU time, the clock SMPI charges
# computations by (labs/platforms/sim.sh): gemm_peak --clock cpu says so
# in its CSV, and refuses a second BLAS thread, whose work it would miss.
if [ -x bin/bench/gemm_peak ]; then
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 bin/bench/gemm_peak --clock cpu --out "$tmp/gp" > "$tmp/gp.txt" 2>&1 &&
    grep -q "^# timing: .*by this thread's CPU time" "$tmp/gp/gemm_peak-cpu.csv" && grep -q '^bench sgemm 2048^3: ' "$tmp/gp.txt" &&
    grep -q 'bin/bench/gemm_peak --clock cpu --out' labs/platforms/sim.sh
  check $? "gemm_peak --clock cpu times by the thread's CPU time, and sim.sh calibrates with it" "$(tail -2 "$tmp/gp.txt")"
  OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 bin/bench/gemm_peak --clock cpu --out "$tmp/gp2" > "$tmp/gp2.txt" 2>&1
  [ $? = 2 ] && grep -q 'one BLAS thread' "$tmp/gp2.txt"
  check $? "gemm_peak --clock cpu refuses 2 BLAS threads" "$(tail -2 "$tmp/gp2.txt")"
fi

# Every platform file makes an MPI_Test cost 1 us, not growing: SMPI's
# default (100 us, more at each failed test) charged ddlab's polled
# allreduces tens of ms a step (labs/platforms/README.md). SimGrid itself
# says what it read from the file (sim_ring without arguments: its usage).
for xml in labs/platforms/*.xml; do
  name=$(basename "$xml" .xml)
  prefix=$(sed -n 's/.*<cluster[^>]* prefix="\([^"]*\)".*/\1/p' "$xml" | head -1)
  echo "${prefix}0" > "$tmp/hosts-cfg"
  cfg=$(smpirun -np 1 -platform "$xml" -hostfile "$tmp/hosts-cfg" --log=xbt_cfg.thres:info --log=root.thres:critical \
    bin/sim/tests/sim_ring 2>&1)
  grep -q "Set 'smpi/test' to '1e-6'" <<<"$cfg" && grep -q "Set 'smpi/grow-injected-times' to 'no'" <<<"$cfg"
  check $? "$name: SimGrid reads smpi/test 1e-6 and smpi/grow-injected-times no from the platform file" \
    "$(grep -i "smpi/test\|grow-injected\|error" <<<"$cfg" | head -3)"
done

# alpha-beta within 1% under CM02, the computation switched off (gamma 0).
ring_on() { # platform np
  local platform=$1 np=$2
  ( PLATFORM=$platform source labs/common.sh
    hosts=$tmp/hosts-$platform-$np
    # One rank per host: every message crosses exactly two host links.
    sed -n 's/.*<cluster[^>]* prefix="\([^"]*\)".*/\1/p' "$PLATFORM_XML" | head -1 > "$tmp/prefix"
    for (( r = 0; r < np; r++ )); do echo "$(cat "$tmp/prefix")$r"; done > "$hosts"
    smpirun -np "$np" -platform "$PLATFORM_XML" -hostfile "$hosts" --cfg=network/model:CM02 \
      --cfg=network/crosstraffic:0 --cfg=smpi/simulate-computation:no --log=root.thres:critical \
      bin/sim/tests/sim_ring --alpha-us "$PLATFORM_ALPHA_US" --bandwidth "$PLATFORM_BANDWIDTH_BPS" \
      --sizes 65536,1048576,16777216 --tol 0.01 )
}
RING_SPECS=("cluster4 4" "wits80 5")
if [ "${DDL_TEST_TIER:-full}" = quick ]; then
  RING_SPECS=("cluster4 4")
  echo "# quick tier: the simulated build of every other lab and test, sim_ring on wits80 at 5 ranks left to make test-full (make test-full runs it)"
fi
for spec in "${RING_SPECS[@]}"; do
  set -- $spec
  ring_on "$1" "$2" > "$tmp/ring.txt" 2>&1
  rc=$?
  grep -E '^(ok|not ok|skip) - ' "$tmp/ring.txt"
  n=$(grep -c '^ok - sim ring .*alpha-beta' "$tmp/ring.txt")
  check $([ "$rc" = 0 ] && [ "$n" = 3 ] && echo 0 || echo 1) "sim_ring on $1 at $2 ranks ran and timed the ring at 3 sizes" \
    "exit $rc, $n ring timings; $(grep -v -E '^(ok|not ok)' "$tmp/ring.txt" | tail -3)"
done

# lab2 under SMPI on cluster4, tiny settings.
lab2_sim() { # np network args...: the benchmarks simulate the network alone, as labs/lab2/run-sim.sh's
  local np=$1 net=$2 compute=1; shift 2
  [ "$1" = bench ] && compute=0
  ( PLATFORM=cluster4 source labs/common.sh; LAUNCH_SIM_NETWORK=$net LAUNCH_SIM_COMPUTE=$compute lab_mpi "$np" bin/sim/lab2 "$@" )
}
lab2_sim 4 theory bench --max-bytes 4096 --reps 2 --quiet --out "$tmp/r" > "$tmp/bench.txt" 2> "$tmp/bench.err"
check $? "lab2 bench runs under smpirun (CM02)" "$(tail -3 "$tmp/bench.err")"
csv=$tmp/r/bench-np4.csv
e2e_lab2_bench "$csv" "simulated bench"
grep -q '^# summary: simulated (SMPI, platform cluster4), 4 ranks on 4 hosts' "$csv" && grep -q '^# sim_network: CM02' "$csv" \
  && grep -q '^# sim_host_speed: 1e11' "$csv" && grep -q '^# sim_coll_selector: ompi' "$csv" \
  && grep -q '^# sim_compute: not simulated' "$csv"
check $? "bench CSV labelled simulated (SMPI, platform cluster4), with network model, host speed, selector, and the network alone"
grep -q '^# simulated (SMPI, platform cluster4)' "$tmp/bench.txt"
check $? "OSU-style text labelled simulated"
# The fitted model is the platform's: alpha 50 us, 1/beta 125 MB/s. The
# network alone is simulated there: with the host's computation between MPI
# calls counted, a loaded machine measured alpha 52.18 us.
a=$(sed -n 's/^# alpha_us: //p' "$csv"); b=$(sed -n 's/^# beta_ns_per_byte: //p' "$csv")
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 49 && a < 52 && b > 7.9 && b < 8.1) }'
check $? "the ping-pong fit finds the platform's alpha (50 us) and beta (8 ns/B)" "alpha $a us, beta $b ns/B"

lab2_sim 4 theory bench --sizes 1024,4096,8192 --reps 2 --sim-shared-bytes 4096 --quiet --tag shared --out "$tmp/s" \
  > /dev/null 2> "$tmp/shared.err"
check $? "lab2 bench on SMPI shared buffers runs" "$(tail -3 "$tmp/shared.err")"
csv=$tmp/s/bench-shared.csv
na=$(awk -F, '!/^#/ && $2 >= 4096 && $12 == "n/a"' "$csv" | wc -l)
ok=$(awk -F, '!/^#/ && $2 == 1024 && $12 == "0"' "$csv" | wc -l)
check $([ "$na" = 14 ] && [ "$ok" = 7 ] && echo 0 || echo 1) "sizes on shared buffers say wrong = n/a, the others are checked" \
  "$na n/a rows, $ok checked rows"

lab2_sim 4 realistic train --synthetic --limit 600 --test-limit 200 --hidden 8,16 --quiet --out "$tmp/r" 2> "$tmp/train.err"
check $? "lab2 train runs under smpirun (SMPI model)" "$(tail -3 "$tmp/train.err")"
csv=$tmp/r/train-np4.csv
check $([ "$(col "$csv" replicas_identical | sort -u)" = yes ] && echo 0 || echo 1) "simulated training: replicas bit-identical"
grep -q '^# summary: simulated (SMPI, platform cluster4), synthetic MNIST, 4 ranks on 4 hosts' "$csv" && grep -q '^# sim_network: SMPI' "$csv"
check $? "train CSV labelled simulated, SMPI network model"

bin/lab2 table --out "$tmp/r" --tex "$tmp/lab2-sim.tex" --quiet 2> "$tmp/table.err"
check $? "table job reads the simulated CSVs" "$(tail -3 "$tmp/table.err")"
n=$(grep -c 'simulated (SMPI, platform cluster4)' "$tmp/lab2-sim.tex")
check $([ "$n" -ge 3 ] && echo 0 || echo 1) "every LaTeX table says simulated (SMPI, platform cluster4)" "$n captions"
if command -v gnuplot >/dev/null 2>&1; then
  RESULTS=$tmp/r FIGURES=$tmp/fig TABLES=$tmp/tab NAME=lab2-sim-cluster4 labs/lab2/figures.sh > "$tmp/fig.log" 2>&1
  check $? "figures.sh renders the simulated run" "$(tail -3 "$tmp/fig.log")"
  n=$(ls "$tmp"/fig/lab2-sim-cluster4-*.png 2>/dev/null | wc -l)
  check $([ "$n" -ge 5 ] && echo 0 || echo 1) "simulated lab2 figures written" "$n PNG files"
else
  echo "skip - sim e2e: figures: gnuplot not installed"
fi
# lab6 under SMPI on cluster4: its run.sh with the smoke settings.
( export LAB6_SMOKE=1 LAB6_STYLES=horovod PLATFORM=cluster4 RESULTS=$tmp/l6 FIGURES=$tmp/l6fig TABLES=$tmp/l6tab
  labs/lab6/run.sh ) > "$tmp/lab6.log" 2>&1
check $? "lab6 runs under smpirun on cluster4 (smoke grid, Horovod style), table and figures by bin/lab6" \
  "$(tail -3 "$tmp/lab6.log")"
grep -q '^# simulated: SMPI, platform cluster4' "$tmp/l6/lab6.csv" && [ "$(col "$tmp/l6/lab6.csv" workers | sort -u | tr '\n' ' ')" = "1 2 " ] &&
  [ -s "$tmp/l6fig/lab6-iters.png" ] && [ -s "$tmp/l6tab/lab6.tex" ]
check $? "simulated lab6: 1 and 2 workers, labelled simulated, figures and table written"
exit $fail
