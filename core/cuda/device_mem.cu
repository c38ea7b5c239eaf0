// device_mem.cu - device memory, copies, pinned host memory, streams.
#include "cuda_check.h"

// The stream is per thread and starts as cudaStreamPerThread: no mutable
// state is shared between threads, and a thread that never calls
// ddl_cuda_set_stream needs no set-up at all.
static thread_local cudaStream_t tl_stream = cudaStreamPerThread;

extern "C" void *ddl_cuda_stream(void) { return static_cast<void *>(tl_stream); }

extern "C" void ddl_cuda_set_stream(void *stream)
{
    tl_stream = stream ? static_cast<cudaStream_t>(stream) : cudaStreamPerThread;
}

extern "C" void ddl_cuda_set_device(int index)
{
    int count = 0;
    DDL_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (count <= 0) ddl_die("ddl_cuda_set_device: no CUDA device visible");
    if (index < 0) index = -index;
    DDL_CUDA_CHECK(cudaSetDevice(index % count));
}

extern "C" int ddl_cuda_current_device(void)
{
    int dev = 0;
    DDL_CUDA_CHECK(cudaGetDevice(&dev));
    return dev;
}

extern "C" void *ddl_cuda_malloc(size_t bytes)
{
    if (bytes == 0) return nullptr;
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        // Out of memory is the likely user-facing case (batch too large):
        // say how much was asked for and how much is free.
        size_t free_b = 0, total_b = 0;
        (void)cudaGetLastError();
        if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) free_b = total_b = 0;
        ddl_die("%s:%d: cudaMalloc(%zu bytes) failed: %s (%s); device has %.2f of %.2f GiB free", __FILE__,
                __LINE__, bytes, cudaGetErrorString(e), cudaGetErrorName(e), free_b / 1073741824.0,
                total_b / 1073741824.0);
    }
    return p;
}

extern "C" void ddl_cuda_free(void *p)
{
    if (p) DDL_CUDA_CHECK(cudaFree(p));
}

extern "C" void ddl_cuda_memcpy_h2d(void *dst_dev, const void *src_host, size_t bytes)
{
    if (bytes == 0) return;
    DDL_CUDA_CHECK(cudaMemcpyAsync(dst_dev, src_host, bytes, cudaMemcpyHostToDevice, ddl_stream()));
    DDL_CUDA_CHECK(cudaStreamSynchronize(ddl_stream()));
}

extern "C" void ddl_cuda_memcpy_d2h(void *dst_host, const void *src_dev, size_t bytes)
{
    if (bytes == 0) return;
    DDL_CUDA_CHECK(cudaMemcpyAsync(dst_host, src_dev, bytes, cudaMemcpyDeviceToHost, ddl_stream()));
    DDL_CUDA_CHECK(cudaStreamSynchronize(ddl_stream()));
}

extern "C" void ddl_cuda_memcpy_d2d(void *dst_dev, const void *src_dev, size_t bytes)
{
    if (bytes == 0) return;
    DDL_CUDA_CHECK(cudaMemcpyAsync(dst_dev, src_dev, bytes, cudaMemcpyDeviceToDevice, ddl_stream()));
}

extern "C" void ddl_cuda_memset(void *dst_dev, int byte, size_t bytes)
{
    if (bytes == 0) return;
    DDL_CUDA_CHECK(cudaMemsetAsync(dst_dev, byte, bytes, ddl_stream()));
}

extern "C" void *ddl_cuda_host_alloc(size_t bytes)
{
    if (bytes == 0) return nullptr;
    void *p = nullptr;
    DDL_CUDA_CHECK(cudaMallocHost(&p, bytes));
    return p;
}

extern "C" void ddl_cuda_host_free(void *p)
{
    if (p) DDL_CUDA_CHECK(cudaFreeHost(p));
}

extern "C" void ddl_cuda_synchronize(void) { DDL_CUDA_CHECK(cudaDeviceSynchronize()); }

extern "C" void ddl_cuda_stream_synchronize(void) { DDL_CUDA_CHECK(cudaStreamSynchronize(ddl_stream())); }

static cudaStream_t stream_or_mine(void *stream)
{
    return stream ? static_cast<cudaStream_t>(stream) : ddl_stream();
}

extern "C" void *ddl_cuda_stream_create(void)
{
    cudaStream_t s = nullptr;
    DDL_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return static_cast<void *>(s);
}

extern "C" void ddl_cuda_stream_destroy(void *stream)
{
    if (stream) DDL_CUDA_CHECK(cudaStreamDestroy(static_cast<cudaStream_t>(stream)));
}

// Events only order work (no timing), which makes them cheaper to record.
extern "C" void *ddl_cuda_event_create(void)
{
    cudaEvent_t e = nullptr;
    DDL_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return static_cast<void *>(e);
}

extern "C" void ddl_cuda_event_destroy(void *event)
{
    if (event) DDL_CUDA_CHECK(cudaEventDestroy(static_cast<cudaEvent_t>(event)));
}

extern "C" void ddl_cuda_event_record(void *event, void *stream)
{
    DDL_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event), stream_or_mine(stream)));
}

extern "C" void ddl_cuda_stream_wait_event(void *stream, void *event)
{
    DDL_CUDA_CHECK(cudaStreamWaitEvent(stream_or_mine(stream), static_cast<cudaEvent_t>(event), 0));
}

extern "C" void ddl_cuda_event_synchronize(void *event)
{
    DDL_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
}

extern "C" void ddl_cuda_memcpy_h2d_async(void *dst_dev, const void *src_host, size_t bytes, void *stream)
{
    if (bytes == 0) return;
    DDL_CUDA_CHECK(cudaMemcpyAsync(dst_dev, src_host, bytes, cudaMemcpyHostToDevice, stream_or_mine(stream)));
}

extern "C" bool ddl_cuda_event_done(void *event)
{
    cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError(); // not an error: clear it
        return false;
    }
    DDL_CUDA_CHECK(e);
    return true;
}

extern "C" bool ddl_cuda_is_device_pointer(const void *p)
{
    if (!p) return false;
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); // older runtimes: plain host memory is an error
        return false;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}
