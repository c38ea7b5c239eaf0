/* depthwise_kernels.h - what the depthwise path shares between its CPU
 * file (path_depthwise.c) and its CUDA twin (depthwise.cu):
 * the kernels and their kernel table. */
#ifndef DDL_CONV_DEPTHWISE_KERNELS_H
#define DDL_CONV_DEPTHWISE_KERNELS_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's kernels. Tensors are NCHW float32; kernels that produce an
 * input gradient take acc: false overwrites, true adds. */

/* Depthwise convolution, direct (no lowering): C channels in and out, one
 * k x k filter per channel (w[C][k][k], PyTorch's [C][1][k][k]), optional
 * bias[C] (NULL: none). Backward accumulates dw (no bias: bias_grad_cpu)
 * and, when dx is not NULL, writes (acc: adds) the input gradient. */
void depthwise_forward_cpu(const float *x, const float *w, const float *bias, float *y, int n, int C, int H, int W,
                           int k, int stride, int pad, int OH, int OW);
void depthwise_backward_cpu(const float *x, const float *dy, const float *w, float *dw, float *dx, int n, int C,
                            int H, int W, int k, int stride, int pad, int OH, int OW, bool acc);

/* Their CUDA twins: the same arguments, device pointers (the emulated
 * GPU's build names them _emu, as core/cuda/emu/names.h does the rest). */
#ifdef DDL_CUDA_EMU
#define depthwise_backward_cuda depthwise_backward_cuda_emu
#define depthwise_forward_cuda depthwise_forward_cuda_emu
#endif
/* depthwise.cu: direct depthwise convolution (MobileNetV2). */
void depthwise_forward_cuda(const float *x, const float *w, const float *bias, float *y, int n, int C, int H, int W,
                            int k, int stride, int pad, int OH, int OW);
void depthwise_backward_cuda(const float *x, const float *dy, const float *w, float *dw, float *dx, int n, int C,
                             int H, int W, int k, int stride, int pad, int OH, int OW, bool acc);

typedef struct DepthwiseKernels {
    void (*forward)(const float *x, const float *w, const float *bias, float *y, int n, int C, int H, int W, int k,
                    int stride, int pad, int OH, int OW);
    void (*backward)(const float *x, const float *dy, const float *w, float *dw, float *dx, int n, int C, int H,
                     int W, int k, int stride, int pad, int OH, int OW, bool acc);
} DepthwiseKernels;

CONV_KERNEL_TABLES(DepthwiseKernels, depthwise_kernels);

#ifdef __cplusplus
}
#endif

#endif
