/* threads.h - threads per rank. */
#ifndef DDL_THREADS_H
#define DDL_THREADS_H

#include <mpi.h>

/* Called by every program right after MPI_Init. When neither
 * OMP_NUM_THREADS nor OPENBLAS_NUM_THREADS is set, gives each rank
 * cores / (ranks on this host) threads (at least 1) for OpenMP and
 * OpenBLAS: a bare `mpirun -np 4` on 4 cores must not start 16 threads.
 * Returns the thread count in effect. Simulated builds (SIM=1, SimGrid
 * SMPI) always use one thread per rank. */
int ddl_threads_init(MPI_Comm comm);

/* What every lab does first: MPI_Init, rank-prefixed messages
 * (ddl_set_rank), threads per rank (ddl_threads_init). */
void ddl_program_start(int *argc, char ***argv, int *rank, int *size);

#endif
