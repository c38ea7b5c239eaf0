/* threads.c - see threads.h. */
#include "threads.h"

#include <cblas.h>
#include <stdlib.h>
#if defined(__GLIBC__) && !defined(DDL_SMPI) /* SMPI redefines malloc & co. as macros */
#include <malloc.h>
#endif
#include <unistd.h>
#include "common.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Open MPI allocates a collective's temporary buffers on every call and
 * frees them after; glibc serves blocks above its mmap threshold (at most
 * 32 MiB) from fresh mappings, so each call page-faults its buffers in
 * again: VGG-11's 37 MB gradient in one MPI_Allreduce spent 17-19 ms per
 * step instead of 8-10 ms here (lab3's flat control). Freed memory stays in
 * the heap instead, as a caching allocator would keep it; the labs measure
 * the algorithms, not the page faults. DDL_MALLOC_DEFAULT=1 keeps glibc's
 * defaults (and so do MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ when
 * set). */
static void keep_freed_memory(void)
{
#if defined(__GLIBC__) && !defined(DDL_SMPI)
    const char *keep = getenv("DDL_MALLOC_DEFAULT");
    if ((keep && *keep == '1') || getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TRIM_THRESHOLD_")) return;
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

void ddl_program_start(int *argc, char ***argv, int *rank, int *size)
{
    keep_freed_memory();
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    ddl_set_rank(*rank, *size);
    ddl_threads_init(MPI_COMM_WORLD);
}

/* A positive integer from the environment, or -1. */
static int env_count(const char *name)
{
    const char *v = getenv(name);
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    return v && *v && !*end && n >= 0 && n < 1000000 ? (int)n : -1;
}

int ddl_node_rank(MPI_Comm comm, int *ranks)
{
    int r = env_count("OMPI_COMM_WORLD_LOCAL_RANK"), n = env_count("OMPI_COMM_WORLD_LOCAL_SIZE"), same = 0;
    if (comm == MPI_COMM_WORLD || (MPI_Comm_compare(comm, MPI_COMM_WORLD, &same) == MPI_SUCCESS && same == MPI_IDENT))
        if (r >= 0 && n > r) {
            *ranks = n;
            return r;
        }
    MPI_Comm node;
    int me = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &r);
    MPI_Comm_size(node, ranks);
    MPI_Comm_free(&node);
    return r;
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
    int local = 1;
    ddl_node_rank(comm, &local);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int t = (int)(cores / (local > 0 ? local : 1));
    if (t < 1) t = 1;
#ifdef _OPENMP
    omp_set_num_threads(t);
#endif
    openblas_set_num_threads(t);
    return t;
}
