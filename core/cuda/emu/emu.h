// emu.h - the emulated GPU: what a CUDA kernel source needs, for the host
// C++ compiler.
//
// DEVICE=cuda-emu runs the very .cu files of core/cuda on the CPU. They are
// compiled a second time by g++ (-x c++ -DDDL_CUDA_EMU, with
// core/cuda/emu/include ahead on the include path, so that <cuda_runtime.h>,
// <cuda_fp16.h> and <cublas_v2.h> land here), against this header:
//
//  - Kernel side: __global__/__device__/__host__/__launch_bounds__ vanish;
//    threadIdx, blockIdx, blockDim and gridDim read the running CUDA
//    thread's indices; __shared__ variables are one per OS thread, and an
//    OS thread runs one block at a time (scheduler.cc), so a block's threads
//    share them as on a GPU; __shared__ arrays are declared
//    `__shared__ ddl_shared<T, N> name;` (an array T[N] under nvcc), so that
//    strict mode sees every access (shared.cc); __syncthreads is a real
//    barrier and __shfl_xor_sync a real exchange between the threads of a
//    warp.
//  - Launch: DDL_LAUNCH(kernel, grid, block, shared, stream)(args...)
//    (core/cuda/launch.h) checks the configuration and hands the grid to
//    its stream (launch.cc): run before the call returns, or, in strict
//    mode, queued until the host waits for it (streams.h).
//  - Runtime: the calls ddl_cuda_* make (runtime.cc). Device memory lives in
//    a mapping of its own that is PROT_NONE except while an emulated kernel,
//    copy or GEMM runs: host code that dereferences a device pointer
//    crashes, as it would on a GPU, instead of passing by accident.
//  - cuBLAS: cublasSgemm and cublasGemmEx (FP16 in, FP32 compute) on
//    OpenBLAS (cublas.cc).
//  - Strict mode (DDL_EMU_STRICT=1, strict.h): the emulator as a sanitizer.
//
// Everything is in namespace ddl_emu (C++ linkage), so a binary with both
// the real CUDA build and this one links libcudart without a clash.
#ifndef DDL_CUDA_EMU_H
#define DDL_CUDA_EMU_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
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
// site: "file:line" of the __syncthreads (strict mode reports threads
// waiting at different ones).
void sync_block(const char *site);
// Publishes this thread's 8 bytes, waits for its warp, returns the 8 bytes
// of lane (lane ^ xor_mask). A lane that has exited or is not in mask is
// undefined on a GPU: strict mode reports it, otherwise the caller gets
// its own value back.
uint64_t warp_exchange_xor(uint64_t mine, int xor_mask, unsigned mask);

// ---- launch (launch.cc) ----
struct EmuStream;
constexpr int MAX_ARG_PTRS = 16;

// What a launch is: the kernel's name and configuration, its stream, and
// its pointer arguments (strict mode checks that each is device memory and
// afterwards looks at what the kernel wrote there; `writes`: the kernel
// may write through it, i.e. it does not point to const).
struct LaunchSpec {
    const char *kernel;
    dim3 grid, block;
    size_t shared;
    EmuStream *stream;
    const void *ptrs[MAX_ARG_PTRS];
    bool writes[MAX_ARG_PTRS];
    int nptrs;
};

// Runs body(arg) once per CUDA thread of the grid, on its stream. Errors in
// the configuration are kept for cudaGetLastError, as on a GPU (strict
// mode reports them).
void launch(const LaunchSpec &spec, void (*body)(void *), std::shared_ptr<void> arg);

template <typename T> void note_arg(LaunchSpec &s, const T &v)
{
    if constexpr (std::is_pointer<T>::value) {
        if (s.nptrs < MAX_ARG_PTRS) {
            s.ptrs[s.nptrs] = static_cast<const void *>(v);
            s.writes[s.nptrs] = !std::is_const<typename std::remove_pointer<T>::type>::value;
            s.nptrs++;
        }
    }
}

template <typename... P> struct Launch {
    void (*fn)(P...);
    const char *name;
    dim3 grid, block;
    size_t shared;
    EmuStream *stream;

    template <typename... A> void operator()(A &&...args) const
    {
        // The arguments are converted to the kernel's parameter types once,
        // as a launch copies them to the device once; every thread reads
        // the same copy, which lives as long as the queued launch.
        struct Call {
            void (*fn)(P...);
            std::tuple<P...> args;
        };
        auto call = std::make_shared<Call>(Call{ fn, std::tuple<P...>(std::forward<A>(args)...) });
        LaunchSpec spec{ name, grid, block, shared, stream, {}, {}, 0 };
        std::apply([&spec](const P &...a) { (note_arg(spec, a), ...); }, call->args);
        launch(spec,
               [](void *c) {
                   Call *k = static_cast<Call *>(c);
                   std::apply(k->fn, k->args);
               },
               call);
    }
};

template <typename... P>
Launch<P...> make_launch(void (*fn)(P...), const char *name, dim3 grid, dim3 block, size_t shared, EmuStream *stream)
{
    return Launch<P...>{ fn, name, grid, block, shared, stream };
}

// ---- __shared__ arrays (shared.cc) ----
// Strict mode records every access to a ddl_shared array: which thread
// read or wrote which element since the block's last __syncthreads.
extern bool g_shared_checks;
void shared_access(const void *base, size_t count, size_t elem, size_t index, bool write);

template <typename T> struct SharedElem {
    T *base;
    size_t count, index;
    operator T() const
    {
        if (g_shared_checks) shared_access(base, count, sizeof(T), index, false);
        return base[index];
    }
    SharedElem &operator=(T v)
    {
        if (g_shared_checks) shared_access(base, count, sizeof(T), index, true);
        base[index] = v;
        return *this;
    }
    SharedElem &operator=(const SharedElem &o) { return *this = static_cast<T>(o); }
    SharedElem &operator+=(T v) { return *this = static_cast<T>(*this) + v; }
    SharedElem &operator-=(T v) { return *this = static_cast<T>(*this) - v; }
    SharedElem &operator*=(T v) { return *this = static_cast<T>(*this) * v; }
};

// A pointer to a ddl_shared array (ddl_shared_ptr<T>: T * under nvcc).
template <typename T> struct SharedPtr {
    T *base;
    size_t count;
    SharedElem<T> operator[](size_t i) const { return SharedElem<T>{ base, count, i }; }
};

// Trivial (no constructor): a static thread_local of it needs no guard.
template <typename T, int N> struct Shared {
    T data[N];
    SharedElem<T> operator[](size_t i) { return SharedElem<T>{ data, (size_t)N, i }; }
    operator SharedPtr<T>() { return SharedPtr<T>{ data, (size_t)N }; }
};

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
    ddl_emu::make_launch(kernel, #kernel, dim3(grid), dim3(block), (shared_bytes), (stream))

template <typename T, int N> using ddl_shared = ddl_emu::Shared<T, N>;
template <typename T> using ddl_shared_ptr = ddl_emu::SharedPtr<T>;

// The barrier's source line names it (strict mode compares them; an
// address would differ between copies the compiler makes of one call).
#define DDL_EMU_STR2(x) #x
#define DDL_EMU_STR(x) DDL_EMU_STR2(x)
#define __syncthreads() ddl_emu::sync_block(__FILE__ ":" DDL_EMU_STR(__LINE__))

template <typename T> inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask)
{
    static_assert(sizeof(T) <= sizeof(uint64_t), "__shfl_xor_sync: at most 8 bytes");
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    bits = ddl_emu::warp_exchange_xor(bits, lane_mask, mask);
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
