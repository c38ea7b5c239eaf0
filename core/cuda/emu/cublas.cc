// cublas.cc - the cuBLAS calls of core/cuda/gemm_cuda.cu, on OpenBLAS, for
// the emulated GPU. Column-major in, column-major out, as cuBLAS: the
// row-major trick of gemm_cuda.cu (C^T = B^T A^T) is exercised unchanged.
//
// cublasGemmEx with FP16 operands and FP32 compute widens the halves to
// floats (exact) and runs SGEMM: each product of two halves is exact in
// FP32, and the sums are FP32, which is what CUBLAS_COMPUTE_32F promises.
// The summation order differs from a GPU's, as it does between GPUs.
#include <cublas_v2.h>

#include <cblas.h>

#include <vector>

extern "C" {
#include "common.h"
#include "half.h"
}

namespace ddl_emu {

struct EmuBlas {
    int unused;
};

namespace {

CBLAS_TRANSPOSE trans(cublasOperation_t op) { return op == CUBLAS_OP_T ? CblasTrans : CblasNoTrans; }

// Operand pointers must be device memory: a host pointer would work on the
// CPU and crash on a GPU, so it is refused here too.
bool all_device(const void *A, const void *B, const void *C)
{
    return is_device_pointer(A) && is_device_pointer(B) && is_device_pointer(C);
}

// A column-major rows x cols FP16 matrix with leading dimension ld, widened.
std::vector<float> widen(const void *m, int rows, int cols, int ld)
{
    std::vector<float> out((size_t)ld * (cols > 0 ? cols - 1 : 0) + (size_t)rows);
    const uint16_t *h = static_cast<const uint16_t *>(m);
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) out[(size_t)j * ld + i] = half_to_float(h[(size_t)j * ld + i]);
    return out;
}

} // namespace

cublasStatus_t cublasCreate(cublasHandle_t *h)
{
    *h = new EmuBlas{ 0 };
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t h)
{
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t) { return h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED; }
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t) { return h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED; }

const char *cublasGetStatusName(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid value was used as an argument (emulated GPU: a host pointer?)";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported (emulated GPU)";
    }
    return "unknown status";
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0 || !all_device(A, B, C)) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    memory_open();
    cblas_sgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, *alpha, A, lda, B, ldb, *beta, C, ldc);
    memory_close();
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void *alpha, const void *A, cudaDataType_t at, int lda, const void *B,
                            cudaDataType_t bt, int ldb, const void *beta, void *C, cudaDataType_t ct, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (at != CUDA_R_16F || bt != CUDA_R_16F || ct != CUDA_R_32F || compute != CUBLAS_COMPUTE_32F)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (m < 0 || n < 0 || k < 0 || !all_device(A, B, C)) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    bool a_t = ta == CUBLAS_OP_T, b_t = tb == CUBLAS_OP_T;
    memory_open();
    std::vector<float> a = widen(A, a_t ? k : m, a_t ? m : k, lda);
    std::vector<float> b = widen(B, b_t ? n : k, b_t ? k : n, ldb);
    cblas_sgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, *static_cast<const float *>(alpha), a.data(), lda,
                b.data(), ldb, *static_cast<const float *>(beta), static_cast<float *>(C), ldc);
    memory_close();
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace ddl_emu
