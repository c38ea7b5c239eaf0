/* direct_kernels.h - what the direct 3x3 path shares between its CPU
 * file (path_direct.c, conv_direct.c, conv_direct_grid.c) and its CUDA
 * twin (conv_direct.cu): the buffer layouts and tap tables (below), the
 * kernels and their kernel table. */
#ifndef DDL_CONV_DIRECT_KERNELS_H
#define DDL_CONV_DIRECT_KERNELS_H

#include <stddef.h>
#include "kernels.h"

/* The buffers of the direct 3x3 convolution
 * (conv_direct.c, its CUDA twin conv_direct.cu, and the layer that sizes
 * its scratch, core/conv/path_direct.c), in one place so the three
 * agree.
 *
 * Padded planes ("xq"): nb images of C channels, each plane with a zero
 * border of one pixel, in groups of g images whose padded rows are
 * interleaved: [C][nb/g][H+2][g][W+2] (padded row 0 of each image of the
 * group, then row 1 of each, ...), then DIRECT_SLACK zero floats (a
 * register block may read a little past the last plane; what it reads
 * there only feeds outputs that are discarded). The kernels walk runs of
 * positions through a group's rows, computing and throwing away the
 * padding they cross: with g = nb only the 2 padding columns of each row
 * (W/(W+2) of the work is useful: 80% on 8x8 planes), with g = 1 also the
 * 2 padding rows of each image (HW/((H+2)(W+2)): 64% on 8x8). But with
 * g = nb the 3 rows a tap reads are nb*(W+2) floats apart instead of W+2,
 * three cache streams per channel instead of one: on 32x32 planes with 16
 * channels that made the forward pass 1.3-1.45x slower on the dev VM
 * (bin/bench/conv_algo), where the saving is only 6%. So small planes
 * interleave all images, large ones none (direct_group). (The CPU's
 * forward skips the padding altogether where a row is half a vector, one
 * or two: conv_direct.c's row-exact blocks, on the same layout.)
 *
 * Stride 2 ("phases"): the input of a stride-2 convolution is split into
 * its 4 phases, even or odd rows by even or odd columns, each a plane of
 * the output's size (Ho x Wo, Ho = ceil(H/2)), laid out and padded as
 * above: [C][4][nb/g][Ho+2][g][Wo+2]. Phase p = 2*(row odd) + (column
 * odd) holds x[2m + (p>>1)][2n + (p&1)] at padded (m+1, n+1) (zero past
 * the input). Output (oh, ow) then reads, for kernel row ki, input row
 * 2*oh + ki - 1: the odd phase's padded row oh for ki = 0, and row oh+1
 * of the even (ki = 1) or odd (ki = 2) phase: every tap is again a fixed
 * offset from the output's grid position, on planes of the output's
 * geometry, so the stride-1 kernels run it unchanged with another tap
 * table (DirectTaps). The input gradient is the 4 phases' gradients, each
 * a stride-1 convolution of the padded dy by the taps that read that
 * phase (1, 2, 2 and 4 of them), then interleaved back (unphase).
 *
 * Packed filters ("wp"): the K x C x 3 x 3 filters of one convolution as
 * [ceil(K/8)][C][n][8]: for each block of 8 output channels, per input
 * channel and tap of the tap table (n of them, 9 but for the phases of a
 * stride-2 input gradient), the 8 weights side by side (zeros past K),
 * which is the order the kernel broadcasts them in. */
enum { DIRECT_KB = 8, DIRECT_SLACK = 64 };

/* Which convolution a tap table describes (the kernels' `mode`):
 * DIRECT_FWD        stride 1: y = x (*) w;
 * DIRECT_DX         its input gradient: dx = dy (*) w transposed and
 *                   rotated 180 degrees;
 * DIRECT_FWD_S2     stride 2, on the input's phases;
 * DIRECT_DX_S2 + p  (p = 0..3) the gradient of phase p of a stride-2
 *                   input, from the padded dy;
 * DIRECT_DX_S2_ALL  all 4 in one pass over dy: the filters are the 4
 *                   phases' packings one after another, each
 *                   direct_filter_floats(C, K) floats, and so are the
 *                   outputs, each [nb][C][Ho][Wo]. */
enum { DIRECT_FWD, DIRECT_DX, DIRECT_FWD_S2, DIRECT_DX_S2, DIRECT_DX_S2_ALL = DIRECT_DX_S2 + 4 };

/* A tap table: n taps; tap i multiplies filter tap wt[i] (ki*3 + kj) by
 * the input value in phase plane ph[i], dr[i] rows and dc[i] columns from
 * the top left of the output's 3x3 window on the padded grid. */
typedef struct DirectTaps {
    int n, wt[9], ph[9], dr[9], dc[9];
} DirectTaps;

/* The rows (or columns) of a stride-2 tap: kernel row k reads the odd
 * phase for k = 0 and 2, the even for k = 1; forward one row up for
 * k = 0; the input gradient reads dy one row down for k = 0. */
static inline int direct_s2_odd(int k) { return k != 1; }

static inline DirectTaps direct_taps(int mode)
{
    DirectTaps d = { 0, { 0 }, { 0 }, { 0 }, { 0 } };
    for (int t = 0; t < 9; t++) {
        int ki = t / 3, kj = t % 3, i = d.n;
        if (mode == DIRECT_FWD || mode == DIRECT_DX) {
            d.wt[i] = mode == DIRECT_FWD ? t : 8 - t;
            d.dr[i] = ki, d.dc[i] = kj;
        } else if (mode == DIRECT_FWD_S2) {
            d.wt[i] = t, d.ph[i] = 2 * direct_s2_odd(ki) + direct_s2_odd(kj);
            d.dr[i] = ki != 0, d.dc[i] = kj != 0;
        } else {
            int p = mode - DIRECT_DX_S2;
            if (direct_s2_odd(ki) != p >> 1 || direct_s2_odd(kj) != (p & 1)) continue;
            d.wt[i] = t, d.dr[i] = ki == 0 ? 2 : 1, d.dc[i] = kj == 0 ? 2 : 1;
        }
        d.n++;
    }
    return d;
}

/* Planes per input channel a mode's taps read: the 4 phases of a stride-2
 * input, else 1. */
static inline int direct_input_planes(int mode) { return mode == DIRECT_FWD_S2 ? 4 : 1; }

/* Tap i's offset from the output's window on a grid with cs floats per
 * plane and rs per padded row (of a group). */
static inline size_t direct_tap_offset(const DirectTaps *d, int i, size_t cs, size_t rs)
{
    return (size_t)d->ph[i] * cs + (size_t)d->dr[i] * rs + (size_t)d->dc[i];
}

/* Whether the mode's filters are the transposed ones (C outputs from K inputs). */
static inline int direct_transposed(int mode) { return mode == DIRECT_DX || mode >= DIRECT_DX_S2; }

/* Output rows (or columns) of a 3x3 convolution with padding 1. */
static inline int direct_out(int n, int stride) { return (n - 1) / stride + 1; }

/* Images per group of interleaved rows: all of them on planes up to 16
 * wide (measured on 8x8 and 16x16: above), else one. */
static inline int direct_group(int nb, int W) { return W <= 16 ? nb : 1; }

/* Floats of one channel's padded planes (nb of them, whatever the grouping). */
static inline size_t direct_channel_floats(int nb, int H, int W)
{
    return (size_t)(H + 2) * (size_t)nb * (size_t)(W + 2);
}

/* Floats of a padded buffer of nb images of C channels. */
static inline size_t direct_padded_floats(int nb, int C, int H, int W)
{
    return (size_t)C * direct_channel_floats(nb, H, W) + DIRECT_SLACK;
}

/* Floats of the padded input of a convolution with this stride (1 or 2)
 * of nb images of C channels of H x W: stride 2 keeps 4 phase planes of
 * the output's size per channel. */
static inline size_t direct_input_floats(int nb, int C, int H, int W, int stride)
{
    int Ho = direct_out(H, stride), Wo = direct_out(W, stride);
    return (size_t)C * (size_t)(stride * stride) * direct_channel_floats(nb, Ho, Wo) + DIRECT_SLACK;
}

/* Floats of the packed filters of a convolution with K outputs, C inputs
 * (9 taps: the most any table has). */
static inline size_t direct_filter_floats(int K, int C)
{
    return (size_t)((K + DIRECT_KB - 1) / DIRECT_KB) * DIRECT_KB * (size_t)C * 9;
}

/* DIRECT_DX_S2_ALL: where phase p's filters start, for K outputs (the
 * layer's input channels) from C inputs (its output channels). */
static inline size_t direct_phase_filters(int p, int K, int C) { return (size_t)p * direct_filter_floats(K, C); }

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's kernels. Tensors are NCHW float32; kernels that produce an
 * input gradient take acc: false overwrites, true adds. */

/* Direct 3x3 convolution, padding 1, stride 1 or 2 (conv_direct.c says
 * why and how; buffer layouts, phases and tap tables (modes) in
 * above):
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
/* conv_direct.cu: direct 3x3 convolution (layouts above). */
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
