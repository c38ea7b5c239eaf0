/* winofused_kernels.h - the kernel table of the fused Winograd path
 * (path_winofused.c; the CPU's in conv_winofused.c, the CUDA twin's in
 * conv_winofused.cu). Its weight gradient is the direct kernels'
 * (grad_pad, filter_grad: the same functions as DirectKernels' pad and
 * filter_grad). Layouts: winofused_layout.h, kernels_cpu.h. */
#ifndef DDL_CONV_WINOFUSED_KERNELS_H
#define DDL_CONV_WINOFUSED_KERNELS_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's kernels. Tensors are NCHW float32; kernels that produce an
 * input gradient take acc: false overwrites, true adds. */

/* Winograd F(2x2,3x3) on the direct kernels' grid, stride 1, padding 1
 * (conv_winofused.c says why and how; layouts in winofused_layout.h):
 * filter: wt = V = G g G^T of w[K][C][3][3], packed per tile position in
 *         blocks of 8 outputs; with flip, the input gradient's (C outputs
 *         from K inputs, rotated);
 * conv:    y[nb][K][H][W] (+)= the convolution of x[nb][C][H][W] (H, W
 *          even; C <= WINOFUSED_MAX_C) from its phases xq
 *          (direct_pad_cpu with stride 2) and wt; yq: room for the 4
 *          output phases on the tiles' grid, [4][K][ocs], which some
 *          planes go through (winofused_layout.h);
 * unphase: y (+)= the phases yq interleaved. */
void winofused_pad_cpu(const float *x, int nb, int C, int H, int W, float *xq);
void winofused_filter_cpu(const float *w, int K, int C, bool flip, float *wt);
void winofused_conv_cpu(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y,
                         bool acc);
void winofused_unphase_cpu(const float *yq, int nb, int K, int H, int W, float *y, bool acc);

/* Their CUDA twins: the same arguments, device pointers (the emulated
 * GPU's build names them _emu, as core/cuda/emu/names.h does the rest). */
#ifdef DDL_CUDA_EMU
#define winofused_conv_cuda winofused_conv_cuda_emu
#define winofused_filter_cuda winofused_filter_cuda_emu
#define winofused_pad_cuda winofused_pad_cuda_emu
#endif
/* conv_winofused.cu: Winograd F(2x2,3x3) on the direct grid (layouts in
 * winofused_layout.h). */
void winofused_pad_cuda(const float *x, int nb, int C, int H, int W, float *xq);
void winofused_filter_cuda(const float *w, int K, int C, bool flip, float *wt);
void winofused_conv_cuda(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y,
                         bool acc);

typedef struct WinofusedKernels {
    void (*pad)(const float *x, int nb, int C, int H, int W, float *xq);
    void (*filter)(const float *w, int K, int C, bool flip, float *wt);
    void (*conv)(const float *xq, const float *wt, int nb, int C, int K, int H, int W, float *yq, float *y, bool acc);
    void (*grad_pad)(const float *x, int nb, int C, int H, int W, int stride, float *xq);
    void (*filter_grad)(const float *xq, const float *dyq, int nb, int C, int K, int H, int W, int stride, float *dw);
} WinofusedKernels;

CONV_KERNEL_TABLES(WinofusedKernels, winofused_kernels);

#ifdef __cplusplus
}
#endif

#endif
