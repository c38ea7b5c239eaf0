// emu.h - the emulated GPU: what a CUDA kernel source needs, for the host
// C++ compiler.
//
// DEVICE=cuda-emu runs the very .cu files of core/cuda on the CPU. They are
// compiled a second time by g++ (-x c++ -DDDL_CUDA_EMU, with
// core/cuda/emu/include ahead on the include path, so that <cuda_runtime.h>,
// <cuda_fp16.h> and <cublas_v2.h> land here), against this header:
//
//  - Kernel side: __global__/__device__/__host__ vanish; threadIdx, blockIdx,
//    blockDim and gridDim read the running CUDA thread's indices; __shared__
//    variables are one per OS thread, and an OS thread runs one block at a
//    time (scheduler.cc), so a block's threads share them as on a GPU;
//    __syncthreads is a real barrier and __shfl_xor_sync a real exchange
//    between the threads of a warp.
//  - Launch: DDL_LAUNCH(kernel, grid, block, shared, stream)(args...)
//    (core/cuda/launch.h) runs the whole grid before it returns, blocks
//    spread over the cores. Streams and events exist but every operation
//    is done when its call returns (a legal order of an asynchronous GPU).
//  - Runtime: the calls ddl_cuda_* make (runtime.cc). Device memory lives in
//    a mapping of its own that is PROT_NONE except while an emulated kernel,
//    copy or GEMM runs: host code that dereferences a device pointer
//    crashes, as it would on a GPU, instead of passing by accident.
//  - cuBLAS: cublasSgemm and cublasGemmEx (FP16 in, FP32 compute) on
//    OpenBLAS (cublas.cc).
//
// Everything is in namespace ddl_emu (C++ linkage), so a binary with both
// the real CUDA build and this one links libcudart without a clash.
#ifndef DDL_CUDA_EMU_H
#define DDL_CUDA_EMU_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// One instance per OS thread: the threads of the block that this OS thread
// is running.
#define __shared__ static thread_local

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace ddl_emu {

// The CUDA thread running on this OS thread now. The scheduler rewrites it
// at every switch between the fibers of a block. Plain data (uint3, as
// CUDA's own threadIdx), so the thread-local needs no constructor and no
// access wrapper.
struct uint3 {
    unsigned x, y, z;
};
struct ThreadIndex {
    uint3 thread, block, block_dim, grid_dim;
};
extern thread_local ThreadIndex now;

// ---- barriers and warp exchange (scheduler.cc) ----
void sync_block();
// Publishes this thread's 8 bytes, waits for its warp, returns the 8 bytes
// of lane (lane ^ xor_mask) (own value when that lane does not exist).
uint64_t warp_exchange_xor(uint64_t mine, int xor_mask);

// ---- launch ----
// Runs body(arg) once per CUDA thread of the grid (scheduler.cc). Errors in
// the configuration are kept for cudaGetLastError, as on a GPU.
void run_grid(const char *kernel, dim3 grid, dim3 block, size_t shared_bytes, void (*body)(void *), void *arg);

template <typename... P> struct Launch {
    void (*fn)(P...);
    const char *name;
    dim3 grid, block;
    size_t shared;

    template <typename... A> void operator()(A &&...args) const
    {
        // The arguments are converted to the kernel's parameter types once,
        // as a launch copies them to the device once; every thread reads
        // the same copy.
        struct Call {
            void (*fn)(P...);
            std::tuple<P...> args;
        } call{ fn, std::tuple<P...>(std::forward<A>(args)...) };
        run_grid(name, grid, block, shared,
                 [](void *c) {
                     Call *k = static_cast<Call *>(c);
                     std::apply(k->fn, k->args);
                 },
                 &call);
    }
};

template <typename... P> Launch<P...> launch(void (*fn)(P...), const char *name, dim3 grid, dim3 block, size_t shared)
{
    return Launch<P...>{ fn, name, grid, block, shared };
}

// Device memory is readable and writable only between open() and close()
// (runtime.cc); they nest and may be called from any thread.
void memory_open();
void memory_close();

} // namespace ddl_emu

#define threadIdx (ddl_emu::now.thread)
#define blockIdx (ddl_emu::now.block)
#define blockDim (ddl_emu::now.block_dim)
#define gridDim (ddl_emu::now.grid_dim)

#define DDL_LAUNCH(kernel, grid, block, shared_bytes, stream)                                                  \
    ((void)(stream), ddl_emu::launch(kernel, #kernel, dim3(grid), dim3(block), (shared_bytes)))

inline void __syncthreads() { ddl_emu::sync_block(); }

template <typename T> inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask)
{
    static_assert(sizeof(T) <= sizeof(uint64_t), "__shfl_xor_sync: at most 8 bytes");
    (void)mask; // every lane of ddlab's warps takes part (mask 0xffffffff)
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    bits = ddl_emu::warp_exchange_xor(bits, lane_mask);
    T r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
}

// Round-to-nearest intrinsics: the host compiler is told not to contract
// (-ffp-contract=off), so a plain operation rounds on its own, which is
// what these promise.
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }

using std::isfinite;
using std::isnan;

#endif
