// gemm.cu - row-major GEMM through cuBLAS (twin of core/cpu/gemm.c).
//
// cuBLAS is column-major. A row-major M x N matrix with leading dimension
// ld is, byte for byte, a column-major N x M matrix with the same ld, so
//   C = op(A) op(B)   (row-major)   <=>   C^T = op(B)^T op(A)^T (column-major)
// and the call passes B before A with M and N swapped; the transpose flags
// keep their meaning for each operand. No data moves.
#include "cuda_check.h"
#include "kernels_cuda.h"

namespace {

// One cuBLAS handle per thread and device, created on first use. A handle
// belongs to the device that was current when it was made, and cuBLAS
// advises against sharing one between threads, hence thread_local rather
// than one global. Handles are not destroyed at exit (cuBLAS may outlive
// the CUDA context then); ddl_cuda_blas_release() frees them on request.
thread_local cublasHandle_t tl_handles[DDL_MAX_DEVICES];

cublasHandle_t blas_handle()
{
    cublasHandle_t &h = tl_handles[ddl_device_index("gemm_cuda")];
    if (!h) {
        DDL_CUBLAS_CHECK(cublasCreate(&h));
        // FP32 GEMM in FP32: no TF32 tensor-op shortcut (CUBLAS_DEFAULT_MATH
        // does not use it unless NVIDIA_TF32_OVERRIDE=1 is set), so the
        // results stay comparable with the CPU's sgemm.
        DDL_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    }
    // The thread's stream may have changed since the last call.
    DDL_CUBLAS_CHECK(cublasSetStream(h, ddl_stream()));
    return h;
}

inline cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

} // namespace

extern "C" void gemm_f32_cuda(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                              const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M == 0 || N == 0) return; // as gemm_f32
    DDL_CUBLAS_CHECK(cublasSgemm(blas_handle(), op(trans_b), op(trans_a), N, M, K, &alpha, B, ldb, A, lda, &beta, C,
                                 ldc));
}

extern "C" void gemm_f16_cuda(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const uint16_t *A,
                              int lda, const uint16_t *B, int ldb, float beta, float *C, int ldc)
{
    if (M == 0 || N == 0) return;
    // FP16 inputs, FP32 accumulation and output; alpha and beta are floats
    // because the compute type is 32F. Tensor cores are used when cuBLAS
    // sees fit (they accumulate in FP32 here).
    DDL_CUBLAS_CHECK(cublasGemmEx(blas_handle(), op(trans_b), op(trans_a), N, M, K, &alpha, B, CUDA_R_16F, ldb, A,
                                  CUDA_R_16F, lda, &beta, C, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

extern "C" void ddl_cuda_blas_release(void)
{
    int cur = 0;
    bool have_cur = cudaGetDevice(&cur) == cudaSuccess;
    for (int d = 0; d < DDL_MAX_DEVICES; d++) {
        if (!tl_handles[d]) continue;
        DDL_CUDA_CHECK(cudaSetDevice(d));
        DDL_CUBLAS_CHECK(cublasDestroy(tl_handles[d]));
        tl_handles[d] = nullptr;
    }
    if (have_cur) DDL_CUDA_CHECK(cudaSetDevice(cur));
}
