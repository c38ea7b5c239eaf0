#!/usr/bin/env bash
# e2e_mpistub.sh - the gpu-check tree's C sources compile against the
# single-rank MPI stub (core/mpistub), as `make gpu-check` compiles them on
# a GPU machine that has no Open MPI (`make gpu-check-syntax`: gcc
# -fsyntax-only with the gpu-check tree's flags, no nvcc). Why: an MPI
# call the stub lacks (MPI_Comm_compare, for one) breaks that build on its
# first step, and nothing else here builds it. Optimised phase only
# (the sanitizer phase would compile the same sources again).
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "mpistub"
if [ "${SANITIZE:-0}" = 1 ]; then
  echo "skip - mpistub: the gpu-check tree compiles against the MPI stub: runs in the optimised phase only"
  exit 0
fi
make -s gpu-check-syntax > "$tmp/log" 2>&1
check $? "the gpu-check tree's C sources compile against the MPI stub (core/mpistub)" \
  "$(grep -m3 'error' "$tmp/log" | tr '\n' ' ')"
exit $fail
