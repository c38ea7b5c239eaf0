/* gemm.h - single-precision matrix multiply, row-major, through CBLAS.
 * C = alpha * op(A) * op(B) + beta * C, op(X) = X or X^T; M x N result,
 * K the inner dimension. The CUDA twin (gemm_f32_cuda) has the same shape
 * of arguments and calls cuBLAS. */
#ifndef DDL_GEMM_H
#define DDL_GEMM_H

#include <stdbool.h>

void gemm_f32(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
              const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* Name of the BLAS core in use (OpenBLAS: "Haswell", "SkylakeX"...) and a
 * warning when the CPU has AVX-512 but OpenBLAS picked a narrower kernel
 * (Debian's OpenBLAS 0.3.21 does this on some AMD CPUs; OPENBLAS_CORETYPE
 * fixes it and roughly doubles sgemm throughput there). */
const char *blas_core_name(void);
bool blas_core_mismatch(void);
int blas_threads(void);
/* "openmp", "pthreads" or "sequential": how this OpenBLAS build threads. */
const char *blas_threading(void);

#endif
