# labs/common.sh - shared settings for every labs/labN/run.sh (sourced).
#
# - NP, DEVICE, PROFILE, SEED, DDL_DATA, LAUNCH, NET, HOSTS, PLATFORM,
#   RESUME come from `make labN VAR=...` (or the environment). Each is
#   checked here, before anything starts.
# - NP: the lab's ranks. Unset, the lab's own default (LAB_NP_DEFAULT, 4
#   unless the lab says). A lab whose experiment fixes its rank counts sets
#   LAB_NP_FIXED to the reason, and a given NP is refused with it.
# - OpenBLAS: Debian's 0.3.21 picks its Haswell kernels on some AVX-512
#   CPUs; OPENBLAS_CORETYPE=SkylakeX measured ~1.9x faster sgemm here
#   (480 vs 250 GFLOP/s at 2 threads). We set it only when the CPU really
#   has the AVX-512 subsets those kernels use.
# - Jobs start through labs/launch.sh (mpirun, srun, smpirun, the emulated
#   network's agent): a run.sh calls lab_begin MAXNP, then lab_mpi /
#   lab_single for each job, then lab_commit.
# - Results: a run writes into $OUT.tmp, which replaces $OUT only when every
#   job succeeded (a failed run never leaves a mix of old and new results);
#   variants kept inside $OUT (net-*, sim-*) survive the swap. One run of a
#   lab at a time per checkout: a second is refused, naming the first's pid.
# - At exit, whatever the run made (its temporary results, an emulated
#   cluster, a Slurm allocation or cluster) is removed, on success, failure,
#   Ctrl-C, SIGTERM or SIGHUP alike (lab_on_exit registers a clean-up).

LAB_NAME=$(basename "$(dirname "$0")")
note() { echo "[$LAB_NAME] $*" >&2; }

# --- clean-up at exit, and signals ---------------------------------------------
LAB_EXIT_HOOKS=()
lab_on_exit() { LAB_EXIT_HOOKS+=("$1"); }
lab_exit_hooks() {
  local i
  for (( i = ${#LAB_EXIT_HOOKS[@]} - 1; i >= 0; i-- )); do "${LAB_EXIT_HOOKS[i]}" || true; done
  LAB_EXIT_HOOKS=()
}
lab_signal() { # name status
  trap '' INT TERM HUP # a second signal must not stop the clean-up half-way
  note "stopped by SIG$1$(launch_slurm_state); $(launch_resume_hint)"
  launch_stop_child
  exit "$2"
}
trap lab_exit_hooks EXIT
trap 'lab_signal INT 130' INT
trap 'lab_signal TERM 143' TERM
trap 'lab_signal HUP 129' HUP

# --- the make variables --------------------------------------------------------
NP_GIVEN=${NP:+1}
NP=${NP:-${LAB_NP_DEFAULT:-4}}
case "$NP" in
  [1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;;
  *) echo "error: NP='$NP': a number of MPI ranks, 1 .. 999, without a leading zero" >&2; exit 2 ;;
esac
if [ -n "$NP_GIVEN" ] && [ -n "${LAB_NP_FIXED:-}" ]; then
  echo "error: NP=$NP: $LAB_NP_FIXED, so NP does not apply to $LAB_NAME" >&2
  exit 2
fi
DEVICE=${DEVICE:-cpu}
PROFILE=${PROFILE:-quick}
SEED=${SEED:-1}
export DDL_DATA=${DDL_DATA:-datasets}
export DEVICE PROFILE SEED
# The programs read their defaults as DDL_DEVICE and DDL_PROFILE (core/driver/environment.c).
export DDL_DEVICE=$DEVICE DDL_PROFILE=$PROFILE
case "$PROFILE" in
  quick|paper) ;;
  *) echo "error: PROFILE must be quick or paper (got '$PROFILE')" >&2; exit 2 ;;
esac
case "$DEVICE" in
  cpu|cuda|cuda-emu) ;;
  *) echo "error: DEVICE must be cpu, cuda or cuda-emu (got '$DEVICE')" >&2; exit 2 ;;
esac
case "${DRY_RUN:-0}" in
  0|1) ;;
  *) echo "error: DRY_RUN must be 0 or 1 (got '$DRY_RUN')" >&2; exit 2 ;;
esac
case "$SEED" in
  ''|*[!0-9]*) echo "error: SEED='$SEED': a non-negative integer" >&2; exit 2 ;;
esac

# The CPUs this run may use: its affinity mask (taskset, a Slurm step),
# not nproc's answer, which follows OMP_NUM_THREADS.
CORES=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 1)
# OpenMP idle threads: spinning (ACTIVE) is fastest when every thread has
# its own core (VGG-11 step 189 vs 200 ms here); labs/launch.sh decides per
# job when ranks x threads exceed the cores (PASSIVE). A value the user set
# is kept.
USER_OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-ACTIVE}

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

# --- launchers and platforms -----------------------------------------------------
source labs/launch.sh

# make labN IMPL=student sets DDL_STUDENT_BIN=bin/student: the programs
# linked with the student's labs/labN/exercises/*.c (Makefile, IMPL).
LAB_BIN=${DDL_STUDENT_BIN:-bin}
if [ "$LAB_BIN" != bin ]; then note "IMPL=student: running $LAB_BIN's programs (your exercise files)"; fi

# Simulated clusters: PLATFORM=<name> (make labN PLATFORM=wits80) runs the
# lab's programs from bin/sim under SimGrid's smpirun on
# labs/platforms/<name>.xml; LAB_BIN is then bin/sim. A lab adopts it by
# setting LAB_SIMULATES=1 before sourcing this file and calling
# "$LAB_BIN/labN" (labs/platforms/README.md); a lab that has not is
# refused, rather than running its native binary under smpirun.
SIM_TAG=
if [ -n "${PLATFORM:-}" ]; then
  if [ "${LAB_SIMULATES:-0}" != 1 ]; then
    echo "error: PLATFORM=$PLATFORM: $LAB_NAME does not run simulated yet (labs/platforms/README.md)" >&2
    exit 2
  fi
  source labs/platforms/sim.sh
fi

# Emulated clusters: NET=RATE[,LATENCY] (make labN NET=1gbit HOSTS=2) runs
# the lab's MPI jobs on HOSTS (default NP) network namespaces of this
# machine, linked through a bridge at that rate and latency, launched as a
# multi-host job (labs/net/README.md); NET_TAG is "net-<NET>" and NET_LABEL
# what every output says. A lab adopts it by setting LAB_NETWORKS=1 before
# sourcing this file; one that has not (lab1 trains one process: nothing to
# send) is refused. The cluster is made by lab_begin and removed at exit.
NET_TAG=
if [ -n "${NET:-}" ]; then
  if [ "${LAB_NETWORKS:-0}" != 1 ]; then
    echo "error: NET=$NET: $LAB_NAME runs one process, with no network to emulate (NET= is for lab2 .. lab6)" >&2
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

# --- one run of the lab ------------------------------------------------------------
# lab_begin MAXNP: refuses a second run of this lab in this checkout, then
# makes what the launcher needs for up to MAXNP ranks, then an empty
# $OUT.tmp for the results. Call it before any work.
lab_begin() {
  local lock
  if [ -n "${RESULTS:-}" ]; then lock=$OUT.lock; else lock=results/.$LAB_NAME.lock; fi
  mkdir -p "$(dirname "$lock")" || { echo "error: cannot create $(dirname "$lock")" >&2; exit 2; }
  exec {LAB_LOCK_FD}>>"$lock" || { echo "error: cannot open $lock" >&2; exit 2; }
  if ! flock -n "$LAB_LOCK_FD"; then
    echo "error: $LAB_NAME is already running (pid $(cat "$lock" 2>/dev/null || echo '?')) in this checkout:" \
         "its results and this run's would replace each other; wait for it, or stop it" >&2
    exit 2
  fi
  echo $$ > "$lock"
  launch_begin "$1"
  rm -rf "$OUT.tmp"
  mkdir -p "$OUT.tmp" || { echo "error: cannot create $OUT.tmp" >&2; exit 2; }
  lab_on_exit lab_discard
}
# Daemons a run starts (an emulated cluster's, Slurm's) must not inherit
# the lock: one left behind would hold it forever.
lab_no_lock() {
  if [ -n "${LAB_LOCK_FD:-}" ]; then "$@" {LAB_LOCK_FD}>&-; else "$@"; fi
}

# A run that did not finish leaves no half folder: its finished runs are in
# their checkpoints (RESUME=1).
lab_discard() { [ -n "${OUT:-}" ] && rm -rf "$OUT.tmp"; return 0; }

# lab_commit: $OUT.tmp becomes $OUT; the variants' folders inside the old
# $OUT (net-1gbit, sim-cluster4, ...) move into the new one.
lab_commit() {
  local d
  if [ "${DRY_RUN:-0}" = 1 ]; then note "DRY_RUN=1: nothing ran"; exit 0; fi
  if [ -d "$OUT" ]; then
    for d in "$OUT"/net-* "$OUT"/sim-*; do
      [ -d "$d" ] && [ ! -e "$OUT.tmp/$(basename "$d")" ] && mv "$d" "$OUT.tmp/"
    done
  fi
  rm -rf "$OUT"
  mv "$OUT.tmp" "$OUT"
}
