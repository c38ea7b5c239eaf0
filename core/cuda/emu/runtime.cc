// runtime.cc - the emulated GPU's runtime API: errors, the device's
// description, device and pinned memory, copies, memsets, streams and
// events (see emu.h). Device memory itself is arena.cc's, the queues
// streams.cc's; this file checks each call's arguments as CUDA does and
// hands the work to a stream. In strict mode it also checks what CUDA
// leaves undefined: copies and memsets past an allocation, overlapping
// device-to-device copies, copies to the host of bytes nothing wrote.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "memory.h"
#include "streams.h"
#include "strict.h"
#include "switches.h"
#include "cuda/cuda_check.h"

extern "C" {
#include "util/common.h"
#include "cpu/parallel.h"
}

namespace ddl_emu {

namespace {

thread_local cudaError_t tl_last = cudaSuccess;

// How many GPUs the emulated machine has: DDL_EMU_DEVICES (handed down by
// core/driver/environment.c, switches.h), 1 by default. They are one and
// the same emulated GPU, one arena: what is emulated is which index each
// host thread has made current (per thread, as in CUDA), so that the
// choice of a GPU per rank (core/platform/device.c: its local rank modulo
// the count) can be run and checked on a machine without GPUs.
const char *g_devices_text = nullptr;

int devices()
{
    static const int n = [] {
        const char *v = g_devices_text;
        if (!v) return 1;
        char *end = nullptr;
        long k = strtol(v, &end, 10);
        if (end == v || *end || k < 1 || k > DDL_MAX_DEVICES)
            ddl_die("DDL_EMU_DEVICES=%s: the emulated machine's GPUs, 1 .. %d", v, DDL_MAX_DEVICES);
        return static_cast<int>(k);
    }();
    return n;
}

thread_local int tl_device = 0;

cudaError_t fail(cudaError_t e)
{
    tl_last = e;
    return e;
}

// Page-locked host memory (cudaMallocHost): copies from and to it stay
// asynchronous; pageable memory is copied when the call is made (to the
// device) or waited for (to the host), as CUDA does.
struct Pinned {
    std::mutex mu;
    std::map<const char *, size_t> blocks;
};

Pinned &pinned()
{
    static Pinned *p = new Pinned;
    return *p;
}

bool is_pinned(const void *p, size_t bytes)
{
    Pinned &pn = pinned();
    std::lock_guard<std::mutex> g(pn.mu);
    const char *c = static_cast<const char *>(p);
    auto it = pn.blocks.upper_bound(c);
    if (it == pn.blocks.begin()) return false;
    --it;
    return c + bytes <= it->first + it->second;
}

} // namespace

void set_last_error(cudaError_t e) { tl_last = e; }

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
    *count = devices();
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *dev)
{
    *dev = tl_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int dev)
{
    if (dev < 0 || dev >= devices()) return fail(cudaErrorInvalidDevice);
    tl_device = dev;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
    if (dev < 0 || dev >= devices()) return fail(cudaErrorInvalidDevice);
    std::memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "ddlab emulated GPU (CUDA kernels on %d CPU threads)", ddl_kernel_threads());
    p->totalGlobalMem = arena_reserved();
    p->major = 7; // what the emulation follows: 32-lane warps, 1024 threads per block
    p->minor = 5;
    p->multiProcessorCount = ddl_kernel_threads();
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *total_bytes = arena_reserved();
    *free_bytes = *total_bytes - arena_in_use();
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize()
{
    device_sync();
    return cudaSuccess;
}

cudaError_t cudaDeviceReset()
{
    device_sync();
    return cudaSuccess;
}

// ---- device memory ----

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    return arena_alloc(p, bytes) ? fail(cudaErrorMemoryAllocation) : cudaSuccess;
}

// cudaFree waits for the device first, as CUDA's does.
cudaError_t cudaFree(void *p)
{
    if (!p) return cudaSuccess;
    device_sync();
    if (arena_free(p)) return fail(cudaErrorInvalidDevicePointer);
    forget_allocation(p);
    return cudaSuccess;
}

cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t) { return cudaMalloc(p, bytes); }

// Freed in stream order: after the work queued before it on s.
cudaError_t cudaFreeAsync(void *p, cudaStream_t s)
{
    const char *user = nullptr;
    size_t bytes = 0;
    if (!p) return cudaSuccess;
    if (!find_allocation(p, &user, &bytes) || user != p) return fail(cudaErrorInvalidDevicePointer);
    Access a{ p, SIZE_MAX, true };
    submit(s, "cudaFreeAsync", [p] {
        arena_free(p);
        forget_allocation(p);
    }, &a, 1, false);
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    *p = nullptr;
    if (posix_memalign(p, 4096, bytes ? bytes : 1) != 0) return fail(cudaErrorMemoryAllocation);
    Pinned &pn = pinned();
    std::lock_guard<std::mutex> g(pn.mu);
    pn.blocks[static_cast<const char *>(*p)] = bytes ? bytes : 1;
    return cudaSuccess;
}

// Waits for the device first (queued copies may still read or write it).
cudaError_t cudaFreeHost(void *p)
{
    if (!p) return cudaSuccess;
    if (is_device_pointer(p)) return fail(cudaErrorInvalidValue);
    device_sync();
    {
        Pinned &pn = pinned();
        std::lock_guard<std::mutex> g(pn.mu);
        pn.blocks.erase(static_cast<const char *>(p));
    }
    free(p);
    return cudaSuccess;
}

namespace {

const char *const KIND_NAMES[] = { "cudaMemcpyAsync HtoH", "cudaMemcpyAsync HtoD", "cudaMemcpyAsync DtoH",
                                   "cudaMemcpyAsync DtoD", "cudaMemcpyAsync (default)" };

// The copy on its stream, with strict mode's checks.
void queue_copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s)
{
    const char *what = KIND_NAMES[kind];
    if (kind == cudaMemcpyHostToDevice) {
        check_range(what, dst, bytes);
        Access a{ dst, bytes, true };
        auto run = [dst, bytes](const void *from) {
            memory_open();
            std::memcpy(dst, from, bytes);
            memory_close();
            mark_written(dst, bytes);
        };
        if (!strict() || is_pinned(src, bytes)) {
            submit(s, what, [run, src] { run(src); }, &a, 1, false);
        } else { // pageable: the host may reuse it as soon as the call returns
            auto copy = std::make_shared<std::vector<char>>(static_cast<const char *>(src),
                                                            static_cast<const char *>(src) + bytes);
            submit(s, what, [run, copy] { run(copy->data()); }, &a, 1, false);
        }
    } else if (kind == cudaMemcpyDeviceToHost) {
        check_range(what, src, bytes);
        Access a{ src, bytes, false };
        submit(s, what, [dst, src, bytes, what] {
            check_written(what, src, bytes);
            memory_open();
            std::memcpy(dst, src, bytes);
            memory_close();
        }, &a, 1, !is_pinned(dst, bytes));
    } else {
        check_range(what, src, bytes);
        check_range(what, dst, bytes);
        const char *d = static_cast<const char *>(dst), *c = static_cast<const char *>(src);
        if (strict() && d < c + bytes && c < d + bytes)
            report("copy-overlap", "%s of %zu bytes: source and destination overlap by %zu bytes (undefined in CUDA)",
                   what, bytes, (size_t)(d < c ? d + bytes - c : c + bytes - d));
        Access a[2] = { { src, bytes, false }, { dst, bytes, true } };
        submit(s, what, [dst, src, bytes] {
            memory_open();
            std::memmove(dst, src, bytes);
            memory_close();
            copy_written(dst, src, bytes);
        }, a, 2, false);
    }
}

} // namespace

// A copy's direction must match where its pointers live; a mismatch is the
// bug this emulator exists to catch, so it is an error, not a guess.
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s)
{
    if (bytes == 0) return cudaSuccess;
    bool dd = is_device_pointer(dst), sd = is_device_pointer(src);
    bool ok = (kind == cudaMemcpyHostToDevice && dd && !sd) || (kind == cudaMemcpyDeviceToHost && !dd && sd) ||
              (kind == cudaMemcpyDeviceToDevice && dd && sd) || (kind == cudaMemcpyHostToHost && !dd && !sd) ||
              kind == cudaMemcpyDefault;
    if (!ok) return fail(cudaErrorInvalidValue);
    if (kind == cudaMemcpyDefault)
        kind = dd ? (sd ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                  : (sd ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    if (kind == cudaMemcpyHostToHost) {
        std::memmove(dst, src, bytes);
        return cudaSuccess;
    }
    queue_copy(dst, src, bytes, kind, s);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *dst, int byte, size_t bytes, cudaStream_t s)
{
    if (bytes == 0) return cudaSuccess;
    if (!is_device_pointer(dst)) return fail(cudaErrorInvalidDevicePointer);
    check_range("cudaMemsetAsync", dst, bytes);
    Access a{ dst, bytes, true };
    submit(s, "cudaMemsetAsync", [dst, byte, bytes] {
        memory_open();
        std::memset(dst, byte, bytes);
        memory_close();
        mark_written(dst, bytes);
    }, &a, 1, false);
    return cudaSuccess;
}

// ---- streams and events (streams.cc) ----

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    *s = stream_create();
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (s) stream_destroy(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    stream_sync(s);
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned)
{
    stream_wait_event(s, e);
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned)
{
    *e = event_create();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    event_destroy(e);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    event_record(e, s);
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    event_sync(e);
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t e) { return event_query(e) ? cudaSuccess : fail(cudaErrorNotReady); }

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

extern "C" void ddl_emu_devices_set(const char *count) { ddl_emu::g_devices_text = count; }
