# labs/common.sh - shared settings for every labs/labN/run.sh (sourced).
#
# - NP, DEVICE, PROFILE, SEED, DDL_DATA come from `make labN VAR=...`.
# - OpenBLAS: Debian's 0.3.21 picks its Haswell kernels on some AVX-512
#   CPUs; OPENBLAS_CORETYPE=SkylakeX measured ~1.9x faster sgemm here
#   (480 vs 250 GFLOP/s at 2 threads). We set it only when the CPU really
#   has the AVX-512 subsets those kernels use, and never override a user's
#   choice.
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
CORES=$(nproc 2>/dev/null || echo 1)

if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -q ' avx512f ' /proc/cpuinfo 2>/dev/null \
   && grep -q ' avx512bw ' /proc/cpuinfo && grep -q ' avx512vl ' /proc/cpuinfo && grep -q ' avx512dq ' /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=SkylakeX
fi

case "$PROFILE" in
  quick|paper) ;;
  *) echo "error: PROFILE must be quick or paper (got '$PROFILE')" >&2; exit 2 ;;
esac
case "$DEVICE" in
  cpu|cuda) ;;
  *) echo "error: DEVICE must be cpu or cuda (got '$DEVICE')" >&2; exit 2 ;;
esac

# blas_threads RANKS: BLAS threads per rank so that ranks x threads <= cores.
blas_threads() {
  local t=$(( CORES / $1 ))
  [ "$t" -ge 1 ] || t=1
  echo "$t"
}

# mpirun_cmd RANKS: the mpirun prefix for RANKS processes on this machine.
mpirun_cmd() {
  local np=$1 cmd=(mpirun -np "$np")
  [ "$(id -u)" = 0 ] && cmd+=(--allow-run-as-root)
  [ "$np" -gt "$CORES" ] && cmd+=(--oversubscribe)
  cmd+=(--mca pml ob1 --mca btl self,vader --bind-to none)
  local t; t=$(blas_threads "$np")
  cmd+=(-x OPENBLAS_NUM_THREADS="$t" -x OMP_NUM_THREADS="$t" -x DDL_DATA -x DEVICE -x PROFILE -x SEED)
  [ -n "${OPENBLAS_CORETYPE:-}" ] && cmd+=(-x OPENBLAS_CORETYPE)
  echo "${cmd[@]}"
}

note() { echo "[$(basename "$(dirname "$0")")] $*" >&2; }
