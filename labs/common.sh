# labs/common.sh - shared settings for every labs/labN/run.sh (sourced).
#
# - NP, DEVICE, PROFILE, SEED, DDL_DATA come from `make labN VAR=...`.
# - OpenBLAS: Debian's 0.3.21 picks its Haswell kernels on some AVX-512
#   CPUs; OPENBLAS_CORETYPE=SkylakeX measured ~1.9x faster sgemm here
#   (480 vs 250 GFLOP/s at 2 threads). We set it only when the CPU really
#   has the AVX-512 subsets those kernels use.
# - One BLAS thread per rank when ranks fill the cores (cores / ranks).
# - mpirun flags: --allow-run-as-root when root, --oversubscribe when NP
#   exceeds the cores (and outputs say "oversubscribed"), shared-memory
#   transport locally.

NP=${NP:-4}
DEVICE=${DEVICE:-cpu}
PROFILE=${PROFILE:-quick}
SEED=${SEED:-1}
export DDL_DATA=${DDL_DATA:-datasets}
export DEVICE PROFILE SEED
# OpenMP idle threads: spinning (ACTIVE) is fastest when every thread has
# its own core (VGG-11 step 189 vs 200 ms here); when ranks x threads
# exceed the cores, spinning threads steal the cores from the ones working
# (4x slower steps measured), so they must sleep (PASSIVE). One process
# uses all cores: ACTIVE; mpirun_cmd decides per rank count. A value the
# user set is kept.
USER_OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-ACTIVE}
CORES=$(nproc 2>/dev/null || echo 1)

# Some machines export OPENBLAS_CORETYPE=Haswell system-wide; on an AVX-512
# CPU that halves GEMM speed, so a narrower kernel name is upgraded too
# (DDL_KEEP_CORETYPE=1 keeps whatever is set).
has_avx512() {
  local f
  for f in avx512f avx512bw avx512vl avx512dq; do grep -q " $f" /proc/cpuinfo 2>/dev/null || return 1; done
}
if [ "${DDL_KEEP_CORETYPE:-0}" != 1 ] && has_avx512; then
  case "${OPENBLAS_CORETYPE:-}" in
    ""|Haswell|HASWELL|Zen|ZEN|Sandybridge|SANDYBRIDGE) export OPENBLAS_CORETYPE=SkylakeX ;;
  esac
fi

case "$PROFILE" in
  quick|paper) ;;
  *) echo "error: PROFILE must be quick or paper (got '$PROFILE')" >&2; exit 2 ;;
esac
case "$DEVICE" in
  cpu|cuda|cuda-emu) ;;
  *) echo "error: DEVICE must be cpu, cuda or cuda-emu (got '$DEVICE')" >&2; exit 2 ;;
esac

# blas_threads RANKS: BLAS threads per rank so that ranks x threads <= cores.
blas_threads() {
  local t=$(( CORES / $1 ))
  [ "$t" -ge 1 ] || t=1
  echo "$t"
}

# mpirun_env RANKS: the -x arguments every launch passes to its ranks:
# threads per rank, OpenMP's wait policy, the lab's settings.
mpirun_env() {
  local np=$1
  local t; t=$(blas_threads "$np")
  local policy=${USER_OMP_WAIT_POLICY:-}
  if [ -z "$policy" ]; then
    if [ $(( np * t )) -le "$CORES" ]; then policy=ACTIVE; else policy=PASSIVE; fi
  fi
  local args=(-x OPENBLAS_NUM_THREADS="$t" -x OMP_NUM_THREADS="$t" -x OMP_WAIT_POLICY="$policy")
  args+=(-x DDL_DATA -x DEVICE -x PROFILE -x SEED -x DDL_CHECKPOINT_ROOT -x DDL_RESUME)
  [ -n "${OPENBLAS_CORETYPE:-}" ] && args+=(-x OPENBLAS_CORETYPE)
  echo "${args[@]}"
}

# mpirun_cmd RANKS: the mpirun prefix for RANKS processes on this machine.
mpirun_cmd() {
  local np=$1
  local cmd=(mpirun -np "$np")
  [ "$(id -u)" = 0 ] && cmd+=(--allow-run-as-root)
  [ "$np" -gt "$CORES" ] && cmd+=(--oversubscribe)
  cmd+=(--mca pml ob1 --mca btl self,vader --bind-to none)
  echo "${cmd[@]} $(mpirun_env "$np")"
}

note() { echo "[$(basename "$(dirname "$0")")] $*" >&2; }

# Simulated clusters: PLATFORM=<name> (make labN PLATFORM=wits80) runs the
# lab's programs from bin/sim under SimGrid's smpirun on
# labs/platforms/<name>.xml: mpirun_cmd then prints the smpirun prefix and
# LAB_BIN is bin/sim. A lab adopts it by setting LAB_SIMULATES=1 before
# sourcing this file and calling "$LAB_BIN/labN" instead of bin/labN
# (labs/platforms/README.md); a lab that has not is refused, rather than
# running its native binary under smpirun.
# make labN IMPL=student sets DDL_STUDENT_BIN=bin/student: the programs
# linked with the student's labs/labN/exercises/*.c (Makefile, IMPL).
LAB_BIN=${DDL_STUDENT_BIN:-bin}
if [ "$LAB_BIN" != bin ]; then note "IMPL=student: running $LAB_BIN's programs (your exercise files)"; fi
SIM_TAG=
if [ -n "${PLATFORM:-}" ]; then
  if [ "${LAB_SIMULATES:-0}" != 1 ]; then
    echo "error: PLATFORM=$PLATFORM: $(basename "$(dirname "$0")") does not run simulated yet (labs/platforms/README.md)" >&2
    exit 2
  fi
  source labs/platforms/sim.sh
fi

# Emulated clusters: NET=RATE[,LATENCY] (make labN NET=1gbit HOSTS=2) runs
# the lab's MPI jobs on HOSTS (default NP) network namespaces of this
# machine, linked through a bridge at that rate and latency, launched as a
# multi-host job (labs/net/README.md): mpirun_cmd then prints that launch,
# NET_TAG is "net-<NET>" and NET_LABEL what every output says. A lab adopts
# it by setting LAB_NETWORKS=1 before sourcing this file; one that has not
# (lab1 trains one process: nothing to send) is refused. The cluster is
# removed when the lab's script exits, fails or is interrupted.
NET_TAG=
if [ -n "${NET:-}" ]; then
  if [ "${LAB_NETWORKS:-0}" != 1 ]; then
    echo "error: NET=$NET: $(basename "$(dirname "$0")") runs one process, with no network to emulate (NET= is for lab2 .. lab6)" >&2
    exit 2
  fi
  source labs/net/net.sh
elif [ -n "${HOSTS:-}" ]; then
  echo "error: HOSTS=$HOSTS needs NET=RATE[,LATENCY] (e.g. make lab3 NET=1gbit HOSTS=2): hosts are emulated" >&2
  exit 2
fi
# Where a non-native run's results, figures and tables go, beside the
# native ones: "sim-<platform>", "net-<NET>" or nothing.
VARIANT=${SIM_TAG:-$NET_TAG}

# Checkpoints (core/driver/resume.c): every training run of a lab keeps
# one under results/checkpoints/<program>-<run> (each epoch and at the
# end), and make labN RESUME=1 continues each run from its checkpoint:
# a killed run where it stopped, a finished one only rewrites its outputs.
# (A test that points RESULTS at its own folder keeps them there too.)
if [ -n "${RESULTS:-}" ]; then ckpt_root=$RESULTS/checkpoints; else ckpt_root=$PWD/results/checkpoints${VARIANT:+/$VARIANT}; fi
export DDL_CHECKPOINT_ROOT=${DDL_CHECKPOINT_ROOT:-$ckpt_root}
case "${RESUME:-0}" in
  0|1) export DDL_RESUME=${RESUME:-0} ;;
  *) echo "error: RESUME must be 0 or 1 (got '$RESUME')" >&2; exit 2 ;;
esac
if [ "$DDL_RESUME" = 1 ]; then note "RESUME=1: runs continue from $DDL_CHECKPOINT_ROOT"; fi
