// cublas.cc - the cuBLAS calls of core/cuda/gemm.cu, on OpenBLAS, for
// the emulated GPU. Column-major in, column-major out, as cuBLAS: the
// row-major trick of gemm.cu (C^T = B^T A^T) is exercised unchanged.
//
// cublasGemmEx with FP16 operands and FP32 compute widens the halves to
// floats (exact) and runs SGEMM: each product of two halves is exact in
// FP32, and the sums are FP32, which is what CUBLAS_COMPUTE_32F promises.
// The summation order differs from a GPU's, as it does between GPUs.
//
// A GEMM runs on the handle's stream (streams.h). In strict mode each
// operand must lie within its allocation, A, B (and C when beta is not 0)
// must hold only bytes something wrote (column by column: the padding
// between columns, which cuBLAS does not read, may be anything), and C's
// columns count as written afterwards.
#include <cublas_v2.h>

#include <cblas.h>

#include <string>
#include <vector>

#include "memory.h"
#include "streams.h"
#include "strict.h"

extern "C" {
#include "util/common.h"
#include "util/half.h"
}

namespace ddl_emu {

struct EmuBlas {
    cudaStream_t stream;
};

namespace {

CBLAS_TRANSPOSE trans(cublasOperation_t op) { return op == CUBLAS_OP_T ? CblasTrans : CblasNoTrans; }

// Operand pointers must be device memory: a host pointer would work on the
// CPU and crash on a GPU, so it is refused here too.
bool all_device(const void *A, const void *B, const void *C)
{
    return is_device_pointer(A) && is_device_pointer(B) && is_device_pointer(C);
}

// A column-major rows x cols matrix of elem-byte values with leading
// dimension ld, as strict mode sees it.
struct Matrix {
    const void *p;
    int rows, cols, ld;
    size_t elem;
    size_t bytes() const { return rows && cols ? ((size_t)(cols - 1) * ld + rows) * elem : 0; }
    const char *col(int j) const { return static_cast<const char *>(p) + (size_t)j * ld * elem; }
};

void check_operand(const char *what, const Matrix &m)
{
    if (!strict()) return;
    check_range(what, m.p, m.bytes());
    if (m.ld == m.rows) {
        check_written(what, m.p, m.bytes());
        return;
    }
    for (int j = 0; j < m.cols; j++) check_written(what, m.col(j), (size_t)m.rows * m.elem);
}

void mark_output(const Matrix &m)
{
    if (!strict()) return;
    if (m.ld == m.rows) {
        mark_written(m.p, m.bytes());
        return;
    }
    for (int j = 0; j < m.cols; j++) mark_written(m.col(j), (size_t)m.rows * m.elem);
}

// The GEMM on the handle's stream; gemm() computes, the checks around it.
template <typename F>
void queue_gemm(cublasHandle_t h, const char *what, const Matrix &a, const Matrix &b, const Matrix &c, bool reads_c,
                F gemm)
{
    if (strict()) {
        check_range(what, a.p, a.bytes());
        check_range(what, b.p, b.bytes());
        check_range(what, c.p, c.bytes());
    }
    Access acc[3] = { { a.p, a.bytes(), false }, { b.p, b.bytes(), false }, { c.p, c.bytes(), true } };
    std::string name = what;
    submit(h->stream, what, [a, b, c, reads_c, gemm, name] {
        check_operand((name + " operand A").c_str(), a);
        check_operand((name + " operand B").c_str(), b);
        if (reads_c) check_operand((name + " operand C (beta != 0)").c_str(), c);
        memory_open();
        gemm();
        memory_close();
        mark_output(c);
    }, acc, 3, false);
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
    *h = new EmuBlas{ cudaStreamPerThread };
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t h)
{
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUBLAS_STATUS_SUCCESS;
}

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
    bool a_t = ta == CUBLAS_OP_T, b_t = tb == CUBLAS_OP_T;
    Matrix a{ A, a_t ? k : m, a_t ? m : k, lda, 4 }, b{ B, b_t ? n : k, b_t ? k : n, ldb, 4 }, c{ C, m, n, ldc, 4 };
    float al = *alpha, be = *beta; // host values, read at the call as cuBLAS does
    queue_gemm(h, "cublasSgemm", a, b, c, be != 0.0f, [=] {
        cblas_sgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, al, A, lda, B, ldb, be, C, ldc);
    });
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
    Matrix a{ A, a_t ? k : m, a_t ? m : k, lda, 2 }, b{ B, b_t ? n : k, b_t ? k : n, ldb, 2 }, c{ C, m, n, ldc, 4 };
    float al = *static_cast<const float *>(alpha), be = *static_cast<const float *>(beta);
    queue_gemm(h, "cublasGemmEx", a, b, c, be != 0.0f, [=] {
        std::vector<float> wa = widen(A, a.rows, a.cols, lda), wb = widen(B, b.rows, b.cols, ldb);
        cblas_sgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, al, wa.data(), lda, wb.data(), ldb, be,
                    static_cast<float *>(C), ldc);
    });
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace ddl_emu
