/* pointwise_kernels.h - what the pointwise 1x1 path shares between its
 * CPU file (path_pointwise.c) and its CUDA twin
 * (conv_pointwise.cu): the packed filters' layout (below), the kernels
 * and their kernel table. */
#ifndef DDL_CONV_POINTWISE_KERNELS_H
#define DDL_CONV_POINTWISE_KERNELS_H

#include <stddef.h>
#include "kernels.h"

/* The packed filters of the pointwise (1x1, stride 1) convolution kernels
 * (path_pointwise.c, its CUDA twin conv_pointwise.cu, and the layer code
 * that sizes its scratch), in one place so they agree.
 *
 * Packed filters ("wp"): the weights from I inputs to O outputs as
 * [ceil(O/8)][I][8]: for each block of 8 outputs, per input, the 8 weights
 * side by side (zeros past O), the order the kernel broadcasts them in.
 * The forward pass packs w[K][C] with O = K, I = C; the input gradient
 * packs its transpose, O = C, I = K. */
enum { POINTWISE_OB = 8 };

/* Floats of the packed filters with O outputs and I inputs. */
static inline size_t pointwise_filter_floats(int O, int I)
{
    return (size_t)((O + POINTWISE_OB - 1) / POINTWISE_OB) * POINTWISE_OB * (size_t)I;
}

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's kernels. Tensors are NCHW float32; kernels that produce an
 * input gradient take acc: false overwrites, true adds. */

/* Pointwise (1x1, stride 1) convolution, direct on NCHW (path_pointwise.c
 * says why and how; packed filters above):
 * filter:      wp = w[K][C] packed in blocks of 8 outputs (O = K from I = C
 *              inputs); with transpose, w^T instead (O = C from I = K: the
 *              input gradient is this convolution of dy);
 * conv:        y[n][O][P] (+)= wp applied to x[n][I][P];
 * filter_grad: dw[K][C] += sum over the n images and P positions of
 *              dy[k] * x[c]. */
void pointwise_filter_cpu(const float *w, int K, int C, bool transpose, float *wp);
void pointwise_conv_cpu(const float *x, const float *wp, int n, int I, int O, int P, float *y, bool acc);
void pointwise_filter_grad_cpu(const float *x, const float *dy, int n, int C, int K, int P, float *dw);
/* Stride 2: xs[nb][C][Ho][Wo] = x's even rows and columns (Ho = ceil(H/2),
 * Wo = ceil(W/2)); dx[nb][C][H][W] (+)= dxs there, 0 elsewhere. */
void pointwise_subsample_cpu(const float *x, int nb, int C, int H, int W, float *xs);
void pointwise_upsample_cpu(const float *dxs, int nb, int C, int H, int W, float *dx, bool acc);

/* Their CUDA twins: the same arguments, device pointers (the emulated
 * GPU's build names them _emu, as core/cuda/emu/names.h does the rest). */
#ifdef DDL_CUDA_EMU
#define pointwise_conv_cuda pointwise_conv_cuda_emu
#define pointwise_filter_cuda pointwise_filter_cuda_emu
#define pointwise_filter_grad_cuda pointwise_filter_grad_cuda_emu
#define pointwise_subsample_cuda pointwise_subsample_cuda_emu
#define pointwise_upsample_cuda pointwise_upsample_cuda_emu
#endif
/* conv_pointwise.cu: pointwise (1x1, stride 1) convolution on NCHW
 * (layout above). */
void pointwise_filter_cuda(const float *w, int K, int C, bool transpose, float *wp);
void pointwise_conv_cuda(const float *x, const float *wp, int n, int I, int O, int P, float *y, bool acc);
void pointwise_filter_grad_cuda(const float *x, const float *dy, int n, int C, int K, int P, float *dw);
void pointwise_subsample_cuda(const float *x, int nb, int C, int H, int W, float *xs);
void pointwise_upsample_cuda(const float *dxs, int nb, int C, int H, int W, float *dx, bool acc);

typedef struct PointwiseKernels {
    void (*filter)(const float *w, int K, int C, bool transpose, float *wp);
    void (*conv)(const float *x, const float *wp, int n, int I, int O, int P, float *y, bool acc);
    void (*filter_grad)(const float *x, const float *dy, int n, int C, int K, int P, float *dw);
    void (*subsample)(const float *x, int nb, int C, int H, int W, float *xs);
    void (*upsample)(const float *dxs, int nb, int C, int H, int W, float *dx, bool acc);
} PointwiseKernels;

CONV_KERNEL_TABLES(PointwiseKernels, pointwise_kernels);

#ifdef __cplusplus
}
#endif

#endif
