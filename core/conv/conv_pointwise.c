/* conv_pointwise.c - 1x1 convolutions with stride 1 (MobileNetV2's expand
 * and project layers) computed directly on NCHW tensors: the forward pass,
 * the input gradient (the same kernel with the filters transposed) and the
 * weight gradient.
 *
 * Why: im2col + GEMM first copies each chunk of images into a [C][nb*P]
 * matrix (for a 1x1 convolution the lowering is only that layout change),
 * OpenBLAS packs it again, and the [K][nb*P] result is copied back into
 * NCHW. With the few channels of these layers (16-160 on one side) the
 * GEMM has a small dimension and runs at 120-300 GFLOP/s on the dev VM
 * (its SGEMM peak is 480), and the copies add to it. Here image i's
 * [C][P] block is read in place.
 *
 * How (layout of the packed filters: conv_pointwise_layout.h).
 *  - conv: a register block is 8 outputs x VF_ROWS vectors of positions of
 *    one image; per input it loads VF_ROWS vectors of x and multiplies them
 *    by 8 broadcast weights. Each output is one chain of FMAs over the
 *    inputs in order, from 0 (then added to y when accumulating), as in
 *    conv_direct.c: the same bits for any vector width or thread count,
 *    and the GPU twin runs the same chain. Positions past the last full
 *    vector take the same chain one by one (fmaf).
 *  - filter_grad: dw[k][c] = sum over images and positions of dy[k] * x[c].
 *    A block is PW_DW_K x PW_DW_C (k, c) pairs summed in vector lanes (the
 *    positions past the last full vector in a scalar chain), then the lanes
 *    in a fixed order.
 * Threads own whole outputs (conv: images; filter_grad: (k, c) blocks, the
 * same blocks in every span of images), so results do not depend on the
 * thread count. */
#include "kernels_cpu.h"
#include "pointwise_kernels.h"

#include <string.h>

#include "../util/common.h"
#include "conv_pointwise_layout.h"
#include "../cpu/parallel.h"
#include "../cpu/simd.h"

enum { BLK = VF_ROWS * VF_LANES };
/* Weight-gradient block: 4 x 4 (k, c) pairs, 16 accumulators and 8 loads
 * per vector of positions. Spans of images whose x and dy (SPAN_FLOATS
 * floats together) stay in L2 while every block passes over them: one
 * pass per block over all images would read x K/4 times from memory. */
enum { PW_DW_K = 4, PW_DW_C = 4, SPAN_FLOATS = 262144 };

void pointwise_filter_cpu(const float *w, int K, int C, bool transpose, float *wp)
{
    int O = transpose ? C : K, I = transpose ? K : C;
    size_t total = pointwise_filter_floats(O, I);
    for (size_t e = 0; e < total; e++) {
        int a = (int)(e % POINTWISE_OB), i = (int)(e / POINTWISE_OB % (size_t)I);
        int o = (int)(e / ((size_t)POINTWISE_OB * I)) * POINTWISE_OB + a;
        wp[e] = o >= O ? 0.0f : transpose ? w[(size_t)i * C + o] : w[(size_t)o * C + i];
    }
}

/* y rows o0 .. o0+on-1 at positions [j, j + rows*VF_LANES) of one image:
 * xi = the image's [I][P] input, yi = its [O][P] output. */
static inline __attribute__((always_inline)) void conv_block(const float *xi, const float *wpb, int I, size_t P,
                                                              int j, int rows, float *yi, int on, bool acc)
{
    vf s[POINTWISE_OB][VF_ROWS];
    for (int a = 0; a < POINTWISE_OB; a++)
        for (int r = 0; r < rows; r++) s[a][r] = vf_zero();
    for (int c = 0; c < I; c++) {
        vf xv[VF_ROWS];
        for (int r = 0; r < rows; r++) xv[r] = vf_load(xi + (size_t)c * P + j + r * VF_LANES);
        const float *wc = wpb + (size_t)c * POINTWISE_OB;
        for (int a = 0; a < POINTWISE_OB; a++) {
            vf wa = vf_set1(wc[a]);
            for (int r = 0; r < rows; r++) s[a][r] = vf_fma(wa, xv[r], s[a][r]);
        }
    }
    for (int a = 0; a < on; a++)
        for (int r = 0; r < rows; r++) {
            float *out = yi + (size_t)a * P + j + r * VF_LANES;
            vf_store(out, acc ? vf_add(vf_load(out), s[a][r]) : s[a][r]);
        }
}

/* The same chains, one position at a time. */
static void conv_tail(const float *xi, const float *wpb, int I, size_t P, int j, float *yi, int on, bool acc)
{
    for (int a = 0; a < on; a++) {
        float s = 0.0f;
        for (int c = 0; c < I; c++) s = fmaf(wpb[(size_t)c * POINTWISE_OB + a], xi[(size_t)c * P + j], s);
        yi[(size_t)a * P + j] = acc ? yi[(size_t)a * P + j] + s : s;
    }
}

/* Image by image; within an image, each run of positions passes every
 * block of outputs while its inputs are in cache. */
void pointwise_conv_cpu(const float *x, const float *wp, int n, int I, int O, int P, float *y, bool acc)
{
    int oblocks = (O + POINTWISE_OB - 1) / POINTWISE_OB, full = P / BLK * BLK, vec = P / VF_LANES * VF_LANES;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(ddl_kernel_threads()) if ((size_t)n * P * I * O > 32768)
#endif
    for (int i = 0; i < n; i++) {
        const float *xi = x + (size_t)i * I * P;
        float *yimg = y + (size_t)i * O * P;
        for (int j = 0; j < P; j += (j < full ? BLK : j < vec ? VF_LANES : 1))
            for (int ob = 0; ob < oblocks; ob++) {
                int o0 = ob * POINTWISE_OB, on = DDL_MIN(POINTWISE_OB, O - o0);
                const float *wpb = wp + (size_t)ob * I * POINTWISE_OB;
                float *yi = yimg + (size_t)o0 * P;
                if (j < full) conv_block(xi, wpb, I, (size_t)P, j, VF_ROWS, yi, on, acc);
                else if (j < vec) conv_block(xi, wpb, I, (size_t)P, j, 1, yi, on, acc);
                else conv_tail(xi, wpb, I, (size_t)P, j, yi, on, acc);
            }
    }
}

/* sums[a][b] = sum over images [i0, i1) and positions of dy[k0+a] * x[c0+b]
 * (rows past K or C repeat the last one; their sums are dropped). */
static void filter_grad_block(const float *x, const float *dy, int C, int K, int P, int i0, int i1, int k0, int c0,
                              float sums[PW_DW_K][PW_DW_C])
{
    vf s[PW_DW_K][PW_DW_C];
    float t[PW_DW_K][PW_DW_C] = { { 0 } };
    for (int a = 0; a < PW_DW_K; a++)
        for (int b = 0; b < PW_DW_C; b++) s[a][b] = vf_zero();
    int vec = P / VF_LANES * VF_LANES;
    for (int i = i0; i < i1; i++) {
        const float *dr[PW_DW_K], *xr[PW_DW_C];
        for (int a = 0; a < PW_DW_K; a++) dr[a] = dy + ((size_t)i * K + DDL_MIN(k0 + a, K - 1)) * P;
        for (int b = 0; b < PW_DW_C; b++) xr[b] = x + ((size_t)i * C + DDL_MIN(c0 + b, C - 1)) * P;
        for (int j = 0; j < vec; j += VF_LANES) {
            vf d[PW_DW_K];
            for (int a = 0; a < PW_DW_K; a++) d[a] = vf_load(dr[a] + j);
            for (int b = 0; b < PW_DW_C; b++) {
                vf xv = vf_load(xr[b] + j);
                VF_PIN(xv);
                for (int a = 0; a < PW_DW_K; a++) s[a][b] = vf_fma(d[a], xv, s[a][b]);
            }
        }
        for (int j = vec; j < P; j++)
            for (int a = 0; a < PW_DW_K; a++)
                for (int b = 0; b < PW_DW_C; b++) t[a][b] = fmaf(dr[a][j], xr[b][j], t[a][b]);
    }
    for (int a = 0; a < PW_DW_K; a++)
        for (int b = 0; b < PW_DW_C; b++) sums[a][b] = vf_hsum(s[a][b]) + t[a][b];
}

/* Each thread keeps the same blocks in every span (a static schedule over
 * the same count), so a dw entry is only ever added to by one thread, span
 * after span, in order: the same sums for any thread count. */
void pointwise_filter_grad_cpu(const float *x, const float *dy, int n, int C, int K, int P, float *dw)
{
    int kb = (K + PW_DW_K - 1) / PW_DW_K, cb = (C + PW_DW_C - 1) / PW_DW_C, items = kb * cb;
    int span = DDL_MAX(1, SPAN_FLOATS / DDL_MAX(1, (C + K) * P));
#ifdef _OPENMP
#pragma omp parallel num_threads(ddl_kernel_threads()) if ((size_t)n * P * K * C > 32768)
#endif
    for (int i0 = 0; i0 < n; i0 += span) {
#ifdef _OPENMP
#pragma omp for schedule(static) nowait
#endif
        for (int it = 0; it < items; it++) {
            int k0 = it / cb * PW_DW_K, c0 = it % cb * PW_DW_C;
            float sums[PW_DW_K][PW_DW_C];
            filter_grad_block(x, dy, C, K, P, i0, DDL_MIN(n, i0 + span), k0, c0, sums);
            for (int a = 0; a < PW_DW_K && k0 + a < K; a++)
                for (int b = 0; b < PW_DW_C && c0 + b < C; b++) dw[(size_t)(k0 + a) * C + c0 + b] += sums[a][b];
        }
    }
}

/* Stride 2 (path_pointwise.c): a 1x1 stride-2 convolution reads only
 * the even rows and columns, so it is the stride-1 kernels on those
 * (gathered first), and its input gradient is theirs put back there, the
 * odd positions zero. Ho = ceil(H/2), Wo = ceil(W/2). */
void pointwise_subsample_cpu(const float *x, int nb, int C, int H, int W, float *xs)
{
    int Ho = (H + 1) / 2, Wo = (W + 1) / 2;
    PARALLEL_FOR((size_t)nb * C * H * W)
    for (int ic = 0; ic < nb * C; ic++)
        for (int h = 0; h < Ho; h++) {
            const float *row = x + ((size_t)ic * H + 2 * h) * W;
            float *out = xs + ((size_t)ic * Ho + h) * Wo;
            for (int w = 0; w < Wo; w++) out[w] = row[2 * w];
        }
}

void pointwise_upsample_cpu(const float *dxs, int nb, int C, int H, int W, float *dx, bool acc)
{
    int Ho = (H + 1) / 2, Wo = (W + 1) / 2;
    PARALLEL_FOR((size_t)nb * C * H * W)
    for (int ic = 0; ic < nb * C; ic++)
        for (int h = 0; h < H; h++) {
            float *row = dx + ((size_t)ic * H + h) * W;
            if (h % 2) { /* an odd row: nothing */
                if (!acc) memset(row, 0, sizeof(float) * (size_t)W);
                continue;
            }
            const float *in = dxs + ((size_t)ic * Ho + h / 2) * Wo;
            if (acc)
                for (int w = 0; w < Wo; w++) row[2 * w] += in[w];
            else
                for (int w = 0; w < W; w++) row[w] = w % 2 ? 0.0f : in[w / 2];
        }
}
