/* parallel.h - OpenMP for the memory-bound kernels around the GEMMs.
 *
 * BLAS already uses every core for the convolution GEMMs; im2col, batch
 * norm, pooling and the elementwise ops would otherwise run on one core
 * while the others idle (a third of a VGG-11 step on 2 cores). Each
 * parallel loop gives every thread whole channels/rows/planes, so results
 * do not depend on the thread count (no reductions are split). Loops below
 * DDL_PAR_MIN elements stay serial: waking threads costs microseconds.
 * Without -fopenmp (or with OMP_NUM_THREADS=1, as under SimGrid) the
 * pragmas vanish or run one thread. */
#ifndef DDL_CPU_PARALLEL_H
#define DDL_CPU_PARALLEL_H

#ifdef _OPENMP
#define DDL_PRAGMA(x) _Pragma(#x)
#define PARALLEL_FOR(work) \
    DDL_PRAGMA(omp parallel for schedule(static) num_threads(ddl_kernel_threads()) if ((work) > 32768))
#else
#define PARALLEL_FOR(work)
#endif

/* Threads of these loops: OpenMP's default (OMP_NUM_THREADS, or what
 * ddl_threads_init set), unless ddl_set_kernel_threads(n > 0) says
 * otherwise. The OpenMP build of OpenBLAS follows OpenMP's default too; the
 * override lets tests/test_threads.c vary ddlab's loops alone. */
int ddl_kernel_threads(void);
void ddl_set_kernel_threads(int n);

#endif
