/* path_depthwise.c - depthwise convolutions (groups = channels in =
 * channels out: MobileNetV2's) by the direct kernels below,
 * which need no columns or scratch: the reference would run one GEMM of
 * a single row per channel, far below BLAS's peak. The forward kernel
 * starts each sum from the bias.
 *
 * The kernels: direct depthwise convolution (groups = in = out channels,
 * one k x k filter per channel), forward and backward.
 *
 * Why not im2col + GEMM as for other convolutions: per channel that is a
 * 1 x k*k by k*k x P product - hundreds of BLAS calls per layer with one
 * output row each, plus a column matrix k*k times the input written and
 * read back. In MobileNetV2 on 28x28 that path took over half of the
 * training step; these kernels are 2-5x faster per layer.
 *
 * How. Work is done per (block of nb images, channel):
 *  - the images' planes are zero-padded and, for stride s, split into s*s
 *    phase planes (rows and columns = a mod s, b mod s) of Hq x Wq, the
 *    phases laid out [phase][image][Hq][Wq]. In phase space a strided
 *    convolution is a stride-1 one: output (oh, ow) reads phase
 *    (ki mod s, kj mod s) at (oh + ki/s, ow + kj/s).
 *  - read as one flat array, output (image i, oh, ow) sits at
 *    j = i*Hq*Wq + oh*Wq + ow, and tap (ki, kj) reads its phase at j + a
 *    fixed offset. So every tap is one multiply-add over a long contiguous
 *    run spanning all nb images, which the compiler vectorises. The run
 *    also covers the positions between rows and images that are not
 *    outputs; their results are discarded (backward: their dy is zero).
 *    Small planes (MobileNetV2's 7x7 and 4x4) are what make the blocks
 *    matter: a run per row would be 4-7 floats long.
 *  - backward puts dy on the same grid: the weight gradient is a dot
 *    product per tap, the input gradient one multiply-add run per tap into
 *    phase planes that are then mapped back to the image.
 * Threads take whole units; each unit's weight-gradient sums are kept and
 * added over the blocks in a fixed order at the end, so results do not
 * depend on the thread count. */
#include "paths.h"

#include <string.h>
#include "depthwise_kernels.h"
#include "../util/common.h"
#include "../cpu/parallel.h"

CONV_PATH_CODE(depthwise);

enum { TARGET_RUN = 1024 }; /* floats per block: long runs, all taps' data in L1/L2 */

typedef struct Geo {
    int H, W, k, s, pad, OH, OW;
    int Hq, Wq;     /* one phase plane of the padded image */
    size_t plane;   /* Hq * Wq */
    int nb;         /* images per block */
} Geo;

static Geo geo(int n, int H, int W, int k, int s, int pad, int OH, int OW)
{
    Geo g = { H, W, k, s, pad, OH, OW, (H + 2 * pad + s - 1) / s, (W + 2 * pad + s - 1) / s, 0, 1 };
    g.plane = (size_t)g.Hq * g.Wq;
    g.nb = (int)(TARGET_RUN / g.plane);
    if (g.nb < 1) g.nb = 1;
    if (g.nb > n) g.nb = n;
    return g;
}

/* Flat run length covering every output of nb images. */
static int run_len(const Geo *g, int nb) { return (int)((size_t)(nb - 1) * g->plane) + (g->OH - 1) * g->Wq + g->OW; }

/* Offset of tap (ki, kj) in the phase buffer: its phase plane, then the
 * shift inside it. */
static size_t tap_off(const Geo *g, int nb, int ki, int kj)
{
    size_t phase = (size_t)(ki % g->s) * g->s + (size_t)(kj % g->s);
    return phase * nb * g->plane + (size_t)(ki / g->s) * g->Wq + (size_t)(kj / g->s);
}

/* The columns of phase b: q in [*lo, *hi) have image column q*s + b - pad
 * inside [0, W). */
static void phase_cols(const Geo *g, int b, int *lo, int *hi)
{
    int first = g->pad - b, last = g->W + g->pad - b; /* need first <= q*s < last */
    *lo = first <= 0 ? 0 : (first + g->s - 1) / g->s;
    *hi = last <= 0 ? 0 : (last + g->s - 1) / g->s;
    if (*hi > g->Wq) *hi = g->Wq;
    if (*lo > *hi) *lo = *hi;
}

/* Between nb images' planes of one channel (x + i*img_stride) and their
 * zero-padded phase planes q[s*s][nb][Hq][Wq]: into the phases
 * (TO_PHASES, zeroing q first), or back for gradients, x (+)= the image
 * part of the phases (every image pixel is in exactly one phase, so
 * FROM_PHASES overwrites all of them). */
typedef enum PhaseMove { TO_PHASES, FROM_PHASES, ADD_FROM_PHASES } PhaseMove;

static void move_row(float *xr, float *qr, int lo, int hi, int s, int off, PhaseMove how)
{
    if (how == TO_PHASES && s == 1) memcpy(qr + lo, xr + lo + off, sizeof(float) * (size_t)(hi - lo));
    else if (how == TO_PHASES) for (int c = lo; c < hi; c++) qr[c] = xr[c * s + off];
    else if (how == ADD_FROM_PHASES) for (int c = lo; c < hi; c++) xr[c * s + off] += qr[c];
    else for (int c = lo; c < hi; c++) xr[c * s + off] = qr[c];
}

static void move_phases(const Geo *g, float *x, size_t img_stride, int nb, float *q, PhaseMove how)
{
    int s = g->s;
    if (how == TO_PHASES) memset(q, 0, sizeof(float) * (size_t)s * s * nb * g->plane);
    for (int a = 0; a < s; a++)
        for (int b = 0; b < s; b++) {
            int lo, hi, off = b - g->pad;
            phase_cols(g, b, &lo, &hi);
            for (int i = 0; i < nb; i++)
                for (int r = 0; r < g->Hq; r++) {
                    int h = r * s + a - g->pad;
                    if (h < 0 || h >= g->H) continue;
                    move_row(x + (size_t)i * img_stride + (size_t)h * g->W,
                             q + (((size_t)a * s + b) * nb + i) * g->plane + (size_t)r * g->Wq, lo, hi, s, off, how);
                }
        }
}

/* x is only read */
static void to_phases(const Geo *g, const float *x, size_t img_stride, int nb, float *q)
{
    move_phases(g, (float *)x, img_stride, nb, q, TO_PHASES);
}

/* Work units: (block of nb images, channel), channel fastest, so that for
 * large planes (nb = 1) consecutive units read consecutive memory. */
static int blocks(const Geo *g, int n) { return (n + g->nb - 1) / g->nb; }

/* The units of one call run in one parallel region, each thread with its
 * own phase buffer for all its units (allocating one per unit cost a
 * memalign and a free per channel of every block: ~60k a MobileNetV2
 * step). */
#ifdef _OPENMP
#define DW_PARALLEL(work) DDL_PRAGMA(omp parallel num_threads(ddl_kernel_threads()) if ((work) > 32768))
#define DW_FOR DDL_PRAGMA(omp for schedule(static))
#else
#define DW_PARALLEL(work)
#define DW_FOR
#endif

void depthwise_forward_cpu(const float *x, const float *w, const float *bias, float *y, int n, int C, int H, int W,
                           int k, int stride, int pad, int OH, int OW)
{
    Geo g = geo(n, H, W, k, stride, pad, OH, OW);
    size_t xq_floats = (size_t)stride * stride * g.nb * g.plane, in_img = (size_t)C * H * W;
    size_t out_img = (size_t)C * OH * OW;
    long units = (long)blocks(&g, n) * C;
    DW_PARALLEL((size_t)n * C * OH * OW * k * k)
    {
        float *xq = ddl_alloc(sizeof(float) * (xq_floats + g.nb * g.plane)), *run = xq + xq_floats;
        DW_FOR
        for (long u = 0; u < units; u++) {
            int c = (int)(u % C), i0 = (int)(u / C) * g.nb, nb = DDL_MIN(g.nb, n - i0), len = run_len(&g, nb);
            const float *wc = w + (size_t)c * k * k;
            float b = bias ? bias[c] : 0.0f;
            to_phases(&g, x + i0 * in_img + (size_t)c * H * W, in_img, nb, xq);
            for (int j = 0; j < len; j++) run[j] = b;
            for (int ki = 0; ki < k; ki++)
                for (int kj = 0; kj < k; kj++) {
                    const float *restrict src = xq + tap_off(&g, nb, ki, kj);
                    float *restrict dst = run;
                    float wv = wc[ki * k + kj];
                    for (int j = 0; j < len; j++) dst[j] += wv * src[j];
                }
            for (int i = 0; i < nb; i++)
                for (int oh = 0; oh < OH; oh++)
                    memcpy(y + (i0 + i) * out_img + ((size_t)c * OH + oh) * OW,
                           run + (size_t)i * g.plane + (size_t)oh * g.Wq, sizeof(float) * OW);
        }
        ddl_free(xq);
    }
}

/* sum of a[j] * b[j] over n floats, in double at the end: LANES running
 * float sums (independent chains the compiler turns into several vector
 * accumulators; one scalar accumulator would neither vectorise without
 * -ffast-math nor hide the add latency), then the lanes added pairwise in
 * double, halves first (a fixed tree: the 63 additions one after the
 * other were a third of the backward pass, 9 dots per channel and block). */
enum { LANES = 64 };
static double dot(const float *a, const float *b, int n)
{
    float lane[LANES] = { 0 };
    int j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int u = 0; u < LANES; u++) lane[u] += a[j + u] * b[j + u];
    for (int u = 0; j < n; j++, u++) lane[u] += a[j] * b[j];
    double t[LANES / 2];
    for (int u = 0; u < LANES / 2; u++) t[u] = (double)lane[u] + (double)lane[u + LANES / 2];
    for (int half = LANES / 4; half >= 1; half /= 2)
        for (int u = 0; u < half; u++) t[u] += t[u + half];
    return t[0];
}

void depthwise_backward_cpu(const float *x, const float *dy, const float *w, float *dw, float *dx, int n, int C,
                            int H, int W, int k, int stride, int pad, int OH, int OW, bool acc)
{
    Geo g = geo(n, H, W, k, stride, pad, OH, OW);
    int kk = k * k, nblk = blocks(&g, n);
    size_t q_floats = (size_t)stride * stride * g.nb * g.plane, in_img = (size_t)C * H * W;
    size_t out_img = (size_t)C * OH * OW;
    /* per unit weight-gradient sums, added up in block order afterwards
     * (fixed order: the result does not depend on the thread count) */
    double *dwu = ddl_alloc(sizeof(double) * (size_t)nblk * C * kk);
    long units = (long)nblk * C;
    DW_PARALLEL((size_t)n * C * OH * OW * kk)
    {
        /* xq, dxq: phase planes of x and of dx; e: dy on the run grid
         * (0 at non-output positions) */
        float *xq = ddl_alloc(sizeof(float) * (2 * q_floats + g.nb * g.plane));
        float *dxq = xq + q_floats, *e = dxq + q_floats;
        DW_FOR
        for (long u = 0; u < units; u++) {
            int c = (int)(u % C), i0 = (int)(u / C) * g.nb, nb = DDL_MIN(g.nb, n - i0), len = run_len(&g, nb);
            const float *wc = w + (size_t)c * kk;
            memset(e, 0, sizeof(float) * g.nb * g.plane);
            for (int i = 0; i < nb; i++)
                for (int oh = 0; oh < OH; oh++)
                    memcpy(e + (size_t)i * g.plane + (size_t)oh * g.Wq,
                           dy + (i0 + i) * out_img + ((size_t)c * OH + oh) * OW, sizeof(float) * OW);
            to_phases(&g, x + i0 * in_img + (size_t)c * H * W, in_img, nb, xq);
            for (int ki = 0; ki < k; ki++)
                for (int kj = 0; kj < k; kj++)
                    dwu[(size_t)u * kk + ki * k + kj] = dot(e, xq + tap_off(&g, nb, ki, kj), len);
            if (!dx) continue;
            /* dx_phase[j + tap] += w_tap * e[j], then back to the image */
            memset(dxq, 0, sizeof(float) * (size_t)stride * stride * nb * g.plane);
            for (int ki = 0; ki < k; ki++)
                for (int kj = 0; kj < k; kj++) {
                    float *restrict dst = dxq + tap_off(&g, nb, ki, kj);
                    float wv = wc[ki * k + kj];
                    for (int j = 0; j < len; j++) dst[j] += wv * e[j];
                }
            move_phases(&g, dx + i0 * in_img + (size_t)c * H * W, in_img, nb, dxq, acc ? ADD_FROM_PHASES : FROM_PHASES);
        }
        ddl_free(xq);
    }
    for (int c = 0; c < C; c++)
        for (int t = 0; t < kk; t++) {
            double sum = 0.0;
            for (int b = 0; b < nblk; b++) sum += dwu[((size_t)b * C + c) * kk + t];
            dw[(size_t)c * kk + t] += (float)sum;
        }
    ddl_free(dwu);
}

/* The CPU's table (the CUDA twin's: depthwise.cu). */
const DepthwiseKernels depthwise_kernels_cpu = { .forward = depthwise_forward_cpu,
                                                 .backward = depthwise_backward_cpu };

bool depthwise_fits(const ConvShape *s) { return s->groups == s->cin && s->cout == s->cin; }

size_t depthwise_scratch(const void *kt, const ConvShape *s, int max_batch)
{
    (void)kt, (void)s, (void)max_batch;
    return 0;
}

void depthwise_forward(const ConvRun *r, const void *kt)
{
    const ConvShape *s = &r->s;
    ((const DepthwiseKernels *)kt)->forward(r->x, r->w, r->bias, r->y, r->batch, s->cin, s->h, s->w, s->k, s->stride, s->pad, s->oh,
                        s->ow);
}

void depthwise_backward(const ConvRun *r, const void *kt)
{
    const ConvShape *s = &r->s;
    ((const DepthwiseKernels *)kt)->backward(r->x, r->dy, r->w, r->dw, r->dx, r->batch, s->cin, s->h, s->w, s->k, s->stride, s->pad,
                         s->oh, s->ow, r->acc);
}
