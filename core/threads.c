/* threads.c - see threads.h. */
#include "threads.h"

#include <cblas.h>
#include <stdlib.h>
#include <unistd.h>
#include "common.h"
#ifdef _OPENMP
#include <omp.h>
#endif

void ddl_program_start(int *argc, char ***argv, int *rank, int *size)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    ddl_set_rank(*rank, *size);
    ddl_threads_init(MPI_COMM_WORLD);
}

int ddl_threads_init(MPI_Comm comm)
{
#ifdef DDL_SMPI
    /* SimGrid SMPI runs the ranks one at a time in one process and charges
     * each rank's computation by the CPU time of the thread running it:
     * threads of a rank would work uncharged (and OpenMP's per-thread state
     * would be shared by every rank). One thread per rank, whatever the
     * environment says. */
    (void)comm;
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    openblas_set_num_threads(1);
    return 1;
#endif
    const char *omp = getenv("OMP_NUM_THREADS"), *blas = getenv("OPENBLAS_NUM_THREADS");
    if ((omp && *omp) || (blas && *blas)) return openblas_get_num_threads();
    MPI_Comm node;
    int local = 1;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int t = (int)(cores / (local > 0 ? local : 1));
    if (t < 1) t = 1;
#ifdef _OPENMP
    omp_set_num_threads(t);
#endif
    openblas_set_num_threads(t);
    return t;
}
