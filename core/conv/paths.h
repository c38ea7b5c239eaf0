/* paths.h - the rows of the convolution table (conv.c), private to
 * core/conv.
 *
 * A row: its name for outputs; which layers it can run (fits); on which
 * devices (absent: why k cannot run it, NULL where it can; no absent:
 * every device); the scratch floats it needs for max_batch images on k
 * (scratch); forward, which
 * writes r->y (without the bias unless adds_bias); backward, which adds
 * the weight gradient (no bias) to r->dw and, when r->dx is not NULL,
 * writes (r->acc: adds) the input gradient; and where its kernels are:
 * the CPU's (this folder) and their CUDA twins (core/cuda). */
#ifndef DDL_CONV_PATHS_H
#define DDL_CONV_PATHS_H

#include "conv.h"

typedef struct ConvPathRow {
    const char *name;
    bool adds_bias; /* forward adds the bias itself */
    bool fp32_only; /* FP32 kernels: with FP16 GEMM operands the layer runs the reference instead */
    bool (*fits)(const ConvShape *s);
    const char *(*absent)(const ConvKernels *k);
    size_t (*scratch)(const ConvKernels *k, const ConvShape *s, int max_batch);
    void (*forward)(const ConvRun *r);
    void (*backward)(const ConvRun *r);
    const char *cpu_kernels, *cuda_twin; /* files, for readers (README.md's table) */
} ConvPathRow;

/* The table, indexed by ConvPath. */
extern const ConvPathRow CONV_PATHS[CONV_PATH_COUNT];

/* reference.c: im2col + GEMM, every shape. */
size_t reference_scratch(const ConvKernels *k, const ConvShape *s, int max_batch);
void reference_forward(const ConvRun *r);
void reference_backward(const ConvRun *r);

/* path_winograd.c: Winograd F(2x2,3x3), and F(4x4,3x3) for the forward
 * pass and the input gradient (F(2x2)'s weight gradient). */
bool winograd_fits(const ConvShape *s);
size_t winograd_scratch(const ConvKernels *k, const ConvShape *s, int max_batch);
void winograd_forward(const ConvRun *r);
void winograd_backward(const ConvRun *r);
size_t winograd4_scratch(const ConvKernels *k, const ConvShape *s, int max_batch);
void winograd4_forward(const ConvRun *r);
void winograd4_backward(const ConvRun *r);

/* path_direct.c: direct 3x3 kernels, stride 1 or 2. */
bool direct_fits(const ConvShape *s);
size_t direct_scratch(const ConvKernels *k, const ConvShape *s, int max_batch);
void direct_forward(const ConvRun *r);
void direct_backward(const ConvRun *r);

/* path_winofused.c: Winograd F(2x2,3x3) with the transforms in registers
 * (forward, input gradient; the direct weight gradient). */
bool winofused_fits(const ConvShape *s);
size_t winofused_scratch(const ConvKernels *k, const ConvShape *s, int max_batch);
void winofused_forward(const ConvRun *r);
void winofused_backward(const ConvRun *r);

/* path_pointwise.c: 1x1 kernels on NCHW, stride 1 or 2. */
bool pointwise_fits(const ConvShape *s);
size_t pointwise_scratch(const ConvKernels *k, const ConvShape *s, int max_batch);
void pointwise_forward(const ConvRun *r);
void pointwise_backward(const ConvRun *r);

/* path_depthwise.c: one filter per channel, no scratch. */
bool depthwise_fits(const ConvShape *s);
size_t depthwise_scratch(const ConvKernels *k, const ConvShape *s, int max_batch);
void depthwise_forward(const ConvRun *r);
void depthwise_backward(const ConvRun *r);

/* path_cudnn.c: cuDNN's own algorithms (core/cuda/conv_cudnn.cu), where
 * the device has cuDNN. */
bool cudnn_fits(const ConvShape *s);
const char *cudnn_absent(const ConvKernels *k);
size_t cudnn_scratch(const ConvKernels *k, const ConvShape *s, int max_batch);
void cudnn_forward(const ConvRun *r);
void cudnn_backward(const ConvRun *r);

/* Whether path p can run a layer of shape s on the device whose kernels
 * are k. */
static inline bool conv_path_usable(const ConvPathRow *p, const ConvShape *s, const ConvKernels *k)
{
    return p->fits(s) && (!p->absent || !p->absent(k));
}

/* Images per chunk of a path that keeps per-image buffers of
 * per_image floats in the scratch (the direct and fused Winograd paths):
 * as many as fit CONV_CHUNK_CAP floats (64 MiB), 1 to batch. Measured
 * (bin/bench/conv_algo, batch 64, 2 threads, twice), chunks of 1 MiB (the
 * L2 of a core) took 5-10% longer than the whole batch on 16 channels at
 * 32x32 and 14% on 64 (more, shorter parallel regions; the kernels keep
 * their working sets in cache on their own). */
#define CONV_CHUNK_CAP ((size_t)16 << 20)
static inline int conv_chunk_images(size_t per_image, int batch)
{
    int nb = (int)(CONV_CHUNK_CAP / per_image);
    return nb < 1 ? 1 : nb < batch ? nb : batch;
}

/* The GEMM of a run. */
static inline void conv_gemm(const ConvRun *r, bool ta, bool tb, int M, int N, int K, float alpha, const float *A,
                             int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    r->gemm(r->gemm_ctx, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

#endif
