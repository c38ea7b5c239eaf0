/* winograd_kernels.h - the kernel table of the Winograd paths
 * (path_winograd.c), F(2x2,3x3) and F(4x4,3x3): one type, a table per
 * size and device, with the kernels (layouts below). The weight gradient is
 * F(2x2)'s in both (grad_input: F(2x2)'s input transform; output_grad,
 * filter_grad: winograd_grad.c, winograd_grad.cu). */
#ifndef DDL_CONV_WINOGRAD_KERNELS_H
#define DDL_CONV_WINOGRAD_KERNELS_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's kernels. Tensors are NCHW float32; kernels that produce an
 * input gradient take acc: false overwrites, true adds. */

/* Winograd F(2x2,3x3) for 3x3 convolutions with stride 1 and padding 1
 * (winograd.c says why and how): the transforms around 16 GEMMs, which
 * replace im2col + one GEMM with fewer multiplications. An H x W plane has
 * T = ceil(H/2) * ceil(W/2) tiles of 2x2 outputs; "16" indexes the tile
 * positions of the 4x4 Winograd domain.
 * input:  v[16][C][nb*T] = B^T d B of x[nb][C][H][W]'s 4x4 tiles (zero
 *         padding outside the plane);
 * filter: u[16][K][C] = G g G^T of w[K][C][3][3]; with flip, the filter of
 *         the input gradient instead, u[16][C][K] from w rotated 180
 *         degrees (dx = this convolution of dy);
 * output: y[nb][K][H][W] (+)= A^T m A of m[16][K][nb*T], cropped to H x W. */
void winograd_input_cpu(const float *x, int nb, int C, int H, int W, float *v);
void winograd_filter_cpu(const float *w, int K, int C, bool flip, float *u);
void winograd_output_cpu(const float *m, int nb, int K, int H, int W, float *y, bool acc);
/* The weight gradient (winograd_grad.c): output_grad: dm[16][K][nb*T] =
 * A dy A^T of dy[nb][K][H][W]'s 2x2 tiles (0 past the plane); GEMMs give
 * du[16][K][C] = sum over tiles of dm (.) v; filter_grad: dw[K][C][3][3]
 * += G^T du G. */
void winograd_output_grad_cpu(const float *dy, int nb, int K, int H, int W, float *dm);
void winograd_filter_grad_cpu(const float *du, int K, int C, float *dw);
/* Winograd F(4x4,3x3) (winograd4.c says why and how): the same three
 * transforms with 36 positions of 6x6 tiles around 4x4 outputs, T =
 * ceil(H/4) * ceil(W/4) tiles per plane:
 * input:  v[36][C][nb*T]; filter: u[36][K][C] (flip as above);
 * output: y[nb][K][H][W] (+)= A^T m A of m[36][K][nb*T], cropped. */
void winograd4_input_cpu(const float *x, int nb, int C, int H, int W, float *v);
void winograd4_filter_cpu(const float *w, int K, int C, bool flip, float *u);
void winograd4_output_cpu(const float *m, int nb, int K, int H, int W, float *y, bool acc);

/* Their CUDA twins: the same arguments, device pointers (the emulated
 * GPU's build names them _emu, as core/cuda/emu/names.h does the rest). */
#ifdef DDL_CUDA_EMU
#define winograd4_filter_cuda winograd4_filter_cuda_emu
#define winograd4_input_cuda winograd4_input_cuda_emu
#define winograd4_output_cuda winograd4_output_cuda_emu
#define winograd_filter_cuda winograd_filter_cuda_emu
#define winograd_filter_grad_cuda winograd_filter_grad_cuda_emu
#define winograd_input_cuda winograd_input_cuda_emu
#define winograd_output_cuda winograd_output_cuda_emu
#define winograd_output_grad_cuda winograd_output_grad_cuda_emu
#endif
/* winograd.cu: Winograd F(2x2,3x3) transforms (layouts in kernels.h). */
void winograd_input_cuda(const float *x, int nb, int C, int H, int W, float *v);
void winograd_filter_cuda(const float *w, int K, int C, bool flip, float *u);
void winograd_output_cuda(const float *m, int nb, int K, int H, int W, float *y, bool acc);
/* winograd_grad.cu: the weight gradient's transforms. */
void winograd_output_grad_cuda(const float *dy, int nb, int K, int H, int W, float *dm);
void winograd_filter_grad_cuda(const float *du, int K, int C, float *dw);
/* winograd4.cu: Winograd F(4x4,3x3) transforms (layouts in kernels.h). */
void winograd4_input_cuda(const float *x, int nb, int C, int H, int W, float *v);
void winograd4_filter_cuda(const float *w, int K, int C, bool flip, float *u);
void winograd4_output_cuda(const float *m, int nb, int K, int H, int W, float *y, bool acc);

typedef struct WinogradKernels {
    void (*input)(const float *x, int nb, int C, int H, int W, float *v);
    void (*filter)(const float *w, int K, int C, bool flip, float *u);
    void (*output)(const float *m, int nb, int K, int H, int W, float *y, bool acc);
    void (*grad_input)(const float *x, int nb, int C, int H, int W, float *v);
    void (*output_grad)(const float *dy, int nb, int K, int H, int W, float *dm);
    void (*filter_grad)(const float *du, int K, int C, float *dw);
} WinogradKernels;

/* F(2x2,3x3): path_winograd.c, winograd.cu; F(4x4,3x3): path_winograd.c, winograd4.cu */
CONV_KERNEL_TABLES(WinogradKernels, winograd_kernels);
CONV_KERNEL_TABLES(WinogradKernels, winograd4_kernels);

#ifdef __cplusplus
}
#endif

#endif
