#!/usr/bin/env bash
# bench/run_allreduce.sh - the allreduce part of `make bench` (bench/run.sh
# runs every bench/run_*.sh): ddlab against MPI_Allreduce, printed as a
# table and as ratios, written to results/bench/allreduce-*.csv with their
# provenance. Benchmarks never run in `make test`.
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
MPIRUN=(mpirun --mca pml ob1 --mca btl self,vader --bind-to none)

# --- allreduce: hand-written algorithms vs MPI_Allreduce (lab2) ---------------
if [ -x "$BIN/bench/allreduce" ]; then
  # glibc's own malloc thresholds (DDL_MALLOC_DEFAULT=1): Open MPI mallocs
  # and frees its large temporary buffers on every call, glibc returns them
  # to the OS (munmap), and each call page-faults them back in.
  DDL_MALLOC_DEFAULT=1 "${MPIRUN[@]}" -x DDL_MALLOC_DEFAULT -np 2 "$BIN/bench/allreduce"
  # Keeping freed memory in the heap shows the algorithms alone.
  echo "# the same with glibc keeping freed memory (MALLOC_MMAP_THRESHOLD_=1G, MALLOC_TRIM_THRESHOLD_=4G):"
  MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=4294967295 \
    "${MPIRUN[@]}" -x MALLOC_MMAP_THRESHOLD_ -x MALLOC_TRIM_THRESHOLD_ -np 2 "$BIN/bench/allreduce" --tag np2-malloc-kept |
    grep -E '^bench allreduce (ring|recdoubling 8) ' | sed 's/^bench allreduce/bench allreduce (malloc kept)/'
fi
