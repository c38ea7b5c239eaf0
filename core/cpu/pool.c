/* pool.c - max, average and global average pooling.
 *
 * Max pooling takes the first largest value of each window in (ki, kj)
 * order, starting from -FLT_MAX (so NaN never wins, as in the GPU twin).
 * The forward pass of VGG's 2x2 stride-2 unpadded windows has a fast path
 * that makes the same comparisons in the same order with no bounds tests,
 * which the compiler vectorises: VGG-11 x0.5's pooling forward went from
 * 1.3 to 0.3 ms a step (batch 64, 2 threads). Its backward pass has one
 * too (maxpool2_backward, numbers there): the general loop's memset, then
 * a scatter with a bounds test and a branch per tap, was 3.0 ms of cnn3's
 * 21 ms step on one thread. */
#include "kernels.h"

#include <float.h>
#include <string.h>
#include "copy_short.h"
#include "parallel.h"

static bool is_2x2(int H, int W, int k, int stride, int pad, int OH, int OW)
{
    return k == 2 && stride == 2 && pad == 0 && OH == H / 2 && OW == W / 2;
}

static inline float max_step(float m, float v) { return v > m ? v : m; }

static void maxpool2_forward(const float *x, float *y, int planes, int H, int W, int OH, int OW)
{
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++)
        for (int oh = 0; oh < OH; oh++) {
            const float *r0 = x + ((size_t)pl * H + 2 * oh) * W, *r1 = r0 + W;
            float *out = y + ((size_t)pl * OH + oh) * OW;
            for (int ow = 0; ow < OW; ow++) {
                float m = max_step(max_step(-FLT_MAX, r0[2 * ow]), r0[2 * ow + 1]);
                out[ow] = max_step(max_step(m, r1[2 * ow]), r1[2 * ow + 1]);
            }
        }
}

/* The winner of a 2x2 window (0..3, row-major), as the general loop picks
 * it: the first, then any strictly larger. */
void maxpool_forward_cpu(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH, int OW)
{
    if (is_2x2(H, W, k, stride, pad, OH, OW)) {
        maxpool2_forward(x, y, planes, H, W, OH, OW);
        return;
    }
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (size_t)pl * H * W;
        float *yp = y + (size_t)pl * OH * OW;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                float m = -FLT_MAX;
                for (int ki = 0; ki < k; ki++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    for (int kj = 0; kj < k; kj++) {
                        int iw = ow * stride - pad + kj;
                        if (iw < 0 || iw >= W) continue;
                        float v = xp[ih * W + iw];
                        if (v > m) m = v;
                    }
                }
                yp[oh * OW + ow] = m;
            }
    }
}

/* One 2x2 window's gradient g split over its taps (a b / c d, row-major)
 * as the general loop picks: the first tap unless a later one is strictly
 * larger (so a NaN never takes it from the first); the others get 0. All
 * float selects, no branch and no integer: GCC 12 vectorises the loops
 * below only in that form (with an int winner index, or a 0 + added to
 * its outputs, it reports "control flow in loop" or "no vectype"). */
static inline void window2(float a, float b, float c, float d, float g, float out[4])
{
    float m1 = b > a ? b : a, m2 = c > m1 ? c : m1;
    float rest = d > m2 ? 0.0f : g; /* g unless d wins */
    out[3] = d > m2 ? g : 0.0f;
    out[2] = c > m1 ? rest : 0.0f;
    rest = c > m1 ? 0.0f : rest;
    out[1] = b > a ? rest : 0.0f;
    out[0] = b > a ? 0.0f : rest;
}

/* WIN_BLOCK windows of a row pair (two input rows, one row of dy): a
 * fixed count, so that the compiler vectorises the whole loop. With a
 * row's count (OW) it did too, but then the rows shorter than a vector
 * (cnn3's 14 and 7 windows, VGG's 8, 4, 2) ran the scalar remainder,
 * where GCC turns the selects back into branches. One thread, AVX-512
 * build, thread CPU time (2026-12-06), one call on random inputs: 2048
 * planes of 28x28 took 5.2 ms in the general loop, 4.7 ms by rows, 0.8
 * ms in blocks; 4096 of 14x14 2.6 -> 0.7, of 7x7 0.46 -> 0.30; 8192 of
 * 16x16 6.8 -> 1.2, 16384 of 8x8 3.6 -> 1.5, 32768 of 4x4 1.6 -> 1.5. In
 * cnn3's step the general loop's branches guess better (ReLU outputs):
 * its three 2x2 layers took 3.1 ms a step there plus the memset, 1.5-1.9
 * in blocks (perf samples, one thread, load 10-17). */
enum { WIN_BLOCK = 16 };

static inline void block2_backward(const float *restrict r0, const float *restrict r1, const float *restrict g,
                                   float *restrict d0, float *restrict d1, bool acc)
{
    if (acc)
        for (int ow = 0; ow < WIN_BLOCK; ow++) { /* the winner alone is added to, as the general loop does */
            float gv[4], won[4];
            window2(r0[2 * ow], r0[2 * ow + 1], r1[2 * ow], r1[2 * ow + 1], g[ow], gv);
            window2(r0[2 * ow], r0[2 * ow + 1], r1[2 * ow], r1[2 * ow + 1], 1.0f, won);
            d0[2 * ow] = won[0] != 0.0f ? d0[2 * ow] + gv[0] : d0[2 * ow];
            d0[2 * ow + 1] = won[1] != 0.0f ? d0[2 * ow + 1] + gv[1] : d0[2 * ow + 1];
            d1[2 * ow] = won[2] != 0.0f ? d1[2 * ow] + gv[2] : d1[2 * ow];
            d1[2 * ow + 1] = won[3] != 0.0f ? d1[2 * ow + 1] + gv[3] : d1[2 * ow + 1];
        }
    else
        for (int ow = 0; ow < WIN_BLOCK; ow++) { /* 0 + g: a -0 lands as +0, as the memset and add leave it */
            float gv[4];
            window2(r0[2 * ow], r0[2 * ow + 1], r1[2 * ow], r1[2 * ow + 1], 0.0f + g[ow], gv);
            d0[2 * ow] = gv[0], d0[2 * ow + 1] = gv[1], d1[2 * ow] = gv[2], d1[2 * ow + 1] = gv[3];
        }
}

/* One row pair's OW windows: whole blocks in place, the rest through a
 * block of local copies (zeros past the row), by copy_short: memcpy calls
 * there were 0.6-0.9 ms of cnn3's step on one thread (perf, 2026-12-06),
 * and masked loads and stores stalled in the model (2.6-3.7 against 1.5
 * ms a step, 2026-12-06). */
static void row2_backward(const float *r0, const float *r1, const float *g, float *d0, float *d1, int OW, bool acc)
{
    int ow = 0;
    for (; ow + WIN_BLOCK <= OW; ow += WIN_BLOCK)
        block2_backward(r0 + 2 * ow, r1 + 2 * ow, g + ow, d0 + 2 * ow, d1 + 2 * ow, acc);
    size_t n = (size_t)(OW - ow);
    if (n == 0) return;
    float x0[2 * WIN_BLOCK] = { 0 }, x1[2 * WIN_BLOCK] = { 0 }, gb[WIN_BLOCK] = { 0 };
    float o0[2 * WIN_BLOCK] = { 0 }, o1[2 * WIN_BLOCK] = { 0 };
    copy_short(x0, r0 + 2 * ow, 2 * n), copy_short(x1, r1 + 2 * ow, 2 * n), copy_short(gb, g + ow, n);
    if (acc) copy_short(o0, d0 + 2 * ow, 2 * n), copy_short(o1, d1 + 2 * ow, 2 * n);
    block2_backward(x0, x1, gb, o0, o1, acc);
    copy_short(d0 + 2 * ow, o0, 2 * n), copy_short(d1 + 2 * ow, o1, 2 * n);
}

/* 2x2 stride-2 windows: every input pixel in at most one window, so each
 * is written once (no memset first); on an odd plane the last row and
 * column are in none, and get zeros (acc false) or nothing. */
static void maxpool2_backward(const float *x, const float *dy, float *dx, int planes, int H, int W, int OH, int OW,
                              bool acc)
{
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        for (int oh = 0; oh < OH; oh++) {
            size_t at = ((size_t)pl * H + 2 * oh) * W;
            float *d0 = dx + at, *d1 = d0 + W;
            row2_backward(x + at, x + at + W, dy + ((size_t)pl * OH + oh) * OW, d0, d1, OW, acc);
            if (!acc && W > 2 * OW) d0[W - 1] = d1[W - 1] = 0.0f;
        }
        if (!acc && H > 2 * OH) memset(dx + ((size_t)pl * H + H - 1) * W, 0, sizeof(float) * (size_t)W);
    }
}

void maxpool_backward_cpu(const float *x, const float *dy, float *dx, int planes, int H, int W, int k, int stride,
                          int pad, int OH, int OW, bool acc)
{
    if (is_2x2(H, W, k, stride, pad, OH, OW)) {
        maxpool2_backward(x, dy, dx, planes, H, W, OH, OW, acc);
        return;
    }
    if (!acc) memset(dx, 0, sizeof(float) * (size_t)planes * H * W);
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (size_t)pl * H * W;
        const float *dyp = dy + (size_t)pl * OH * OW;
        float *dxp = dx + (size_t)pl * H * W;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                float m = -FLT_MAX;
                int best = -1;
                for (int ki = 0; ki < k; ki++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    for (int kj = 0; kj < k; kj++) {
                        int iw = ow * stride - pad + kj;
                        if (iw < 0 || iw >= W) continue;
                        float v = xp[ih * W + iw];
                        if (best < 0 || v > m) { m = v; best = ih * W + iw; }
                    }
                }
                if (best >= 0) dxp[best] += dyp[oh * OW + ow];
            }
    }
}

void avgpool_forward_cpu(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad, int OH, int OW)
{
    float inv = 1.0f / (float)(k * k);
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (size_t)pl * H * W;
        float *yp = y + (size_t)pl * OH * OW;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                float s = 0.0f;
                for (int ki = 0; ki < k; ki++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    for (int kj = 0; kj < k; kj++) {
                        int iw = ow * stride - pad + kj;
                        if (iw >= 0 && iw < W) s += xp[ih * W + iw];
                    }
                }
                yp[oh * OW + ow] = s * inv;
            }
    }
}

void avgpool_backward_cpu(const float *dy, float *dx, int planes, int H, int W, int k, int stride, int pad, int OH,
                          int OW, bool acc)
{
    if (!acc) memset(dx, 0, sizeof(float) * (size_t)planes * H * W);
    float inv = 1.0f / (float)(k * k);
    PARALLEL_FOR((size_t)planes * H * W)
    for (int pl = 0; pl < planes; pl++) {
        const float *dyp = dy + (size_t)pl * OH * OW;
        float *dxp = dx + (size_t)pl * H * W;
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++) {
                float g = dyp[oh * OW + ow] * inv;
                for (int ki = 0; ki < k; ki++) {
                    int ih = oh * stride - pad + ki;
                    if (ih < 0 || ih >= H) continue;
                    for (int kj = 0; kj < k; kj++) {
                        int iw = ow * stride - pad + kj;
                        if (iw >= 0 && iw < W) dxp[ih * W + iw] += g;
                    }
                }
            }
    }
}

void global_avgpool_forward_cpu(const float *x, float *y, int planes, int p)
{
    PARALLEL_FOR((size_t)planes * p)
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (size_t)pl * p;
        float s = 0.0f;
        for (int q = 0; q < p; q++) s += xp[q];
        y[pl] = s / (float)p;
    }
}

void global_avgpool_backward_cpu(const float *dy, float *dx, int planes, int p, bool acc)
{
    PARALLEL_FOR((size_t)planes * p)
    for (int pl = 0; pl < planes; pl++) {
        float g = dy[pl] / (float)p;
        float *dxp = dx + (size_t)pl * p;
        if (acc)
            for (int q = 0; q < p; q++) dxp[q] += g;
        else
            for (int q = 0; q < p; q++) dxp[q] = g;
    }
}
