/* direct_kernels.h - the kernel table of the direct 3x3 path
 * (path_direct.c; the CPU's in conv_direct.c, the CUDA twin's in
 * conv_direct.cu). Buffer layouts and modes: conv_direct_layout.h,
 * kernels_cpu.h. */
#ifndef DDL_CONV_DIRECT_KERNELS_H
#define DDL_CONV_DIRECT_KERNELS_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's kernels. Tensors are NCHW float32; kernels that produce an
 * input gradient take acc: false overwrites, true adds. */

/* Direct 3x3 convolution, padding 1, stride 1 or 2 (conv_direct.c says
 * why and how; buffer layouts, phases and tap tables (modes) in
 * conv_direct_layout.h):
 * pad:         xq = x[nb][C][H][W] on zero-bordered planes [C][nb][H+2][W+2]
 *              (+ DIRECT_SLACK zeros); with stride 2, its 4 phases on planes
 *              of the output's size, [C][4][nb][Ho+2][Wo+2];
 * filter:      wp = w[K][C][3][3] packed in blocks of 8 output channels for
 *              mode's taps; the DX modes pack the input gradient's filters
 *              (C outputs from K inputs);
 * conv:        y[nb][K][H][W] (+)= the convolution of xq (C channels) by wp
 *              with mode's taps; H x W is the output's plane (a stride-2
 *              input was padded with its own size);
 * filter_grad: dw[K][C][3][3] += sum over the nb images of dy (x) x, from
 *              the padded xq (C channels, padded with this stride) and dyq
 *              (K channels of the H x W output, padded with stride 1);
 * unphase:     dx[nb][C][H][W] (+)= the 4 phases' gradients of a stride-2
 *              input, dp[4][nb][C][Ho][Wo] (DIRECT_DX_S2 + p). */
void direct_pad_cpu(const float *x, int nb, int C, int H, int W, int stride, float *xq);
void direct_filter_cpu(const float *w, int K, int C, int mode, float *wp);
void direct_conv_cpu(const float *xq, const float *wp, int nb, int C, int K, int H, int W, int mode, float *y,
                     bool acc);
void direct_filter_grad_cpu(const float *xq, const float *dyq, int nb, int C, int K, int H, int W, int stride,
                            float *dw);
void direct_unphase_cpu(const float *dp, int nb, int C, int H, int W, float *dx, bool acc);

/* Their CUDA twins: the same arguments, device pointers (the emulated
 * GPU's build names them _emu, as core/cuda/emu/names.h does the rest). */
#ifdef DDL_CUDA_EMU
#define direct_conv_cuda direct_conv_cuda_emu
#define direct_filter_cuda direct_filter_cuda_emu
#define direct_filter_grad_cuda direct_filter_grad_cuda_emu
#define direct_pad_cuda direct_pad_cuda_emu
#define direct_unphase_cuda direct_unphase_cuda_emu
#endif
/* conv_direct.cu: direct 3x3 convolution (layouts in conv_direct_layout.h). */
void direct_pad_cuda(const float *x, int nb, int C, int H, int W, int stride, float *xq);
void direct_filter_cuda(const float *w, int K, int C, int mode, float *wp);
void direct_conv_cuda(const float *xq, const float *wp, int nb, int C, int K, int H, int W, int mode, float *y,
                      bool acc);
void direct_filter_grad_cuda(const float *xq, const float *dyq, int nb, int C, int K, int H, int W, int stride,
                             float *dw);
void direct_unphase_cuda(const float *dp, int nb, int C, int H, int W, float *dx, bool acc);

typedef struct DirectKernels {
    void (*pad)(const float *x, int nb, int C, int H, int W, int stride, float *xq);
    void (*filter)(const float *w, int K, int C, int mode, float *wp);
    void (*conv)(const float *xq, const float *wp, int nb, int C, int K, int H, int W, int mode, float *y, bool acc);
    void (*filter_grad)(const float *xq, const float *dyq, int nb, int C, int K, int H, int W, int stride, float *dw);
    void (*unphase)(const float *dp, int nb, int C, int H, int W, float *dx, bool acc);
} DirectKernels;

CONV_KERNEL_TABLES(DirectKernels, direct_kernels);

#ifdef __cplusplus
}
#endif

#endif
