/* path_pointwise.c - 1x1 convolutions (no padding, ungrouped) by the
 * pointwise kernels (below: why and how): the forward
 * pass, the input gradient (the same kernel with the filters transposed)
 * and the weight gradient, on the NCHW tensors as they are.
 *
 * Stride 2 (ResNet's projection shortcuts): the layer reads only x's even
 * rows and columns, so they are gathered first (pointwise_subsample) and
 * the stride-1 kernels run on them; the input gradient is theirs put back
 * at those positions, zero elsewhere (pointwise_upsample). im2col + GEMM
 * did the same gather into its column matrix, but then ran GEMMs whose
 * inner dimension is only C, and scattered the input gradient back
 * through col2im (bench/RESULTS.md has the numbers).
 *
 * Scratch: the packed filters, then (stride 2) the gathered x and the
 * gathered input gradient.
 *
 * The kernels: 1x1 convolutions with stride 1 (MobileNetV2's expand
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
 * How (layout of the packed filters: pointwise_kernels.h).
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
#include "paths.h"

#include <string.h>
#include "pointwise_kernels.h"
#include "../util/common.h"
#include "../cpu/parallel.h"
#include "../cpu/simd.h"

CONV_PATH_CODE(pointwise);

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

/* The CPU's table (the CUDA twin's: conv_pointwise.cu). */
const PointwiseKernels pointwise_kernels_cpu = {
    .filter = pointwise_filter_cpu, .conv = pointwise_conv_cpu, .filter_grad = pointwise_filter_grad_cpu,
    .subsample = pointwise_subsample_cpu, .upsample = pointwise_upsample_cpu,
};

typedef struct Dims {
    int C, K, H, W, s, P; /* input C x H x W, stride s; P: output positions per image */
} Dims;

bool pointwise_fits(const ConvShape *s)
{
    return s->k == 1 && s->pad == 0 && s->groups == 1 && (s->stride == 1 || s->stride == 2);
}

static Dims dims(const ConvShape *s) { return (Dims){ s->cin, s->cout, s->h, s->w, s->stride, s->oh * s->ow }; }

static size_t filter_floats(const Dims *d)
{
    return DDL_MAX(pointwise_filter_floats(d->K, d->C), pointwise_filter_floats(d->C, d->K));
}

/* The forward's packed filters or the input gradient's, whichever is
 * larger; with stride 2 the gathered x and input gradient of max_batch
 * images after them. */
size_t pointwise_scratch(const void *kt, const ConvShape *s, int max_batch)
{
    Dims d = dims(s);
    return filter_floats(&d) + (d.s == 2 ? (size_t)2 * max_batch * d.C * d.P : 0);
}

/* The stride-1 kernels' input: x itself, or (stride 2) its even rows and
 * columns gathered into the scratch. */
static const float *input_of(const ConvRun *r, const PointwiseKernels *k, const Dims *d)
{
    if (d->s == 1) return r->x;
    float *xs = r->scratch + filter_floats(d);
    k->subsample(r->x, r->batch, d->C, d->H, d->W, xs);
    return xs;
}

void pointwise_forward(const ConvRun *r, const void *kt)
{
    const PointwiseKernels *k = kt;
    Dims d = dims(&r->s);
    const float *x = input_of(r, k, &d);
    k->filter(r->w, d.K, d.C, false, r->scratch);
    k->conv(x, r->scratch, r->batch, d.C, d.K, d.P, r->y, false);
}

void pointwise_backward(const ConvRun *r, const void *kt)
{
    const PointwiseKernels *k = kt;
    Dims d = dims(&r->s);
    k->filter_grad(input_of(r, k, &d), r->dy, r->batch, d.C, d.K, d.P, r->dw);
    if (!r->dx) return;
    k->filter(r->w, d.K, d.C, true, r->scratch);
    if (d.s == 1) {
        k->conv(r->dy, r->scratch, r->batch, d.K, d.C, d.P, r->dx, r->acc);
        return;
    }
    float *dxs = r->scratch + filter_floats(&d) + (size_t)r->max_batch * d.C * d.P;
    k->conv(r->dy, r->scratch, r->batch, d.K, d.C, d.P, dxs, false);
    k->upsample(dxs, r->batch, d.C, d.H, d.W, r->dx, r->acc);
}
