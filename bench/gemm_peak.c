/* gemm_peak.c - the BLAS SGEMM rate of this machine (best of 5, square
 * 1024 and 2048), the reference for "achieved GFLOP/s" in `make bench`. */
#include <mpi.h>
#include <stdio.h>
#include "common.h"
#include "gemm.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int n = 1024; n <= 2048; n *= 2) {
        float *a = ddl_calloc(sizeof(float) * n * n), *b = ddl_calloc(sizeof(float) * n * n),
              *c = ddl_calloc(sizeof(float) * n * n);
        for (long i = 0; i < (long)n * n; i++) { a[i] = 1e-3f * (float)(i % 7); b[i] = 1e-3f * (float)(i % 5); }
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
            double t0 = ddl_now();
            gemm_f32(false, false, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
            double t = ddl_now() - t0;
            if (t < best) best = t;
        }
        printf("bench sgemm %d^3: %.1f GFLOP/s (OpenBLAS %s, %d threads)\n", n, 2.0 * n * n * (double)n / best * 1e-9,
               blas_core_name(), blas_threads());
        ddl_free(a); ddl_free(b); ddl_free(c);
    }
    MPI_Finalize();
    return 0;
}
