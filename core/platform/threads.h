/* threads.h - threads per rank. */
#ifndef DDL_THREADS_H
#define DDL_THREADS_H

#include <mpi.h>
#include <stdbool.h>

#include "placement.h"

/* Called by every program right after MPI_Init. When neither
 * OMP_NUM_THREADS nor OPENBLAS_NUM_THREADS is set, gives each rank the
 * CPUs of its affinity mask divided among the ranks of its host that share
 * them (ddl_threads_for; at least 1) for OpenMP and OpenBLAS: a bare
 * `mpirun -np 4` on 4 cores must not start 16 threads, and `srun -c 1`
 * must not start 2 on its 1 CPU.
 * Returns the thread count in effect. Simulated builds (SIM=1, SimGrid
 * SMPI) always use one thread per rank. */
int ddl_threads_init(MPI_Comm comm);

/* Threads for a rank allowed `allowed` CPUs of `online`, one of `local`
 * ranks on its host: its CPUs divided among the ranks that share them
 * (ddl_threads_init's rule, apart for testing). */
int ddl_threads_for(int allowed, int online, int local);

/* The threads this process runs OpenBLAS and OpenMP loops with now. */
int ddl_threads_in_use(void);

/* What every lab does first: freed memory kept in the heap (unless
 * malloc_default, the driver's DDL_MALLOC_DEFAULT=1, or glibc's own
 * MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ say otherwise), MPI_Init,
 * rank-prefixed messages (ddl_set_rank), threads per rank
 * (ddl_threads_init). stop_signals (the driver's DDL_CHECKPOINT_ON_USR1=1):
 * SIGUSR1 and SIGTERM blocked from here, then caught (threads.c). */
void ddl_program_start(int *argc, char ***argv, int *rank, int *size, bool malloc_default, bool stop_signals);

#endif
