// cublas_lazy.cu - cuBLAS loaded on first use, not at program start.
//
// Linked, libcublas pulls in libcublasLt (about 540 MB in CUDA 13), whose
// start-up work cost every ddlab process 0.5 s of CPU time on a 2-core VM
// (2026-11-27: an empty C program linked with -lcublas took 0.51-0.54 s,
// without it 0.00 s), on the CPU as much as on a GPU, and once per MPI
// rank. So the real-GPU build does not link it: this file defines the few
// cuBLAS functions ddlab calls (gemm.cu, cuda_check.h) with cuBLAS's
// own declarations, and each resolves the library's function with
// dlopen/dlsym the first time any is called. A run on the CPU never loads
// it; a GPU run loads it at its first GEMM. The emulated GPU has its own
// cuBLAS (emu/cublas.cc): there this file is empty.
#ifndef DDL_CUDA_EMU
#include <cublas_v2.h>
#include <dlfcn.h>
#include <mutex>

#include "cuda_check.h"

#ifndef DDL_CUBLAS_SONAME
#define DDL_CUBLAS_SONAME "libcublas.so"
#endif
#ifndef DDL_CUBLAS_DIR
#define DDL_CUBLAS_DIR ""
#endif

namespace {

// The library's own functions, by the names it exports.
struct Cublas {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasSetMathMode) set_math_mode;
    decltype(&cublasSgemm_v2) sgemm;
    cublasStatus_t(CUBLASWINAPI *gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                          const void *, const void *, cudaDataType, int, const void *, cudaDataType,
                                          int, const void *, void *, cudaDataType, int, cublasComputeType_t,
                                          cublasGemmAlgo_t);
    decltype(&cublasGetStatusName) status_name;
    decltype(&cublasGetStatusString) status_string;
};

Cublas g_cublas;
std::once_flag g_once;

void *symbol(void *lib, const char *name, const char *from)
{
    void *f = dlsym(lib, name);
    if (!f) ddl_die("cuBLAS: %s has no function %s (%s)", from, name, dlerror());
    return f;
}

// The toolkit's copy found at build time first (the binaries' rpath),
// then the dynamic loader's search (LD_LIBRARY_PATH) for a moved install.
void load()
{
    const char *tried[2] = { DDL_CUBLAS_DIR "/" DDL_CUBLAS_SONAME, DDL_CUBLAS_SONAME };
    void *lib = nullptr;
    const char *from = nullptr;
    for (const char *path : tried) {
        if (path[0] == '/' && !DDL_CUBLAS_DIR[0]) continue;
        if ((lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
            from = path;
            break;
        }
    }
    if (!lib)
        ddl_die("cuBLAS could not be loaded (%s, then %s): %s; a GPU run needs the CUDA toolkit's libcublas", tried[0],
                tried[1], dlerror());
    Cublas c;
    c.create = (decltype(c.create))symbol(lib, "cublasCreate_v2", from);
    c.destroy = (decltype(c.destroy))symbol(lib, "cublasDestroy_v2", from);
    c.set_stream = (decltype(c.set_stream))symbol(lib, "cublasSetStream_v2", from);
    c.set_math_mode = (decltype(c.set_math_mode))symbol(lib, "cublasSetMathMode", from);
    c.sgemm = (decltype(c.sgemm))symbol(lib, "cublasSgemm_v2", from);
    c.gemm_ex = (decltype(c.gemm_ex))symbol(lib, "cublasGemmEx", from);
    c.status_name = (decltype(c.status_name))symbol(lib, "cublasGetStatusName", from);
    c.status_string = (decltype(c.status_string))symbol(lib, "cublasGetStatusString", from);
    g_cublas = c;
}

const Cublas &cublas()
{
    std::call_once(g_once, load);
    return g_cublas;
}

} // namespace

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t *handle) { return cublas().create(handle); }
cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) { return cublas().destroy(handle); }
cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    return cublas().set_stream(handle, stream);
}
cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    return cublas().set_math_mode(handle, mode);
}
cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                           int m, int n, int k, const float *alpha, const float *A, int lda,
                                           const float *B, int ldb, const float *beta, float *C, int ldc)
{
    return cublas().sgemm(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                         int lda, const void *B, cudaDataType Btype, int ldb, const void *beta,
                                         void *C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                         cublasGemmAlgo_t algo)
{
    return cublas().gemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
                            computeType, algo);
}
const char *CUBLASWINAPI cublasGetStatusName(cublasStatus_t status) { return cublas().status_name(status); }
const char *CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) { return cublas().status_string(status); }
#endif
