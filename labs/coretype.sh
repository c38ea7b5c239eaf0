# shellcheck shell=bash
# labs/coretype.sh - the OpenBLAS kernels every ddlab run uses (sourced by
# labs/common.sh, make scale and its validation, so that a compute model
# calibrated natively, SimGrid's host speed and the emulated hosts' runs
# all time the same GEMM).
#
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
