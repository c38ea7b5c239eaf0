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
#define PARALLEL_FOR(work) DDL_PRAGMA(omp parallel for schedule(static) if ((work) > 32768))
#else
#define PARALLEL_FOR(work)
#endif

#endif
