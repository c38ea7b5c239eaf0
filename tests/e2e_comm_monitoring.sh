#!/usr/bin/env bash
# e2e_comm_monitoring.sh - run mpi_comm_monitor with Open MPI's monitoring
# PML enabled (--mca pml_monitoring_enable 1), at 2 and 4 ranks, so that
# ddlab's traffic counters are compared with Open MPI's own (MPI_T pvars).
# Prints the program's ok / not ok / skip lines; tests/run.sh counts them.
set -u
cd "$(dirname "$0")/.."
source tests/e2e_lib.sh
e2e_begin "comm monitoring"
prog=$BIN/tests/mpi_comm_monitor
e2e_need "$prog"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# No "--mca pml ob1" here: the monitoring PML must be allowed to interpose.
status=0
for np in 2 4; do
  mpirun --mca btl self,vader --bind-to none --mca pml_monitoring_enable 1 -np "$np" "$prog" || status=1
done
exit $status
