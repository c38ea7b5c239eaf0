// runtime.cc - the emulated GPU's runtime: device memory, copies, streams,
// events and the device's description (see emu.h).
//
// Device memory is one reserved mapping, PROT_NONE except while a kernel,
// a copy or a GEMM runs (memory_open/close). Host code that dereferences a
// device pointer therefore crashes at once, as it would with a real GPU,
// instead of reading the right numbers by accident: that is the point of
// emulating the GPU at all. Allocation is first-fit with coalescing over
// the used part of the mapping (no zeroing: like cudaMalloc, new memory
// holds whatever was there).
//
// Every stream operation completes before its call returns, which is one
// legal schedule of the asynchronous API; streams and events are handles.
#include <cuda_runtime.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

extern "C" {
#include "common.h"
#include "cpu/parallel.h"
}

namespace ddl_emu {

struct EmuStream {
    int unused;
};
struct EmuEvent {
    int unused;
};

namespace {

constexpr size_t ALIGN = 256; // cudaMalloc's alignment

struct Arena {
    std::mutex mu;
    char *base = nullptr;
    size_t reserved = 0;
    size_t top = 0;                  // bytes handed out so far from the bottom (high-water)
    std::map<size_t, size_t> free_;  // offset -> size, coalesced
    std::map<size_t, size_t> used;   // offset -> size
    int open_count = 0;
    size_t in_use = 0;
};

Arena &arena()
{
    static Arena a;
    return a;
}

// Protection changes in units of this: the arena asks for transparent huge
// pages, so that opening and closing it before and after every kernel
// rewrites one page-table entry per 2 MiB instead of one per 4 KiB (with
// 4 KiB pages, mprotect took 85% of an emulated MobileNetV2 step).
constexpr size_t HUGE = (size_t)2 << 20;

// Reserve half the machine's memory as the device's: address space only,
// PROT_NONE and MAP_NORESERVE, so nothing is committed until used.
void reserve(Arena &a)
{
    if (a.base) return;
    size_t phys = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    a.reserved = phys / 2 / HUGE * HUGE;
    void *p = mmap(nullptr, a.reserved + HUGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) ddl_die("emulated GPU: cannot reserve %zu bytes of address space for device memory", a.reserved);
    uintptr_t aligned = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
    a.base = reinterpret_cast<char *>(aligned);
    (void)madvise(a.base, a.reserved, MADV_HUGEPAGE); // a hint: 4 KiB pages still work, only slower
}

size_t page_round(size_t n) { return (n + HUGE - 1) / HUGE * HUGE; }

void protect(Arena &a, int prot)
{
    if (a.top && mprotect(a.base, page_round(a.top), prot) != 0)
        ddl_die("emulated GPU: mprotect of device memory failed");
}

thread_local cudaError_t tl_last = cudaSuccess;

cudaError_t fail(cudaError_t e)
{
    tl_last = e;
    return e;
}

} // namespace

void set_last_error(cudaError_t e) { tl_last = e; }

void memory_open()
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    if (a.open_count++ == 0) protect(a, PROT_READ | PROT_WRITE);
}

void memory_close()
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    if (--a.open_count == 0) protect(a, PROT_NONE);
}

bool is_device_pointer(const void *p)
{
    Arena &a = arena();
    const char *c = static_cast<const char *>(p);
    return a.base && c >= a.base && c < a.base + a.reserved;
}

// ---- errors and the device ----

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    }
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument (emulated GPU: a copy's direction does not match its pointers?)";
    case cudaErrorMemoryAllocation: return "out of memory (emulated GPU: its memory is half the machine's)";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal (the emulated GPU is device 0 of 1)";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorNotReady: return "device not ready";
    }
    return "unknown error";
}

cudaError_t cudaGetLastError()
{
    cudaError_t e = tl_last;
    tl_last = cudaSuccess;
    return e;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *dev)
{
    *dev = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int dev) { return dev == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
    if (dev != 0) return fail(cudaErrorInvalidDevice);
    Arena &a = arena();
    {
        std::lock_guard<std::mutex> g(a.mu);
        reserve(a);
    }
    std::memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "ddlab emulated GPU (CUDA kernels on %d CPU threads)", ddl_kernel_threads());
    p->totalGlobalMem = a.reserved;
    p->major = 7; // what the emulation follows: 32-lane warps, 1024 threads per block
    p->minor = 5;
    p->multiProcessorCount = ddl_kernel_threads();
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    reserve(a);
    *total_bytes = a.reserved;
    *free_bytes = a.reserved - a.in_use;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaDeviceReset() { return cudaSuccess; }

// ---- device memory ----

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = nullptr;
    if (bytes == 0) return cudaSuccess;
    size_t need = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    reserve(a);
    size_t off = SIZE_MAX;
    for (auto it = a.free_.begin(); it != a.free_.end(); ++it) {
        if (it->second < need) continue;
        off = it->first;
        size_t rest = it->second - need;
        a.free_.erase(it);
        if (rest) a.free_[off + need] = rest;
        break;
    }
    if (off == SIZE_MAX) {
        if (need > a.reserved - a.top) return fail(cudaErrorMemoryAllocation);
        off = a.top;
        a.top += need;
        if (a.open_count && mprotect(a.base, page_round(a.top), PROT_READ | PROT_WRITE) != 0)
            ddl_die("emulated GPU: mprotect of device memory failed");
    }
    a.used[off] = need;
    a.in_use += need;
    *p = a.base + off;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    if (!p) return cudaSuccess;
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    if (!is_device_pointer(p)) return fail(cudaErrorInvalidDevicePointer);
    size_t off = (size_t)(static_cast<char *>(p) - a.base);
    auto u = a.used.find(off);
    if (u == a.used.end()) return fail(cudaErrorInvalidDevicePointer);
    size_t size = u->second;
    a.used.erase(u);
    a.in_use -= size;
    auto next = a.free_.find(off + size);
    if (next != a.free_.end()) {
        size += next->second;
        a.free_.erase(next);
    }
    auto prev = a.free_.lower_bound(off);
    if (prev != a.free_.begin() && (--prev)->first + prev->second == off) {
        prev->second += size;
    } else {
        a.free_[off] = size;
    }
    return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t) { return cudaMalloc(p, bytes); }
cudaError_t cudaFreeAsync(void *p, cudaStream_t) { return cudaFree(p); }

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    *p = nullptr;
    if (posix_memalign(p, 4096, bytes ? bytes : 1) != 0) return fail(cudaErrorMemoryAllocation);
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p)
{
    if (p && is_device_pointer(p)) return fail(cudaErrorInvalidValue);
    free(p);
    return cudaSuccess;
}

// A copy's direction must match where its pointers live; a mismatch is the
// bug this emulator exists to catch, so it is an error, not a guess.
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t)
{
    if (bytes == 0) return cudaSuccess;
    bool dd = is_device_pointer(dst), sd = is_device_pointer(src);
    bool ok = (kind == cudaMemcpyHostToDevice && dd && !sd) || (kind == cudaMemcpyDeviceToHost && !dd && sd) ||
              (kind == cudaMemcpyDeviceToDevice && dd && sd) || (kind == cudaMemcpyHostToHost && !dd && !sd) ||
              kind == cudaMemcpyDefault;
    if (!ok) return fail(cudaErrorInvalidValue);
    memory_open();
    std::memmove(dst, src, bytes);
    memory_close();
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *dst, int byte, size_t bytes, cudaStream_t)
{
    if (bytes == 0) return cudaSuccess;
    if (!is_device_pointer(dst)) return fail(cudaErrorInvalidDevicePointer);
    memory_open();
    std::memset(dst, byte, bytes);
    memory_close();
    return cudaSuccess;
}

// ---- streams and events: handles only (everything is already done) ----

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    *s = new EmuStream{ 0 };
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    delete s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned)
{
    *e = new EmuEvent{ 0 };
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }

// Device or not is all ddlab asks; pinned and plain host memory both say
// host here (CUDA says Unregistered for the latter; callers treat both alike).
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p)
{
    bool dev = is_device_pointer(p);
    *a = cudaPointerAttributes{ dev ? cudaMemoryTypeDevice : cudaMemoryTypeHost, 0, dev ? const_cast<void *>(p) : nullptr,
                                dev ? nullptr : const_cast<void *>(p) };
    return cudaSuccess;
}

} // namespace ddl_emu
