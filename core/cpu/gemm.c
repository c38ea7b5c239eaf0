/* gemm.c - CBLAS (OpenBLAS) behind gemm_f32. */
#include "gemm.h"

#include <cblas.h>
#include <string.h>

void gemm_f32(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
              const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M == 0 || N == 0) return;
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
                M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

const char *blas_core_name(void) { return openblas_get_corename(); }

int blas_threads(void) { return openblas_get_num_threads(); }

const char *blas_threading(void)
{
    switch (openblas_get_parallel()) {
    case 0: return "sequential";
    case 1: return "pthreads";
    default: return "openmp";
    }
}

bool blas_core_mismatch(void)
{
    const char *core = openblas_get_corename();
    __builtin_cpu_init();
    bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    return avx512 && core && (strcmp(core, "Haswell") == 0 || strcmp(core, "Zen") == 0);
}
