/* kernels_cpu.h - the CPU's convolution kernels, plain C11: the
 * functions behind conv_kernels_cpu (kernels.h), each with a CUDA twin of
 * the same arguments and a _cuda suffix in core/cuda/kernels_cuda.h.
 * Tensors are NCHW float32; `n` or `nb` is the number of images. Kernels
 * that produce an input gradient take `acc`: false overwrites, true adds
 * (a tensor read by two layers receives the sum of both gradients). */
#ifndef DDL_CONV_KERNELS_CPU_H
#define DDL_CONV_KERNELS_CPU_H

#include <stdbool.h>
#include <stddef.h>

/* Convolution lowering of nb images x[nb][C][H][W] into the column matrix
 * col[C*k*k][nb*OH*OW] (row (c,ki,kj), image i's pixels at columns
 * [i*OH*OW, (i+1)*OH*OW)), so one GEMM covers several images. */
void im2col_cpu(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *col);
/* The adjoint: dx[nb][C][H][W] (+)= scatter-add of col. */
void col2im_cpu(const float *col, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW, float *dx,
                bool acc);

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

/* Pointwise (1x1, stride 1) convolution, direct on NCHW (conv_pointwise.c
 * says why and how; packed filters in conv_pointwise_layout.h):
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

/* The layout change around a GEMM over several images: x[nb][c][p]
 * (NCHW, p = H*W) <-> t[c][nb*p] (channel-major, image i's pixels at
 * columns [i*p, (i+1)*p)), which is what the GEMM reads and writes. */
void images_to_channels_cpu(const float *x, int nb, int c, int p, float *t);
void channels_to_images_cpu(const float *t, int nb, int c, int p, float *y);

/* Depthwise convolution, direct (no lowering): C channels in and out, one
 * k x k filter per channel (w[C][k][k], PyTorch's [C][1][k][k]), optional
 * bias[C] (NULL: none). Backward accumulates dw (no bias: bias_grad_cpu)
 * and, when dx is not NULL, writes (acc: adds) the input gradient. */
void depthwise_forward_cpu(const float *x, const float *w, const float *bias, float *y, int n, int C, int H, int W,
                           int k, int stride, int pad, int OH, int OW);
void depthwise_backward_cpu(const float *x, const float *dy, const float *w, float *dw, float *dx, int n, int C,
                            int H, int W, int k, int stride, int pad, int OH, int OW, bool acc);

#endif
