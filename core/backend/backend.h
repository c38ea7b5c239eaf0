/* backend.h - where a model's memory lives and which kernels run on it.
 *
 * A Backend is one table: memory operations and every kernel the model,
 * its layers, the trainer, the optimizer, evaluation and mixed precision
 * call. Two instances exist: ddl_backend_cpu (core/backend/cpu.c: host
 * memory, the reference kernels of core/cpu/ and CBLAS) and
 * ddl_backend_cuda (core/cuda/backend_cuda.cu: device memory, the CUDA
 * twins and cuBLAS). A Model holds its backend and allocates every arena
 * through it; nothing above this table knows which one it runs on, so a
 * new device is one more table, not a branch in every layer.
 *
 * Pointers handed to the kernels and to copy/zero are backend memory:
 * host memory for the CPU, device memory for CUDA, which host code must
 * never dereference. Scalars (sizes, flags, seeds) are host values. The
 * kernel entries are generated from the one list of kernels,
 * core/cpu/kernels.def (see there for what each one computes), as are the
 * CPU's and the CUDA twins' declarations and both tables, so a kernel is
 * added in one place; GEMM has core/cpu/gemm.h's signatures. The
 * convolutions' kernels are one sub-table per device (conv), which only
 * the convolution wing (core/conv) reads.
 *
 * Plain C: the CUDA table is defined in a .cu file that includes this. */
#ifndef DDL_BACKEND_H
#define DDL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../conv/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Big enough for an ncclUniqueId (128 bytes). */
#define DDL_COLL_ID_BYTES 128

typedef struct Backend {
    const char *name;     /* "cpu", "cuda": what DEVICE= says */
    const char *what;     /* for outputs: "CPU", "GPU", "emulated GPU" */
    /* Arenas are host memory: host code may read them in place and batches
     * are handed over without a copy. False: every host access goes
     * through to_host/to_device. */
    bool host_memory;
    /* Can it run here, now? A backend built in may lack its device (no GPU
     * answers): the registry (registry.c) lists only usable ones. Each
     * backend answers for itself, so the registry needs no device's
     * headers (the CUDA table asks core/cuda/probe.cu). */
    bool (*usable)(void);

    /* ---- memory ---- */
    void *(*alloc)(size_t bytes); /* zero-filled; alloc(0) may return NULL */
    void (*release)(void *p);     /* NULL is a no-op */
    /* Host <-> backend copies; they return when the copy is done. */
    void (*to_device)(void *dst, const void *src_host, size_t bytes);
    void (*to_host)(void *dst_host, const void *src, size_t bytes);
    /* Within backend memory, in order with the kernels. */
    void (*copy)(void *dst, const void *src, size_t bytes);
    void (*zero)(void *dst, size_t bytes);
    /* Host memory the device copies from at full speed (page-locked). */
    void *(*host_alloc)(size_t bytes);
    void (*host_free)(void *p);
    /* Wait for every queued kernel and copy. */
    void (*synchronize)(void);

    /* ---- overlapped staging (NULL where host_memory: nothing to stage) ----
     * A stream runs copies beside the kernels; an event marks a point in a
     * stream (stream NULL: the stream the kernels run on). */
    void *(*stream_new)(void);
    void (*stream_free)(void *stream);
    void *(*event_new)(void);
    void (*event_free)(void *event);
    void (*event_record)(void *event, void *stream);
    void (*stream_wait)(void *stream, void *event); /* the stream waits, the host does not */
    void (*event_wait_host)(void *event);
    void (*to_device_async)(void *dst, const void *src_pinned, size_t bytes, void *stream);
    bool (*event_done)(void *event); /* has the stream passed it? (never waits) */
    /* Is p this backend's memory (a device pointer)? The comm layer asks,
     * to stage device buffers for algorithms that reduce on the host. */
    bool (*owns)(const void *p);
    /* A CUDA-aware MPI could read this memory (a GPU's: true; the emulated
     * GPU's protected mapping: false). The comm layer then hands FP32
     * device buffers to MPI_Allreduce when ddl_mpi_cuda_aware() says yes. */
    bool mpi_reads_device;

    /* ---- collectives on backend memory: NCCL (NULL: the backend has none) ----
     * coll_id fills a unique id (at most DDL_COLL_ID_BYTES) on one rank,
     * which the caller broadcasts; every rank then calls coll_open with it
     * (collective). `bootstrap` points at the MPI_Comm of those ranks:
     * NCCL ignores it, the emulated GPU runs its NCCL over it. coll_allreduce
     * reduces buf in place (FP32 floats or FP16 halves; avg: the mean) on
     * `stream` (NULL: the stream the kernels run on), asynchronously. NULL
     * from coll_open: no NCCL, the reason in why. */
    int (*coll_id)(void *id);
    void *(*coll_open)(int nranks, const void *id, int rank, const void *bootstrap, char why[256]);
    void (*coll_allreduce)(void *coll, void *buf, size_t count, bool fp16, bool avg, void *stream);
    void (*coll_close)(void *coll);
    const char *(*coll_version)(void); /* "NCCL 2.28.9"; NULL: a build without NCCL */

    /* ---- GEMM (core/cpu/gemm.h) ---- */
    void (*gemm_f32)(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc);
    /* FP16 operands, FP32 accumulation and result (cublasGemmEx). NULL on
     * backends that emulate FP16 by rounding FP32 values instead. */
    void (*gemm_f16)(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const uint16_t *A, int lda,
                     const uint16_t *B, int ldb, float beta, float *C, int ldc);

    /* ---- convolution: the device's sub-table (core/conv/kernels.h) ---- */
    const ConvKernels *conv;
    /* ---- every other kernel: one entry per line of core/cpu/kernels.def,
     * in its order (bias, activations, pooling, batch norm, elementwise,
     * loss, optimizer, mixed precision) ---- */
#define KERNEL(name, ret, params) ret (*name) params;
#include "../cpu/kernels.def"
} Backend;

/* core/backend/cpu.c; core/cuda/backend_cuda.cu built by nvcc (only where
 * nvcc exists) and built again by the host C++ compiler as the emulated
 * GPU (core/cuda/emu: every build but SimGrid's). */
extern const Backend ddl_backend_cpu;
/* The same file built for AVX2 and for AVX-512 (x86-64 builds; the
 * Makefile's ISA_SRC, core/cpu/isa.h): the portable one above is the
 * reference they are tested against. */
extern const Backend ddl_backend_cpu_avx2, ddl_backend_cpu_avx512;
extern const Backend ddl_backend_cuda;
extern const Backend ddl_backend_cuda_emu;

#ifdef __cplusplus
}
#endif

#endif
