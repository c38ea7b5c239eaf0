/* device_mem.h - GPU memory, streams and the CUDA-aware MPI query, callable
 * from C (no CUDA headers needed: streams travel as void *).
 *
 * Errors (out of memory, no device, a failed copy) abort through ddl_die
 * with file:line, the CUDA call and CUDA's message, as the CPU side does for
 * allocation failures. Only in CUDA builds (DDL_HAVE_CUDA), except
 * ddl_mpi_cuda_aware, which exists in every build. */
#ifndef DDL_CUDA_DEVICE_MEM_H
#define DDL_CUDA_DEVICE_MEM_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Make GPU `index % count` current for this thread (one MPI rank per GPU:
 * pass the node-local rank). Dies when no GPU is usable. */
void ddl_cuda_set_device(int index);
/* The GPU current for this thread (cudaGetDevice): the one a rank took,
 * as its outputs record it (core/driver/report.c). */
int ddl_cuda_current_device(void);

/* Device memory; ddl_cuda_malloc(0) returns NULL, ddl_cuda_free(NULL) is a
 * no-op. The allocation is 256-byte aligned (cudaMalloc). */
void *ddl_cuda_malloc(size_t bytes);
void ddl_cuda_free(void *p);

/* Copies on this thread's stream. h2d and d2h return when the copy is done
 * (the host buffer may be reused or read at once, and every kernel queued
 * before on the stream has finished); d2d and memset are only queued, in
 * stream order with the kernels. */
void ddl_cuda_memcpy_h2d(void *dst_dev, const void *src_host, size_t bytes);
void ddl_cuda_memcpy_d2h(void *dst_host, const void *src_dev, size_t bytes);
void ddl_cuda_memcpy_d2d(void *dst_dev, const void *src_dev, size_t bytes);
void ddl_cuda_memset(void *dst_dev, int byte, size_t bytes);

/* Page-locked host memory: staging buffers for MPI when the MPI library is
 * not CUDA-aware (copies from/to it run at full PCIe speed). */
void *ddl_cuda_host_alloc(size_t bytes);
void ddl_cuda_host_free(void *p);

/* Wait for everything on the device / on this thread's stream. */
void ddl_cuda_synchronize(void);
void ddl_cuda_stream_synchronize(void);

/* This thread's stream (a cudaStream_t). Default: cudaStreamPerThread, so
 * threads never serialise on one stream and no global state is shared.
 * ddl_cuda_set_stream(NULL) restores the default. Every _cuda kernel,
 * cuBLAS call and copy above uses it. */
void *ddl_cuda_stream(void);
void ddl_cuda_set_stream(void *stream);

/* Streams and events for copies that overlap kernels (batch staging). A
 * new stream does not synchronise with others (cudaStreamNonBlocking); a
 * NULL stream argument means this thread's stream. ddl_cuda_memcpy_h2d_async
 * returns at once; src should be page-locked (ddl_cuda_host_alloc). */
void *ddl_cuda_stream_create(void);
void ddl_cuda_stream_destroy(void *stream);
void *ddl_cuda_event_create(void);
void ddl_cuda_event_destroy(void *event);
void ddl_cuda_event_record(void *event, void *stream);
void ddl_cuda_stream_wait_event(void *stream, void *event);
void ddl_cuda_event_synchronize(void *event);
void ddl_cuda_memcpy_h2d_async(void *dst_dev, const void *src_host, size_t bytes, void *stream);
/* Has the stream reached the event (cudaEventQuery)? Never waits. */
bool ddl_cuda_event_done(void *event);
/* Is p device memory (cudaPointerGetAttributes)? Host memory, pinned or
 * not, says false. */
bool ddl_cuda_is_device_pointer(const void *p);

/* 1 when MPI can be handed device pointers (Open MPI built with CUDA and
 * enabled at run time: MPIX_Query_cuda_support); 0 otherwise, with the
 * reason in why. Call after MPI_Init. Defined in core/platform/cuda_aware.c. */
int ddl_mpi_cuda_aware(char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
