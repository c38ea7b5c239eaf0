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

/* This rank's place among the ranks of comm on its host, and how many they
 * are. Under Open MPI, for MPI_COMM_WORLD, from the launcher's
 * OMPI_COMM_WORLD_LOCAL_RANK/LOCAL_SIZE (no communication); otherwise
 * MPI_Comm_split_type (collective over comm). Open MPI 4.1's
 * MPI_Comm_split_type can hang when ranks of several hosts talk over its
 * TCP transport (open-mpi/ompi#9010; seen on the emulated cluster with
 * two ranks on one of two hosts), which the environment avoids. */
int ddl_node_rank(MPI_Comm comm, int *ranks);

/* What every lab does first: MPI_Init, rank-prefixed messages
 * (ddl_set_rank), threads per rank (ddl_threads_init). */
void ddl_program_start(int *argc, char ***argv, int *rank, int *size);

#endif
