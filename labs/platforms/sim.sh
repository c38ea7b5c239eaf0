# labs/platforms/sim.sh - simulated clusters: run a lab under SimGrid SMPI
# on labs/platforms/$PLATFORM.xml. Sourced by labs/common.sh when PLATFORM
# is set (make labN PLATFORM=wits80); see labs/platforms/README.md.
#
# After sourcing:
#   LAB_BIN            bin/sim (the smpicc build: make SIM=1)
#   SIM_TAG            "sim-<platform>": name part for results and figures
#   SIM_LABEL          "simulated (SMPI, platform <platform>)"
#   PLATFORM_RANKS     hosts x cores of the platform (a full machine)
#   PLATFORM_ALPHA_US, PLATFORM_BANDWIDTH_BPS, PLATFORM_SPEED_FLOPS
#                      the route latency, bandwidth and per-core speed the
#                      platform file documents (its "ddlab:" line)
#   SIM_HOST_SPEED     this machine's single-thread SGEMM rate (flop/s),
#                      measured once (results/sim/host-speed.txt)
#   sim_hostfile NP FILE  host names in rank order
# labs/launch.sh starts the jobs (its smpirun launcher), with a network
# model per job (LAUNCH_SIM_NETWORK):
#       theory     --cfg=network/model:CM02 --cfg=network/crosstraffic:0:
#                  a message of n bytes takes alpha + n beta, as in the
#                  alpha-beta model (for model-vs-measurement plots);
#       realistic  (default) SMPI's own model: piecewise latency and
#                  bandwidth factors calibrated on a real cluster, TCP
#                  cross-traffic on (for times meant to look like a
#                  cluster's);
#                  both select --cfg=smpi/coll-selector:ompi (Open MPI's
#                  decision rules for MPI_Allreduce & co.; SMPI's default is
#                  a linear reduce + broadcast) unless SIM_COLL_SELECTOR
#                  says otherwise, so MPI_Allreduce is comparable with
#                  native Open MPI runs.
# What the programs write in their metadata comes from DDL_SIM_* variables
# exported here (platform, host speed, collective selector) and the
# DDL_SIM_NETWORK=theory|realistic the launcher puts in front of smpirun
# (see meta_collect in core/results/meta.c).
SIM_DIR=labs/platforms
SIM_PLATFORM=$PLATFORM
LAB_BIN=bin/sim
SIM_PLATFORMS=$(cd "$SIM_DIR" && ls *.xml 2>/dev/null | sed 's/\.xml$//' | tr '\n' ' ')
PLATFORM_XML=$SIM_DIR/$SIM_PLATFORM.xml
# The name becomes part of paths (results/labN/sim-<name>, which a run
# replaces whole): only a platform of the list, by its bare name.
case " $SIM_PLATFORMS " in
  *" $SIM_PLATFORM "*) ;;
  *) echo "error: PLATFORM='$SIM_PLATFORM': not a platform of $SIM_DIR; available: ${SIM_PLATFORMS:-none}" >&2; exit 2 ;;
esac
if [ ! -f "$PLATFORM_XML" ]; then
  echo "error: PLATFORM=$SIM_PLATFORM: no $PLATFORM_XML; available: ${SIM_PLATFORMS:-none}" >&2
  exit 2
fi
if ! command -v smpirun >/dev/null 2>&1; then
  echo "error: PLATFORM=$SIM_PLATFORM needs SimGrid's smpirun: sudo apt-get install libsimgrid-dev (or 'make deps' as root)" >&2
  exit 2
fi
# Built: any lab of it (make scale's test builds lab3 alone).
sim_built=0
for sim_lab in "$LAB_BIN"/lab[1-6]; do [ -x "$sim_lab" ] && sim_built=1; done
[ "$sim_built" = 1 ] || {
  echo "error: $LAB_BIN is not built: run 'make SIM=1' (make labN PLATFORM=... does it)" >&2; exit 2; }

# The platform's documented numbers: its "ddlab: key=value ..." line.
platform_value() { # key
  sed -n 's/.*ddlab:.* '"$1"'=\([^ ]*\).*/\1/p; s/.*ddlab: '"$1"'=\([^ ]*\).*/\1/p' "$PLATFORM_XML" | head -1
}
PLATFORM_HOSTS=$(platform_value hosts)
PLATFORM_CORES=$(platform_value cores_per_host)
PLATFORM_ALPHA_US=$(platform_value alpha_us)
PLATFORM_BANDWIDTH_BPS=$(platform_value bandwidth_Bps)
PLATFORM_SPEED_FLOPS=$(platform_value speed_flops)
if [ -z "$PLATFORM_HOSTS" ] || [ -z "$PLATFORM_CORES" ]; then
  echo "error: $PLATFORM_XML has no 'ddlab: hosts=H cores_per_host=C ...' line (see labs/platforms/README.md)" >&2
  exit 2
fi
PLATFORM_RANKS=$(( PLATFORM_HOSTS * PLATFORM_CORES ))
SIM_TAG=sim-$SIM_PLATFORM
SIM_LABEL="simulated (SMPI, platform $SIM_PLATFORM)"
# Every rank runs one thread: SMPI runs the ranks one at a time on one
# core and charges each computation to the rank by the CPU time of the
# thread that runs it, so threads of a rank would go uncounted.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE

# Host names in rank order, filling each host's cores before the next (as
# mpirun maps by slot); beyond hosts x cores the ranks wrap around, and the
# programs then report "oversubscribed" (simulated hosts with more ranks
# than cores share them).
sim_hostfile() { # np file
  local np=$1 file=$2
  local prefix suffix radical first
  prefix=$(sed -n 's/.*<cluster[^>]* prefix="\([^"]*\)".*/\1/p' "$PLATFORM_XML" | head -1)
  suffix=$(sed -n 's/.*<cluster[^>]* suffix="\([^"]*\)".*/\1/p' "$PLATFORM_XML" | head -1)
  radical=$(sed -n 's/.*radical="\([^"]*\)".*/\1/p' "$PLATFORM_XML" | head -1)
  first=${radical%%-*}
  : > "$file"
  local r
  for (( r = 0; r < np; r++ )); do
    echo "$prefix$(( first + (r / PLATFORM_CORES) % PLATFORM_HOSTS ))$suffix" >> "$file"
  done
}

# This machine's FLOP rate, the reference SMPI needs to turn measured
# compute time into flops (smpi/host-speed): single-thread SGEMM, the rate
# the platform speeds are quoted in. Timed by this thread's CPU time
# (gemm_peak --clock cpu), the clock SMPI charges each computation by: the
# wall clock on a loaded machine measured this process's share of a core
# (43.9 instead of 105.8 GFLOP/s at load average 10, 2026-11-29), and every
# simulated computation came out that much too short. Measured once per
# CPU and BLAS kernel (bin/bench/gemm_peak, best of 5, a few seconds) and kept in
# results/sim/host-speed.txt; SIM_RECALIBRATE=1 measures again,
# SIM_HOST_SPEED=<flop/s> imposes a rate.
sim_calibrate() {
  local file=results/sim/host-speed.txt cpu key
  # A rate given by the caller wins (tests use a fixed one: no measuring).
  if [ -n "${SIM_HOST_SPEED:-}" ]; then
    SIM_CALIBRATED="given by SIM_HOST_SPEED, not measured"
    return 0
  fi
  cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //')
  key="cpu=${cpu:-unknown} coretype=${OPENBLAS_CORETYPE:-auto} clock=thread-cpu"
  if [ "${SIM_RECALIBRATE:-0}" != 1 ] && [ -f "$file" ] && grep -qxF "# $key" "$file"; then
    SIM_HOST_SPEED=$(sed -n 's/^host_speed_flops=//p' "$file")
    SIM_CALIBRATED="this machine's single-thread SGEMM, measured $(sed -n 's/^date=//p' "$file")"
    [ -n "$SIM_HOST_SPEED" ] && return 0
  fi
  [ -x bin/bench/gemm_peak ] || { echo "error: bin/bench/gemm_peak missing (run make): it measures this machine's FLOP rate" >&2; exit 2; }
  local out gf
  out=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 bin/bench/gemm_peak --clock cpu --out results/sim 2>/dev/null) || {
    echo "error: bin/bench/gemm_peak failed: cannot calibrate smpi/host-speed" >&2; exit 2; }
  gf=$(sed -n 's/.*: \([0-9.]*\) GFLOP\/s.*/\1/p' <<<"$out" | sort -g | tail -1)
  [ -n "$gf" ] || { echo "error: could not read a GFLOP/s figure from gemm_peak: $out" >&2; exit 2; }
  SIM_HOST_SPEED=$(awk -v g="$gf" 'BEGIN { printf "%.4g", g * 1e9 }')
  local date; date=$(date -u +%FT%TZ)
  SIM_CALIBRATED="this machine's single-thread SGEMM, measured $date"
  mkdir -p results/sim
  { echo "# $key"
    echo "# single-thread SGEMM (bin/bench/gemm_peak --clock cpu, best of 5 at 1024^3 and 2048^3, thread CPU time): smpi/host-speed"
    echo "host_speed_flops=$SIM_HOST_SPEED"
    echo "date=$date"; } > "$file.tmp.$$" && mv -f "$file.tmp.$$" "$file"
  echo "[sim] this machine: $gf GFLOP/s single-thread SGEMM -> --cfg=smpi/host-speed:${SIM_HOST_SPEED}f ($file)" >&2
}
sim_calibrate

export DDL_SIM_PLATFORM=$SIM_PLATFORM
export DDL_SIM_HOST_SPEED="${SIM_HOST_SPEED} flop/s (${SIM_CALIBRATED})"
export DDL_SIM_PLATFORM_SPEED="${PLATFORM_SPEED_FLOPS} flop/s per core; between hosts alpha ${PLATFORM_ALPHA_US} us, bandwidth ${PLATFORM_BANDWIDTH_BPS} B/s"
export DDL_SIM_COLL_SELECTOR=${SIM_COLL_SELECTOR:-ompi}
