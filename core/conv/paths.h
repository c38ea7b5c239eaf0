/* paths.h - the rows of the convolution table (conv.c), private to
 * core/conv and the tests that derive their cases from the rows.
 *
 * A row: its name for outputs; its short name (key: its --conv value
 * where it forces any kind of layer, and how tests and rules name it);
 * the kinds of layer its --conv value forces it on (forces; 0: no --conv
 * value); how far its results may be from the reference's (rel_error);
 * which layers it can run (fits); its
 * kernel table for each device (kernels: the CPU's, beside its CPU
 * kernels, and its CUDA twin's, in its .cu file; NULL for a build without
 * that device), which the path reaches through conv_path_kernels; where
 * a device's table cannot run it, why (absent: NULL where it can; no
 * absent: every device with a table); the scratch floats it needs for
 * max_batch images (scratch); forward, which writes r->y (without the
 * bias unless adds_bias); backward, which adds the weight gradient (no
 * bias) to r->dw and, when r->dx is not NULL, writes (r->acc: adds) the
 * input gradient. conv.c hands each its kernel table on the run's device
 * (kt; NULL for a row without one), so the layer code calls nothing of
 * conv.c's. */
#ifndef DDL_CONV_PATHS_H
#define DDL_CONV_PATHS_H

#include "conv.h"

/* The kinds of layer (pick.c's kind_of): depthwise; 1x1 with stride 1 or
 * 2 (no padding, ungrouped); 3x3 with stride 1 or 2 (padding 1,
 * ungrouped); any other. CONV_KIND(3X3_S1): the bit of one in a row's
 * forces. */
typedef enum ConvLayerKind {
    CONV_KIND_DEPTHWISE, CONV_KIND_1X1_S1, CONV_KIND_1X1_S2, CONV_KIND_3X3_S1, CONV_KIND_3X3_S2, CONV_KIND_OTHER,
    CONV_KIND_COUNT
} ConvLayerKind;
#define CONV_KIND(k) (1u << CONV_KIND_##k)
#define CONV_KINDS_ALL ((1u << CONV_KIND_COUNT) - 1)

/* The error bound of a row without its own rel_error: summing the same
 * products as im2col's GEMM in another order, or Winograd F(2x2,3x3)'s
 * transforms (up to 9 values added before and after the products),
 * stays within a few ulps of the largest term; measured in
 * test_conv_paths.c (2026-11-29), at most 2.3e-6 (the direct kernels'
 * output), Winograd F(4x4)'s 1.1e-5, over its shapes. */
#define CONV_REL_ERROR 1e-5

typedef struct ConvPathRow {
    const char *name;
    const char *key;
    unsigned forces;
    bool adds_bias; /* forward adds the bias itself */
    bool fp32_only; /* FP32 kernels: with FP16 GEMM operands the layer runs the reference instead */
    /* How far its results may be from the reference's, relative to the
     * tensor's largest value (0: CONV_REL_ERROR, what every path but one
     * keeps). A property of the path's arithmetic, not of a test: the
     * tests compare it with this bound (test_conv_paths.c), and leave a
     * path whose bound is looser than CONV_REL_ERROR out of the checks
     * that cannot resolve that much rounding (finite differences on
     * vgg11, PyTorch's mobilenetv2 fixture). */
    double rel_error;
    bool (*fits)(const ConvShape *s);
    const void *kernels[CONV_DEVICES];
    const char *(*absent)(const void *kernels);
    size_t (*scratch)(const void *kt, const ConvShape *s, int max_batch);
    void (*forward)(const ConvRun *r, const void *kt);
    void (*backward)(const ConvRun *r, const void *kt);
} ConvPathRow;

/* A row's error bound: its rel_error, else CONV_REL_ERROR. */
static inline double conv_row_rel_error(const ConvPathRow *p)
{
    return p->rel_error > 0 ? p->rel_error : CONV_REL_ERROR;
}

/* The table, indexed by ConvPath: conv_path_count() rows, the reference
 * first. */
extern const ConvPathRow CONV_PATHS[];

/* A row's kernels: p_cpu, its AVX2 and AVX-512 builds p_cpu_avx2 and
 * p_cpu_avx512 where the build has variants (x86-64: core/cpu/isa.h),
 * and p_cuda and p_cuda_emu where the build has that device
 * (CONV_KERNEL_TABLES, kernels.h). */
#ifdef DDL_HAVE_CUDA
#define CONV_IF_CUDA(t) (t)
#else
#define CONV_IF_CUDA(t) NULL
#endif
#ifdef DDL_HAVE_CUDA_EMU
#define CONV_IF_CUDA_EMU(t) (t)
#else
#define CONV_IF_CUDA_EMU(t) NULL
#endif
#ifdef DDL_ISA_VARIANTS
#define CONV_IF_ISA(t) (t)
#else
#define CONV_IF_ISA(t) NULL
#endif
#define CONV_KERNELS_OF(p)                                                                                      \
    { [CONV_ON_CPU] = &p##_cpu, [CONV_ON_CPU_AVX2] = CONV_IF_ISA(&p##_cpu_avx2),                                \
      [CONV_ON_CPU_AVX512] = CONV_IF_ISA(&p##_cpu_avx512), [CONV_ON_CUDA] = CONV_IF_CUDA(&p##_cuda),            \
      [CONV_ON_CUDA_EMU] = CONV_IF_CUDA_EMU(&p##_cuda_emu) }

/* A path's layer code: p_fits, p_scratch, p_forward, p_backward. */
#define CONV_PATH_CODE(p)                                                                                       \
    bool p##_fits(const ConvShape *s);                                                                          \
    size_t p##_scratch(const void *kt, const ConvShape *s, int max_batch);                                      \
    void p##_forward(const ConvRun *r, const void *kt);                                                         \
    void p##_backward(const ConvRun *r, const void *kt)

/* The reference, im2col + GEMM (reference.c): every path's fallback. */
CONV_PATH_CODE(reference);

/* Why path p cannot run on the device whose kernels are k, or NULL. */
const char *conv_path_absent(const ConvPathRow *p, const ConvKernels *k);

/* Whether path p can run a layer of shape s on the device whose kernels
 * are k. */
bool conv_path_usable(const ConvPathRow *p, const ConvShape *s, const ConvKernels *k);

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
