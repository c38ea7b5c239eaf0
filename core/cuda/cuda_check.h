// cuda_check.h - error checks and launch helpers shared by the .cu files.
// C++/CUDA only (needs the CUDA headers, which the C compiler does not see);
// C code uses kernels_cuda.h and device_mem.h instead.
#ifndef DDL_CUDA_CHECK_H
#define DDL_CUDA_CHECK_H

#include <cstddef>
#include <cublas_v2.h>
#include <cuda_runtime.h>

extern "C" {
#include "../util/common.h"
}
#include "device_mem.h"
#include "launch.h"

// Every CUDA call is checked; a failure is a programming or environment
// error the caller cannot repair (the kernels mirror void CPU functions),
// so it ends the run through ddl_die (which names the MPI rank and calls
// MPI_Abort so no peer hangs), with file:line, the call and CUDA's words.
#define DDL_CUDA_CHECK(call)                                                                                   \
    do {                                                                                                       \
        cudaError_t ddl_e_ = (call);                                                                           \
        if (ddl_e_ != cudaSuccess)                                                                             \
            ddl_die("%s:%d: %s failed: %s (%s)", __FILE__, __LINE__, #call, cudaGetErrorString(ddl_e_),        \
                    cudaGetErrorName(ddl_e_));                                                                 \
    } while (0)

#define DDL_CUBLAS_CHECK(call)                                                                                 \
    do {                                                                                                       \
        cublasStatus_t ddl_s_ = (call);                                                                        \
        if (ddl_s_ != CUBLAS_STATUS_SUCCESS)                                                                   \
            ddl_die("%s:%d: %s failed: %s (%s)", __FILE__, __LINE__, #call, cublasGetStatusString(ddl_s_),     \
                    cublasGetStatusName(ddl_s_));                                                              \
    } while (0)

// The same check for a library whose calls return a status with one
// success value and a to-string function (cuDNN, NCCL).
#define DDL_STATUS_CHECK(call, type, success, to_string)                                                       \
    do {                                                                                                       \
        type ddl_st_ = (call);                                                                                 \
        if (ddl_st_ != (success))                                                                              \
            ddl_die("%s:%d: %s failed: %s", __FILE__, __LINE__, #call, to_string(ddl_st_));                    \
    } while (0)

// After a DDL_LAUNCH (launch.h): catches bad launch configurations at once.
// Faults inside a kernel surface at the next synchronising call (a copy to
// the host, ddl_cuda_synchronize), which is checked the same way.
#define DDL_CUDA_LAUNCHED() DDL_CUDA_CHECK(cudaGetLastError())

// __shared__ arrays are declared `__shared__ ddl_shared<T, N> name;` and
// passed as ddl_shared_ptr<T>: plain T[N] and T * under nvcc; on the
// emulated GPU (emu/emu.h) types whose every access strict mode checks for
// races between the block's threads.
#ifndef DDL_CUDA_EMU
template <typename T, int N> using ddl_shared = T[N];
template <typename T> using ddl_shared_ptr = T *;
#endif

// Threads per block for the simple kernels and the per-channel reductions.
// The reductions depend on it for their summation order (fixed, so results
// are deterministic from run to run). Kernels that keep one __shared__ slot
// per thread (ddl_block_sum's callers) are declared
// __launch_bounds__(DDL_BLOCK): nvcc fits their registers to that block, and
// a launch with more threads fails instead of indexing past the array.
constexpr int DDL_BLOCK = 256;

// Blocks for a grid-stride loop over n items: enough to fill any GPU, capped
// so the grid stays legal; the loop covers the rest.
static inline unsigned ddl_grid(size_t n)
{
    size_t b = (n + DDL_BLOCK - 1) / DDL_BLOCK;
    if (b > 65535) b = 65535;
    return b ? (unsigned)b : 1u;
}

// Library handles (cuBLAS, cuDNN) are kept per thread and per device in
// arrays of DDL_MAX_DEVICES: this thread's current device, as an index
// into them (who: the caller, for the message).
constexpr int DDL_MAX_DEVICES = 64;
static inline int ddl_device_index(const char *who)
{
    int dev = 0;
    DDL_CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= DDL_MAX_DEVICES) ddl_die("%s: device %d beyond the %d handles kept", who, dev, DDL_MAX_DEVICES);
    return dev;
}

// The stream every kernel and cuBLAS call of this thread goes to.
static inline cudaStream_t ddl_stream() { return static_cast<cudaStream_t>(ddl_cuda_stream()); }

// The gather kernels split a flat index with 32-bit division (64-bit
// division costs several times more on a GPU); this refuses sizes where
// that would wrap, with a clear message instead of wrong results.
static inline void ddl_check_u32(size_t n, const char *what)
{
    if (n > 0xFFFFFFFFu) ddl_die("%s: %zu elements exceed this kernel's 32-bit indexing", what, n);
}

// a * b rounded on its own, never fused with a following add into an FMA:
// used where the CPU (C11, no contraction) rounds the product, to give its
// result bit for bit. The host branch exists for index checks on the CPU.
__host__ __device__ inline float ddl_mul_rn(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

#define DDL_GRID_STRIDE(i, n)                                                                                  \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (size_t)blockDim.x * gridDim.x)

#endif
